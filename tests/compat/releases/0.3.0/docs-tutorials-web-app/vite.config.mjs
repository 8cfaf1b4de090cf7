import { defineConfig } from "vite";
import { walletSimulatorTrust } from "wallet-simulator-testing/vite";

// the trust plugin: on in `vite` (dev) and `vite build --mode test`, never in a production build
export default defineConfig(({ mode }) => ({
  plugins: mode === "production" ? [] : [walletSimulatorTrust()],
}));
