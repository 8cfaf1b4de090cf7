"use strict";
// jest runs modules through its own loader, which neither Node's require hooks (register.js) nor a
// bundler plugin reach. This is the same rewrite (trust.js) as a jest transform, and a helper that
// adds it to a jest configuration:
//
//   // jest.config.js
//   const { withSimulatorTrust } = require("wallet-simulator-testing/jest-trust");  // or its old name, /jest
//   module.exports = withSimulatorTrust({ testEnvironment: "node" });
//
// It transforms only @turnkey/crypto's constants files (at any depth), which jest otherwise leaves
// untransformed with the rest of node_modules; every other file keeps jest's default (babel-jest)
// or your own `transform`. Tests and local development only: never production.
const { createHash } = require("node:crypto");
const { rewriteConstants, trustedKeys } = require("./trust.js");

const CONSTANTS_PATTERN = "[\\\\/]@turnkey[\\\\/]crypto[\\\\/]dist[\\\\/]constants\\.c?js$";
const DEFAULT_TRANSFORM = { "\\.[jt]sx?$": "babel-jest" }; // jest's own default, kept beside ours
const DEFAULT_IGNORE = ["/node_modules/", "\\.pnp\\.[^\\/]+$"];

/** The jest transformer: the constants file with the simulator's keys; any other file unchanged. */
const transformer = {
  process(source, filename) {
    const code = rewriteConstants(String(source), filename, { keys: trustedKeys() });
    return { code: code === null ? String(source) : code };
  },
  getCacheKey(source, filename) {
    return createHash("sha256")
      .update(String(source))
      .update(String(filename))
      .update(JSON.stringify(trustedKeys()))
      .update("wallet-simulator-testing/jest 1")
      .digest("hex");
  },
};

/** `config` with the transform added and @turnkey/crypto's constants files no longer ignored. */
function withSimulatorTrust(config = {}) {
  const ignore = (config.transformIgnorePatterns || DEFAULT_IGNORE).map((pattern) =>
    pattern === "/node_modules/" ? "/node_modules/(?!(?:.*/)?@turnkey/crypto/dist/constants\\.c?js$)" : pattern,
  );
  return {
    ...config,
    transform: { [CONSTANTS_PATTERN]: require.resolve("./jest.js"), ...(config.transform || DEFAULT_TRANSFORM) },
    transformIgnorePatterns: ignore,
  };
}

// each export by name, so that Node's ESM import of this CommonJS file sees them all (cjs-module-lexer)
const { process: transform, getCacheKey } = transformer;
module.exports = { process: transform, getCacheKey, withSimulatorTrust, CONSTANTS_PATTERN };
