module.exports = require("wallet-simulator-testing").globalTeardown;
