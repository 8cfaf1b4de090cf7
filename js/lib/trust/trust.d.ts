// Types for wallet-simulator-testing/trust (trust.js): the transform behind the preload and plugins.

/** The @turnkey/crypto constants that are replaced, each with its new value (uncompressed P-256 hex). */
export interface TrustedKeys {
  /** export and import bundles: the simulator's `signer` key ($WALLET_SIMULATOR_SIGNER_PUBLIC_KEY) */
  PRODUCTION_SIGNER_SIGN_PUBLIC_KEY: string;
  /** init_otp's target bundle: the simulator's `enclave` key ($WALLET_SIMULATOR_OTP_SIGNER_PUBLIC_KEY) */
  PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY: string;
  /** session JWTs: the simulator's `notarizer` key ($WALLET_SIMULATOR_NOTARIZER_PUBLIC_KEY) */
  PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY: string;
  /** the signer key's name in @turnkey/crypto before 2.5 */
  PRODUCTION_SIGNER_PUBLIC_KEY: string;
  /** the notarizer key's name in @turnkey/crypto before 2.5 */
  PRODUCTION_NOTARIZER_PUBLIC_KEY: string;
}

/** Options every plugin takes. */
export interface TrustOptions {
  /** The constants' new values; default trustedKeys(). */
  keys?: TrustedKeys;
  /** No banner when the build starts (the bundle still warns where it runs). */
  quiet?: boolean;
}

/** The simulator's published keys, as GET /_simulator/keys lists them. */
export declare const SIMULATOR_KEYS: Readonly<{ signer: string; enclave: string; notarizer: string }>;
export declare const REPLACED: Readonly<Record<keyof TrustedKeys, { key: "signer" | "enclave" | "notarizer"; env: string }>>;
/** Matches …/@turnkey/crypto/dist/constants.js, .mjs or .cjs at any depth (an optional ?query too). */
export declare const CONSTANTS_FILE: RegExp;
export declare const MARKER: string;
export declare const BANNER: string;
/** The simulator's keys, or those the WALLET_SIMULATOR_*_PUBLIC_KEY variables of `env` name; throws on a malformed one. */
export declare function trustedKeys(env?: Record<string, string | undefined>): TrustedKeys;
export declare function isConstantsFile(path: string): boolean;
/** `source` with the constants replaced, or null when `path` is not a constants file that declares any of them. */
export declare function rewriteConstants(
  source: string,
  path: string,
  options?: { keys?: TrustedKeys; announce?: boolean },
): string | null;
/** Print the banner on stderr, naming `where`. */
export declare function announce(where?: string): void;
