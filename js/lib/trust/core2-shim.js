"use strict";
// Old name of wallet-simulator-testing/register, kept so existing setups keep working:
//
//   require("wallet-simulator-testing/core2-shim");   // same as require("wallet-simulator-testing/register")
//
// Loading it loads register.js, which makes every copy of @turnkey/crypto trust the simulator's
// keys (core 2.x's OTP target bundle among them; see register.js and trust.js). Its exports stay:
// SIMULATOR_OTP_SIGNER_PUBLIC_KEY (the key trusted for OTP target bundles,
// $WALLET_SIMULATOR_OTP_SIGNER_PUBLIC_KEY or the simulator's `enclave` key) and patch(crypto),
// which wraps one loaded module's encryptOtpCodeToBundle so that bundles signed by that key are
// accepted (the old mechanism, for a copy loaded some other way). Tests and local development
// only, never production.

const register = require("./register.js");

const SIMULATOR_OTP_SIGNER_PUBLIC_KEY = register.keys.PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY;
const WRAPPED = Symbol.for("wallet-simulator.core2-shim");

function signedBySimulator(bundle) {
  try {
    return JSON.parse(bundle).enclaveQuorumPublic === SIMULATOR_OTP_SIGNER_PUBLIC_KEY;
  } catch {
    return false;
  }
}

function patch(crypto) {
  const original = crypto && crypto.encryptOtpCodeToBundle;
  if (typeof original !== "function" || original[WRAPPED]) return crypto;
  const wrapped = (otpCode, bundle, publicKey, signer) =>
    original(otpCode, bundle, publicKey, signer ?? (signedBySimulator(bundle) ? SIMULATOR_OTP_SIGNER_PUBLIC_KEY : undefined));
  wrapped[WRAPPED] = true;
  crypto.encryptOtpCodeToBundle = wrapped;
  return crypto;
}

module.exports = { SIMULATOR_OTP_SIGNER_PUBLIC_KEY, patch };
