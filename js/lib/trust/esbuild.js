"use strict";
// esbuild plugin: bundles built with it carry @turnkey/crypto's constants rewritten to trust the
// wallet simulator's keys (see trust.js for what exactly is replaced and why).
//
//   const { walletSimulatorTrust } = require("wallet-simulator-testing/esbuild");
//   await esbuild.build({ entryPoints: ["app.jsx"], bundle: true, plugins: [walletSimulatorTrust()] });
//
// walletSimulatorTrust(options?) returns the plugin. options.keys: the constants' new values
// (default: trustedKeys(), the simulator's keys or the WALLET_SIMULATOR_*_PUBLIC_KEY env vars);
// options.quiet: no build-time banner (the bundle still warns in the console where it runs).
// Test and development builds only: never ship a bundle built with it to production.
// No dependency on esbuild itself: the plugin is a plain object.

const fs = require("node:fs/promises");
const { CONSTANTS_FILE, announce, rewriteConstants, trustedKeys } = require("./trust.js");

function walletSimulatorTrust({ keys = trustedKeys(), quiet = false } = {}) {
  return {
    name: "wallet-simulator-trust",
    setup(build) {
      if (!quiet) announce("esbuild plugin");
      build.onLoad({ filter: CONSTANTS_FILE }, async (args) => {
        const source = await fs.readFile(args.path, "utf8");
        const code = rewriteConstants(source, args.path, { keys });
        // null: not a constants file we know; esbuild loads it as usual
        return code === null ? undefined : { contents: code, loader: "js" };
      });
    },
  };
}

module.exports = { walletSimulatorTrust };
