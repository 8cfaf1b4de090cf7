// Types for wallet-simulator-testing/vite (vite.js). Structural, so vite's own types are not needed.
import type { TrustOptions } from "./trust";

export interface VitePlugin {
  name: string;
  enforce: "pre";
  config(): { optimizeDeps: Record<string, unknown> };
  configResolved(): void;
  transform(code: string, id: string): { code: string; map: null } | null;
}

/** The Vite plugin: `plugins: [walletSimulatorTrust()]` in vite.config. */
export declare function walletSimulatorTrust(options?: TrustOptions): VitePlugin;
