"use strict";
// Node preload: every copy of @turnkey/crypto this process loads trusts the wallet simulator's keys,
// so Turnkey's own code (export-in-node, import-in-node, core 2.x OTP login) runs unmodified:
//
//   node --require wallet-simulator-testing/register app.js
//   NODE_OPTIONS="--require wallet-simulator-testing/register" npm test
//
// What it does (trust.js has the why): @turnkey/crypto's dist/constants.js (require) and
// dist/constants.mjs (import), at any depth under node_modules and in any version, are rewritten as
// they load so that PRODUCTION_SIGNER_SIGN_PUBLIC_KEY, PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY and
// PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY hold the simulator's keys; copies already required before
// this ran get the same values on their exports. CommonJS through Module.prototype._compile, ESM
// through module.register load hooks (trust-hooks.mjs, Node >= 20.6). No configuration for the
// simulator's default keys; WALLET_SIMULATOR_SIGNER_PUBLIC_KEY, WALLET_SIMULATOR_OTP_SIGNER_PUBLIC_KEY
// and WALLET_SIMULATOR_NOTARIZER_PUBLIC_KEY trust other keys. Prints one warning on stderr.
// Tests and local development only: never load it in production.

const Module = require("node:module");
const path = require("node:path");
const { pathToFileURL } = require("node:url");
const threads = require("node:worker_threads");
const trust = require("./trust.js");

const INSTALLED = Symbol.for("wallet-simulator-testing.register");
const CRYPTO_DIST = /[\\/]@turnkey[\\/]crypto[\\/]dist[\\/][^\\/]+\.c?js$/;

function install() {
  const keys = trust.trustedKeys();
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileTrustingTheSimulator(content, filename) {
    const code = trust.isConstantsFile(filename) ? trust.rewriteConstants(content, filename, { keys, announce: false }) : null;
    return compile.call(this, code === null ? content : code, filename);
  };
  // copies required before the preload ran: their functions read `constants.X` at call time, so
  // new values on the constants module's exports (and index's re-exports) take effect
  for (const [file, cached] of Object.entries(require.cache)) {
    if (!CRYPTO_DIST.test(file) || !cached || !cached.exports) continue;
    for (const [name, value] of Object.entries(keys)) {
      if (typeof cached.exports[name] === "string") {
        try {
          cached.exports[name] = value;
        } catch {
          // a read-only re-export: the constants module itself carries the value
        }
      }
    }
  }
  let esm = false;
  if (typeof Module.register === "function") {
    Module.register(pathToFileURL(path.join(__dirname, "trust-hooks.mjs")).href, { data: { keys } });
    esm = true;
  }
  if (threads.isMainThread) {
    trust.announce(esm ? "node preload, require and import" : "node preload, require only (import needs Node >= 20.6)");
  }
  return { keys, esm };
}

// Node runs --require preloads in its module-hooks thread too (a worker with no parentPort); the
// hooks themselves do the work there, so nothing is installed or printed twice.
const hooksThread = !threads.isMainThread && threads.parentPort === null;
if (!globalThis[INSTALLED] && !hooksThread) globalThis[INSTALLED] = install();
const installed = globalThis[INSTALLED] || { keys: trust.trustedKeys(), esm: false };

// written as names so that Node's ESM import of this CommonJS file sees both (cjs-module-lexer)
const { keys, esm } = installed;
module.exports = { keys, esm };
