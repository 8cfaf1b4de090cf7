// Types for wallet-simulator-testing/core2-shim (core2-shim.js): the old name of ./register.

/** The key trusted for init_otp target bundles ($WALLET_SIMULATOR_OTP_SIGNER_PUBLIC_KEY or the simulator's `enclave` key). */
export declare const SIMULATOR_OTP_SIGNER_PUBLIC_KEY: string;
/** Wraps one loaded @turnkey/crypto module's encryptOtpCodeToBundle to accept that key; returns the module. */
export declare function patch<T>(crypto: T): T;
