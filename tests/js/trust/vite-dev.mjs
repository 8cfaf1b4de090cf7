// `vite dev` pre-bundles dependencies before any plugin `transform` sees them: this runs Vite's own
// dependency optimizer on @turnkey/crypto, with or without wallet-simulator-testing's Vite plugin,
// then imports the pre-bundled file (what the dev server would send the browser) and runs run.cjs.
// Usage: node vite-dev.mjs '<run.cjs input>' '{"helper": "<js/lib/trust>", "cacheDir", "plugin": bool}'
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const options = JSON.parse(process.argv[3]);
const { resolveConfig, optimizeDeps } = await import("vite");
const { walletSimulatorTrust } = require(`${options.helper}/vite.js`);
const config = await resolveConfig({
  root: fileURLToPath(new URL(".", import.meta.url)), configFile: false, logLevel: "error", cacheDir: options.cacheDir,
  plugins: options.plugin ? [walletSimulatorTrust()] : [],
  optimizeDeps: { include: ["@turnkey/crypto"], noDiscovery: true },
}, "serve");
const { optimized } = await optimizeDeps(config, true);
const crypto = await import(pathToFileURL(optimized["@turnkey/crypto"].file).href);
await require("./run.cjs")(crypto);
