// A jest project whose test opens a simulator export bundle with @turnkey/crypto, unmodified.
const path = require("node:path");
const { withSimulatorTrust } = require(path.join(__dirname, "..", "..", "..", "..", "js", "lib", "trust", "jest.js"));

module.exports = process.env.WITHOUT_TRUST ? { testEnvironment: "node" } : withSimulatorTrust({ testEnvironment: "node" });
