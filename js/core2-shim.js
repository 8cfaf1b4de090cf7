"use strict";
// Lets @turnkey/core 2.x (and @turnkey/react-wallet-kit) complete OTP logins against the wallet
// simulator. One line, before core is loaded:
//
//   require("wallet-simulator-testing/core2-shim");
//
// Why: core 2.x seals the OTP code with @turnkey/crypto's encryptOtpCodeToBundle(code, bundle,
// publicKey) and never passes its 4th argument (dangerouslyOverrideSignerPublicKey), so the
// target bundle must be signed by Turnkey's production TLS-fetcher key, which no simulator has.
// This wraps encryptOtpCodeToBundle in every copy of @turnkey/crypto that gets loaded: when a
// bundle names the simulator's published enclave key as its signer, the wrapper passes that key
// as the override; @turnkey/crypto still verifies the signature. Any other bundle, and every other
// function, is untouched. The simulator's key pair is public (a test key): load this in tests and
// local development only, never in a production build.
//
// CommonJS only (jest's default, node's require). Set WALLET_SIMULATOR_OTP_SIGNER_PUBLIC_KEY to
// trust another key (uncompressed hex).

const Module = require("node:module");

const SIMULATOR_OTP_SIGNER_PUBLIC_KEY =
  process.env.WALLET_SIMULATOR_OTP_SIGNER_PUBLIC_KEY ||
  "049fa74a8141d58479752687e7d005136a2f7f06ac2f69c9bf4c9bf7fb171fb3021e5171203c3051e68074ce69cae5a7f353725b1baf3b5c9f9f79947f5245a445";
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

// Copies loaded from now on (core nests its own @turnkey/crypto), then copies already loaded.
const load = Module._load;
Module._load = function loadWithShim(request, ...rest) {
  const exported = load.call(this, request, ...rest);
  return request === "@turnkey/crypto" ? patch(exported) : exported;
};
for (const [file, cached] of Object.entries(require.cache)) {
  if (/[\\/]@turnkey[\\/]crypto[\\/]dist[\\/]index\.js$/.test(file)) patch(cached.exports);
}

module.exports = { SIMULATOR_OTP_SIGNER_PUBLIC_KEY, patch };
