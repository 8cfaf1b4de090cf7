"use strict";
// Vite plugin: builds and the dev server serve @turnkey/crypto with its constants rewritten to
// trust the wallet simulator's keys (see trust.js for what exactly is replaced and why).
//
//   // vite.config.js
//   import { walletSimulatorTrust } from "wallet-simulator-testing/vite";
//   export default { plugins: [walletSimulatorTrust()] };
//
// walletSimulatorTrust(options?) returns the plugin. options.keys: the constants' new values
// (default: trustedKeys(), the simulator's keys or the WALLET_SIMULATOR_*_PUBLIC_KEY env vars);
// options.quiet: no banner when Vite starts (the bundle still warns in the console where it runs).
// `transform` rewrites the constants files in `vite build` and for modules Vite serves as they are;
// in `vite dev` dependencies are pre-bundled first, so the plugin also hooks the pre-bundler
// (optimizeDeps.rolldownOptions.plugins on Vite >= 8, optimizeDeps.esbuildOptions.plugins before).
// Test and development builds only: never ship a bundle built with it to production.
// No dependency on vite itself: the plugin is a plain object.

const { announce, isConstantsFile, rewriteConstants, trustedKeys } = require("./trust.js");
const { walletSimulatorTrust: esbuildPlugin } = require("./esbuild.js");

function walletSimulatorTrust({ keys = trustedKeys(), quiet = false } = {}) {
  const transform = (code, id) => {
    if (!isConstantsFile(id)) return null;
    const rewritten = rewriteConstants(code, id, { keys });
    return rewritten === null ? null : { code: rewritten, map: null };
  };
  return {
    name: "wallet-simulator-trust",
    enforce: "pre",
    config() {
      // `this.meta.rolldownVersion` is set by Vite 8 (Rolldown); older Vite pre-bundles with esbuild
      const rolldown = Boolean(this && this.meta && this.meta.rolldownVersion);
      const prebundle = rolldown
        ? { rolldownOptions: { plugins: [{ name: "wallet-simulator-trust:deps", transform }] } }
        : { esbuildOptions: { plugins: [esbuildPlugin({ keys, quiet: true })] } };
      return { optimizeDeps: prebundle };
    },
    configResolved() {
      if (!quiet) announce("vite plugin");
    },
    transform,
  };
}

module.exports = { walletSimulatorTrust };
