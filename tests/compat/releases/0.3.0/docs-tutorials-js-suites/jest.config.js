module.exports = {
  globalSetup: "<rootDir>/test/simulator-setup.js",
  globalTeardown: "<rootDir>/test/simulator-teardown.js",
  testMatch: ["<rootDir>/test/**/*.jest.js"],
};
