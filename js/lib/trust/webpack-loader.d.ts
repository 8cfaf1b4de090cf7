// Types for wallet-simulator-testing/webpack-loader (webpack-loader.js): the loader
// WalletSimulatorTrustPlugin puts in front of @turnkey/crypto's constants files. Structural, so
// webpack's own types are not needed.
import type { TrustedKeys } from "./trust";

/** The part of webpack's loader context the loader reads. */
export interface TrustLoaderContext {
  resourcePath: string;
  getOptions?(): { keys?: TrustedKeys } | undefined;
}

/** `source` with the constants rewritten to trust the simulator's keys; any other file unchanged. */
declare function walletSimulatorTrustLoader(this: TrustLoaderContext, source: string): string;
export = walletSimulatorTrustLoader;
