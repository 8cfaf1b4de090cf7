"use strict";
// Helpers for browser tests of a web app against the wallet simulator (Playwright, or Puppeteer):
//
//   const { addVirtualAuthenticator, waitForOtp } = require("wallet-simulator-testing/playwright");
//   const authenticator = await addVirtualAuthenticator(page);     // passkeys just work in the page
//   const code = await waitForOtp(sim, "ada@example.com");          // the code the app asked to "send"
//
// addVirtualAuthenticator gives the page Chrome's virtual authenticator (DevTools' WebAuthn domain,
// Chromium only): navigator.credentials.create()/get() then answer at once, with user presence and
// verification, and the simulator verifies the passkey like any other. waitForOtp polls the control
// API's outbox (GET /_simulator/outbox?contact=), as the Python plugin's simulator_outbox.wait_for does.
// No dependencies: the page object comes from the test's own playwright (or puppeteer).

const { ControlClient } = require("./index.js");

const AUTHENTICATOR_DEFAULTS = Object.freeze({
  protocol: "ctap2",
  transport: "internal",
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
});

async function cdpSession(page) {
  if (page && typeof page.context === "function" && typeof page.context().newCDPSession === "function") {
    return page.context().newCDPSession(page); // Playwright (chromium)
  }
  if (page && typeof page.createCDPSession === "function") return page.createCDPSession(); // Puppeteer
  throw new Error("addVirtualAuthenticator needs a Chromium page from Playwright or Puppeteer");
}

/**
 * Add a virtual authenticator to the page's browser context. `options` are the DevTools
 * VirtualAuthenticatorOptions, over a platform passkey's defaults (ctap2, internal, resident key,
 * user verification). Returns its id, the CDP session, and credentials() / addCredential() / remove().
 */
async function addVirtualAuthenticator(page, options = {}) {
  const session = await cdpSession(page);
  await session.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await session.send("WebAuthn.addVirtualAuthenticator", {
    options: { ...AUTHENTICATOR_DEFAULTS, ...options },
  });
  return {
    authenticatorId,
    session,
    /** The credentials it holds: credentialId, rpId, userHandle (base64), privateKey (PKCS#8, base64), signCount. */
    async credentials() {
      return (await session.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
    },
    /** Put a credential in it (e.g. one with a known private key). */
    async addCredential(credential) {
      await session.send("WebAuthn.addCredential", { authenticatorId, credential });
    },
    async remove() {
      await session.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
    },
  };
}

function controlOf(simulator, token) {
  if (typeof simulator === "string" || simulator instanceof URL) return new ControlClient(String(simulator), { token });
  if (simulator && simulator.control && typeof simulator.control.outbox === "function") return simulator.control;
  if (simulator && typeof simulator.outbox === "function") return simulator; // a ControlClient
  throw new Error("waitForOtp needs a simulator (startSimulator/connect), a ControlClient or the simulator's url");
}

/**
 * The OTP code sent to `contact`: ControlClient.waitForOtp (the first code beyond the `after` already
 * seen, 0 by default, as the Python plugin's wait_for(contact, after=)), waiting 10 s by default:
 * react-wallet-kit waits up to 5 s for a captcha token before it asks for the code, when no
 * Turnstile is configured. `simulator`: what startSimulator()/connect() return, a ControlClient, or
 * the main url (then `token` is the control token, default $WALLET_SIMULATOR_CONTROL_TOKEN).
 */
function waitForOtp(simulator, contact, { timeoutMs = 10000, intervalMs, after, token } = {}) {
  return controlOf(simulator, token).waitForOtp(contact, { timeoutMs, intervalMs, after });
}

module.exports = { AUTHENTICATOR_DEFAULTS, addVirtualAuthenticator, waitForOtp };
