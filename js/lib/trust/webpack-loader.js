"use strict";
// The webpack loader WalletSimulatorTrustPlugin (webpack.js) puts in front of @turnkey/crypto's
// constants files: trust.js's rewrite, with the plugin's keys.
const { rewriteConstants, trustedKeys } = require("./trust.js");

module.exports = function walletSimulatorTrustLoader(source) {
  const options = (this.getOptions && this.getOptions()) || {};
  const code = rewriteConstants(String(source), this.resourcePath, { keys: options.keys || trustedKeys() });
  return code === null ? source : code;
};
