// Types for wallet-simulator-testing/core2-shim (core2-shim.js): the old name of ./register, which it
// loads, plus the older mechanism (patch) for a copy of @turnkey/crypto loaded some other way. Kept:
// existing setups keep working; new ones load wallet-simulator-testing/register.

/**
 * The key trusted for init_otp target bundles ($WALLET_SIMULATOR_OTP_SIGNER_PUBLIC_KEY or the simulator's `enclave` key).
 * @deprecated load `wallet-simulator-testing/register`; its `keys.PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY` is this key.
 */
export declare const SIMULATOR_OTP_SIGNER_PUBLIC_KEY: string;
/**
 * Wraps one loaded @turnkey/crypto module's encryptOtpCodeToBundle to accept that key; returns the module.
 * @deprecated `wallet-simulator-testing/register` makes every copy of @turnkey/crypto trust the key, patched or not.
 */
export declare function patch<T>(crypto: T): T;
