// Types for wallet-simulator-testing/esbuild (esbuild.js). Structural, so esbuild's own types are not needed.
import type { TrustOptions } from "./trust";

export interface EsbuildPlugin {
  name: string;
  setup(build: { onLoad(options: { filter: RegExp }, callback: (args: { path: string }) => unknown): void }): void;
}

/** The esbuild plugin: `plugins: [walletSimulatorTrust()]`. */
export declare function walletSimulatorTrust(options?: TrustOptions): EsbuildPlugin;
