"use strict";
// Helpers for browser tests of a web app against the wallet simulator (Playwright, or Puppeteer):
//
//   const { addVirtualAuthenticator, waitForOtp } = require("wallet-simulator-testing/playwright");
//   const authenticator = await addVirtualAuthenticator(page);     // passkeys just work in the page
//   const code = await waitForOtp(sim, "ada@example.com");          // the code the app asked to "send"
//
// addVirtualAuthenticator gives the page Chrome's virtual authenticator (DevTools' WebAuthn domain,
// Chromium only): navigator.credentials.create()/get() then answer at once, with user presence and
// verification, and the simulator verifies the passkey like any other. waitForOtp long-polls the control
// API's outbox (GET /_simulator/outbox?contact=&wait=), as the Python plugin's simulator_outbox.wait_for.
// No dependencies: the page object comes from the test's own playwright (or puppeteer).
//
// With @playwright/test (the runner), the same helpers come as fixtures:
//
//   // playwright.config.ts
//   const sim = simulatorConfig({ args: ["--auth-proxy"] });        // free ports, chosen once per run
//   export default defineConfig({ globalSetup: sim.globalSetup, webServer: { command, env: sim.env("VITE_") } });
//   // a spec
//   const { test, expect } = require("wallet-simulator-testing/playwright");
//   test("login", async ({ page, sim, authenticator, otp }) => { ... });
//
// simulatorConfig runs where Playwright loads the configuration: in the runner and again in every
// worker. The runner picks the ports and writes them to the environment, which the web server, the
// global setup and the workers inherit, so all of them name the same simulator.

const { execFileSync } = require("node:child_process");
const path = require("node:path");
const { ControlClient, READY_ENV, connect } = require("./index.js");

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

// @playwright/test ------------------------------------------------------------------------------
const PORT_ENV = "WALLET_SIMULATOR_PORT";
const PROXY_PORT_ENV = "WALLET_SIMULATOR_PROXY_PORT";
const APP_PORT_ENV = "WALLET_SIMULATOR_APP_PORT";
const OPTIONS_ENV = "WALLET_SIMULATOR_START_OPTIONS";
// The default scenario's organization and the --auth-proxy configuration id: fixed, so an app can be
// configured before the simulator starts (the ready line says the same).
const DEFAULT_ORGANIZATION_ID = "5f1c0c5e-0000-4000-8000-00000000a001";
const DEFAULT_AUTH_PROXY_CONFIG_ID = "5f1c0c5e-0000-4000-8000-00000000c001";

/** `count` free loopback ports, now (synchronously: a configuration file is not async). */
function freePorts(count) {
  const script =
    "const net=require('node:net');const s=[];let n=" + count + ";" +
    "for(let i=0;i<n;i++){const v=net.createServer();s.push(v);v.listen(0,'127.0.0.1',()=>{if(--n===0){" +
    "console.log(JSON.stringify(s.map(x=>x.address().port)));s.forEach(x=>x.close());}});}";
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}

function portFrom(name, fixed, spare) {
  if (fixed !== undefined && fixed !== null) process.env[name] = String(fixed);
  else if (!process.env[name]) process.env[name] = String(spare());
  return Number(process.env[name]);
}

/**
 * The simulator's addresses for a Playwright configuration, known before anything starts: the ports
 * are `options.port` / `proxyPort` / `appPort` when given (fixed, in this one place), else free ones
 * picked once by the runner and inherited by the web server, the global setup and the workers through
 * WALLET_SIMULATOR_PORT, WALLET_SIMULATOR_PROXY_PORT and WALLET_SIMULATOR_APP_PORT. `options` are
 * startSimulator's (scenarios, seed, args...), used by `globalSetup`; `appOrigin` (default
 * http://localhost:<appPort>) is added as a --cors-origin.
 */
