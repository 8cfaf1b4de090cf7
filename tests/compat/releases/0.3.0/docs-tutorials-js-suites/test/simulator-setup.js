module.exports = require("wallet-simulator-testing").createGlobalSetup({ seed: 1 });
