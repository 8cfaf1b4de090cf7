"use strict";
// webpack 5 plugin (also Next.js, whose `webpack` config hook takes it): bundles built with it carry
// @turnkey/crypto's constants rewritten to trust the wallet simulator's keys (see trust.js for
// what exactly is replaced and why).
//
//   // webpack.config.js
//   const { WalletSimulatorTrustPlugin } = require("wallet-simulator-testing/webpack");
//   module.exports = { plugins: [new WalletSimulatorTrustPlugin()] };
//
//   // next.config.js
//   const { WalletSimulatorTrustPlugin } = require("wallet-simulator-testing/webpack");
//   module.exports = { webpack: (config) => { config.plugins.push(new WalletSimulatorTrustPlugin()); return config; } };
//
// new WalletSimulatorTrustPlugin(options?): options.keys, the constants' new values (default:
// trustedKeys(), the simulator's keys or the WALLET_SIMULATOR_*_PUBLIC_KEY env vars); options.quiet,
// no banner when webpack starts (the bundle still warns in the console where it runs). It adds one
// module rule, a pre-loader (webpack-loader.js) for …/@turnkey/crypto/dist/constants.(m)js.
// Test and development builds only: never ship a bundle built with it to production.
// No dependency on webpack itself.

const path = require("node:path");
const { CONSTANTS_FILE, announce, trustedKeys } = require("./trust.js");

const LOADER = path.join(__dirname, "webpack-loader.js");

class WalletSimulatorTrustPlugin {
  constructor({ keys = trustedKeys(), quiet = false } = {}) {
    this.keys = keys;
    this.quiet = quiet;
  }

  apply(compiler) {
    compiler.options.module.rules.push({
      test: CONSTANTS_FILE,
      enforce: "pre",
      use: [{ loader: LOADER, options: { keys: this.keys } }],
    });
    // Next.js runs one compiler per target (server, client, edge): one banner per process is enough
    if (!this.quiet && !globalThis[Symbol.for("wallet-simulator-testing.trust.announced")]) {
      announce("webpack plugin");
    }
  }
}

module.exports = { WalletSimulatorTrustPlugin };
