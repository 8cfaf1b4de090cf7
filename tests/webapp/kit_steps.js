// The steps a test takes on the kit's page (src/kit.jsx), shared by drive.js (every flow in one run)
// and restart.js (one page kept open while the simulator restarts). Each waits for a condition under
// the page's default timeout (the caller sets it from tests/support.py's BROWSER_STEP_SECONDS).
"use strict";

async function kitReady(tab) {
  await tab.waitForSelector('#state[data-client="ready"]');
}

async function authCount(tab) {
  return tab.evaluate(() => window.events.filter((e) => e.type === "auth").length);
}

async function errorCount(tab) {
  return tab.evaluate(() => window.events.filter((e) => e.type === "error").length);
}

async function authenticated(tab, count) {
  // one more "auth" event than before, and the kit says so
  await tab.waitForFunction((n) => window.events.filter((e) => e.type === "auth").length > n, count);
  await tab.waitForSelector('#state[data-auth="authenticated"]');
  return tab.evaluate(() => window.events.filter((e) => e.type === "auth").pop());
}

/** Wait for one more onError than `count` (the kit's modal shows a failure too); the last error. */
async function failed(tab, count) {
  await tab.waitForFunction((n) => window.events.filter((e) => e.type === "error").length > n, count);
  return tab.evaluate(() => window.events.filter((e) => e.type === "error").pop());
}

async function logout(tab) {
  await tab.click("#logout");
  await tab.waitForSelector('#state[data-auth="unauthenticated"]');
}

/** Open the kit's modal and press its passkey button ("Sign up with passkey" or "Log in with passkey"). */
async function passkeyButton(tab, name) {
  await tab.click("#login");
  await tab.getByRole("button", { name }).click();
}

module.exports = { kitReady, authCount, errorCount, authenticated, failed, logout, passkeyButton };
