// Types for wallet-simulator-testing/webpack (webpack.js). Structural, so webpack's own types are not needed.
import type { TrustOptions, TrustedKeys } from "./trust";

/** The webpack 5 plugin (Next.js too): `plugins: [new WalletSimulatorTrustPlugin()]`. */
export declare class WalletSimulatorTrustPlugin {
  constructor(options?: TrustOptions);
  keys: TrustedKeys;
  quiet: boolean;
  apply(compiler: { options: { module: { rules: unknown[] } } }): void;
}
