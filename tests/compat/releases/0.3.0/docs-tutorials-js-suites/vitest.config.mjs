import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { globalSetup: ["./test/simulator-setup.mjs"], include: ["test/**/*.vitest.ts"] },
});
