"use strict";
// Playwright's globalSetup (simulatorConfig().globalSetup names this file): starts the simulator on the
// ports simulatorConfig chose, publishes its ready line in $WALLET_SIMULATOR_READY (the workers inherit
// it: the `sim` fixture connects with it) and returns the teardown that stops it after the run.

const { startSimulator, READY_ENV } = require("./index.js");
const { startOptionsFromEnv } = require("./playwright.js");

module.exports = async function globalSetup() {
  const simulator = await startSimulator(startOptionsFromEnv());
  process.env[READY_ENV] = JSON.stringify(simulator.ready);
  return async () => {
    await simulator.stop();
  };
};
