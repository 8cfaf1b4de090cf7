"use strict";
// The one transform behind every way of making Turnkey's own code trust the wallet simulator:
// the Node preload (register.js), and the Vite, webpack and esbuild plugins (vite.js, webpack.js,
// esbuild.js) all call rewriteConstants() on @turnkey/crypto's constants file.
//
// Why constants and not functions: @turnkey/crypto pins Turnkey's production keys in
// dist/constants.js (CommonJS) and dist/constants.mjs (ESM). decryptExportBundle,
// encryptWalletToBundle, encryptPrivateKeyToBundle, encryptOtpCodeToBundle,
// verifySessionJwtSignature, ... compare a bundle's signer with those constants unless the caller
// passes a `dangerouslyOverride...` key, which Turnkey's own code (core 2.x's OTP login, the
// export-in-node and import-in-node examples) never does. Rewriting the constants' values covers
// every function that pins a key, in the CJS build (read as `constants.X` at call time), the ESM
// build (imported bindings) and any bundle, with one mechanism. The signature is still verified;
// only which key is expected changes. Keys the simulator has no counterpart for (the TLS fetcher's
// encryption key, the on-ramp key) are left as they are.
//
// The simulator's keys are fixed and public (simulator/crypto/service_keys.py; a Python test checks
// these copies). A process or bundle with this transform trusts anyone holding them: tests and
// local development only, never production.

/** The simulator's published public keys (uncompressed P-256 hex), by service_keys name. */
const SIMULATOR_KEYS = Object.freeze({
  // signs export and import bundles (export_*, init_import_*)
  signer:
    "04d20c33a266d3f8543bbc310f0da1ce7be258380928a1a984b018701a6e9f6405211819eed586dd81e276c8e7b9623aa870b505c634f078e149861947b1f30e01",
  // signs init_otp's encryption target bundle
  enclave:
    "049fa74a8141d58479752687e7d005136a2f7f06ac2f69c9bf4c9bf7fb171fb3021e5171203c3051e68074ce69cae5a7f353725b1baf3b5c9f9f79947f5245a445",
  // signs session JWTs
  notarizer:
    "04d203fb8ecee4acc1496003b0093f987ff65ea7cd8cbd960ad107a0329b0d7475072107667e04150e397c7a6aa8bed99f3f086557b8c5c9118cdec0d949a777d5",
});

/** Each production constant the transform replaces: which simulator key, and the env var that overrides it. */
const REPLACED = Object.freeze({
  PRODUCTION_SIGNER_SIGN_PUBLIC_KEY: { key: "signer", env: "WALLET_SIMULATOR_SIGNER_PUBLIC_KEY" },
  // the old core2-shim's variable, kept
  PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY: { key: "enclave", env: "WALLET_SIMULATOR_OTP_SIGNER_PUBLIC_KEY" },
  PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY: { key: "notarizer", env: "WALLET_SIMULATOR_NOTARIZER_PUBLIC_KEY" },
  // the same keys' names in @turnkey/crypto before 2.5 (what @turnkey/sdk-server 2.x-3.x and @turnkey/viem 0.9 ship)
  PRODUCTION_SIGNER_PUBLIC_KEY: { key: "signer", env: "WALLET_SIMULATOR_SIGNER_PUBLIC_KEY" },
  PRODUCTION_NOTARIZER_PUBLIC_KEY: { key: "notarizer", env: "WALLET_SIMULATOR_NOTARIZER_PUBLIC_KEY" },
});

// …/@turnkey/crypto/dist/constants.js or .mjs at any depth (npm nesting, pnpm's .pnpm store, a
// bundler's id with a ?query); both separators, for Windows paths.
const CONSTANTS_FILE = /[\\/]@turnkey[\\/]crypto[\\/]dist[\\/]constants\.(?:m?js|cjs)(?:\?.*)?$/;
const MARKER = "/* wallet-simulator-testing: trusts the simulator's keys */";
const ANNOUNCED = "wallet-simulator-testing.trust.announced";
const HEX = /^(?:04[0-9a-fA-F]{128}|0[23][0-9a-fA-F]{64})$/;

const BANNER =
  "[wallet-simulator-testing] @turnkey/crypto now trusts the wallet simulator's public test keys " +
  "(export/import signer, OTP target signer, session notarizer) instead of Turnkey's production keys. " +
  "Tests and local development only: NEVER ship this to production.";

/** The key each replaced constant gets: the simulator's, or the env var's when set. */
function trustedKeys(env = process.env) {
  const out = {};
  for (const [name, { key, env: variable }] of Object.entries(REPLACED)) {
    const value = (env && env[variable]) || SIMULATOR_KEYS[key];
    if (!HEX.test(value)) throw new Error(`${variable} is not a P-256 public key in hex: ${value}`);
    out[name] = value.toLowerCase();
  }
  return out;
}

/** Whether `path` (a file path or bundler id) is one of @turnkey/crypto's constants files. */
function isConstantsFile(path) {
  return CONSTANTS_FILE.test(String(path));
}

/**
 * `source` with the replaced constants holding the simulator's keys, when `path` is a constants
 * file of @turnkey/crypto that declares at least one of them; otherwise null (leave the file as
 * it is). Idempotent. `announce` adds a one-time console.warn that runs where the code runs (the
 * browser, for a bundle).
 */
function rewriteConstants(source, path, { keys = trustedKeys(), announce = true } = {}) {
  if (!isConstantsFile(path) || typeof source !== "string" || source.includes(MARKER)) return null;
  let replaced = 0;
  let code = source;
  for (const [name, value] of Object.entries(keys)) {
    // `NAME = "<hex>"`: the declaration (const/var/let) or an `exports.NAME = "<hex>"` form
    const declaration = new RegExp(`(\\b${name}\\s*=\\s*)(["'\`])[0-9a-fA-F]+\\2`, "g");
    code = code.replace(declaration, (_, head, quote) => {
      replaced += 1;
      return `${head}${quote}${value}${quote}`;
    });
  }
  if (replaced === 0) return null;
  const banner = announce
    ? `\n;(function () { var g = typeof globalThis !== "undefined" ? globalThis : {}; ` +
      `var k = Symbol.for(${JSON.stringify(ANNOUNCED)}); if (!g[k]) { g[k] = true; ` +
      `console.warn(${JSON.stringify(BANNER)}); } })();\n`
    : "\n";
  // after the code, so a leading "use strict" stays first; before a trailing sourceMappingURL
  // comment, which tools expect last (the rewrite moves no line, so the map stays right)
  const tail = /\n\/\/# sourceMappingURL=[^\n]*\s*$/.exec(code);
  const at = tail ? tail.index : code.length;
  return `${code.slice(0, at)}\n${MARKER}${banner}${code.slice(at)}`;
}

/** Print the banner now (the preload and each plugin do, saying which); the copies rewritten
 * with `announce` then stay quiet in this process. */
function announce(where) {
  globalThis[Symbol.for(ANNOUNCED)] = true;
  console.warn(where ? `${BANNER} [${where}]` : BANNER);
}

module.exports = {
  SIMULATOR_KEYS,
  REPLACED,
  CONSTANTS_FILE,
  MARKER,
  BANNER,
  trustedKeys,
  isConstantsFile,
  rewriteConstants,
  announce,
};