function simulatorConfig(options = {}) {
  let spare = null;
  const next = () => (spare = spare && spare.length ? spare : freePorts(3)).shift();
  const port = portFrom(PORT_ENV, options.port, next);
  const proxyPort = portFrom(PROXY_PORT_ENV, options.proxyPort, next);
  const appPort = portFrom(APP_PORT_ENV, options.appPort, next);
  const appOrigin = options.appOrigin || `http://localhost:${appPort}`;
  const { appPort: _a, appOrigin: _o, ...start } = options;
  const args = [...(start.args || [])];
  if (!args.includes("--auth-proxy") && !(start.scenarios || []).includes("web_app")) args.push("--auth-proxy");
  args.push("--cors-origin", appOrigin);
  process.env[OPTIONS_ENV] = JSON.stringify({ ...start, port, proxyPort, args });
  const url = `http://127.0.0.1:${port}`;
  const addresses = {
    url,
    proxyUrl: `http://127.0.0.1:${proxyPort}`,
    organizationId: DEFAULT_ORGANIZATION_ID,
    authProxyConfigId: DEFAULT_AUTH_PROXY_CONFIG_ID,
    exportIframeUrl: `${url}/frames/export`,
    importIframeUrl: `${url}/frames/import`,
    authIframeUrl: `${url}/frames/auth`,
  };
  return {
    port,
    proxyPort,
    appPort,
    appOrigin,
    ...addresses,
    /** The module Playwright's `globalSetup` runs: starts the simulator, stops it at the end. */
    globalSetup: require.resolve("./playwright-global-setup.js"),
    /** The addresses as environment variables for `webServer.env`: PREFIX + TURNKEY_API_BASE_URL, ... */
    env(prefix = "VITE_") {
      return {
        [`${prefix}TURNKEY_API_BASE_URL`]: addresses.url,
        [`${prefix}TURNKEY_AUTH_PROXY_URL`]: addresses.proxyUrl,
        [`${prefix}TURNKEY_AUTH_PROXY_CONFIG_ID`]: addresses.authProxyConfigId,
        [`${prefix}TURNKEY_ORGANIZATION_ID`]: addresses.organizationId,
        [`${prefix}TURNKEY_EXPORT_IFRAME_URL`]: addresses.exportIframeUrl,
        [`${prefix}TURNKEY_IMPORT_IFRAME_URL`]: addresses.importIframeUrl,
        PORT: String(appPort),
      };
    },
  };
}

/** What `globalSetup` starts: startSimulator with simulatorConfig's options (from the environment). */
function startOptionsFromEnv() {
  const text = process.env[OPTIONS_ENV];
  if (!text) throw new Error(`no simulator options: call simulatorConfig() in playwright.config (${OPTIONS_ENV} is not set)`);
  return JSON.parse(text);
}

let fixtures = null;

/** `test` and `expect` of @playwright/test, `test` extended with the simulator's fixtures (built on first use). */
function playwrightFixtures() {
  if (fixtures) return fixtures;
  let playwright;
  try {
    playwright = require("@playwright/test");
  } catch (error) {
    throw new Error(`wallet-simulator-testing/playwright's test needs @playwright/test: npm install --save-dev @playwright/test (${error.message})`);
  }
  const test = playwright.test.extend({
    // one connection per worker: the ready line the global setup published in the environment
    simulator: [
      async ({}, use) => {
        if (!process.env[READY_ENV]) {
          throw new Error(`no simulator: ${READY_ENV} is not set; use simulatorConfig().globalSetup as the config's globalSetup`);
        }
        await use(connect());
      },
      { scope: "worker" },
    ],
    sim: async ({ simulator }, use) => {
      await simulator.reset(); // each test starts from the loaded scenarios
      const control = simulator.control;
      await use({
        ...simulator,
        ready: simulator.ready,
        credentials: simulator.credentials,
        control,
        reset: () => control.reset(),
        outbox: (contact) => control.outbox(contact),
        waitForOtp: (contact, options = {}) => waitForOtp(control, contact, options),
        approve: (activityId, user) => control.approve(activityId, user),
        reject: (activityId, user) => control.reject(activityId, user),
        journal: (op) => control.journal(op),
        advanceClock: (seconds) => control.advanceClock(seconds),
      });
    },
    authenticator: async ({ page }, use) => {
      const authenticator = await addVirtualAuthenticator(page);
      await use(authenticator);
      await authenticator.remove().catch(() => undefined); // the page may be closed already
    },
    otp: async ({ sim }, use) => {
      await use((contact, options) => sim.waitForOtp(contact, options));
    },
  });
  fixtures = { test, expect: playwright.expect };
  return fixtures;
}

module.exports = {
  AUTHENTICATOR_DEFAULTS,
  addVirtualAuthenticator,
  waitForOtp,
  simulatorConfig,
  freePorts,
  startOptionsFromEnv,
  DEFAULT_ORGANIZATION_ID,
  DEFAULT_AUTH_PROXY_CONFIG_ID,
  PORT_ENV,
  PROXY_PORT_ENV,
  APP_PORT_ENV,
};
// `test` and `expect` load @playwright/test only when asked for: the helpers above work without it
for (const name of ["test", "expect"]) {
  Object.defineProperty(module.exports, name, { enumerable: true, get: () => playwrightFixtures()[name] });
}
