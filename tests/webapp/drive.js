// Drives the built web app (build.js) in headless Chromium with playwright-core, against a running
// simulator whose ports the pages call directly. Each flow runs in its own browser context and
// reports what it saw; tests/browser/test_webapp_browser.py asserts on the report.
// Usage: node drive.js '{"app": "http://localhost:PORT", "chromium": "/usr/bin/chromium",
//   "sim": {"url", "proxyUrl", "configId", "organizationId"}, "refused": {...same, for a simulator
//   that does not allow the app's origin}, "flows": ["kitOtp", ...]}'   (default: every flow)
"use strict";
const path = require("node:path");
const crypto = require("node:crypto");

const { ROOT, MODULES, runFlows, run } = require("./harness.js");
const { verifyMessage } = require(path.join(MODULES, "viem"));
const { mnemonicToAccount } = require(path.join(MODULES, "viem", "_cjs", "accounts", "index.js"));
const { ControlClient } = require(path.join(ROOT, "js", "lib", "helper", "index.js"));
const { addVirtualAuthenticator, waitForOtp } = require(path.join(ROOT, "js", "lib", "helper", "playwright.js"));
const { kitReady, authCount, errorCount, authenticated, failed, logout, passkeyButton } = require("./kit_steps.js");

const input = JSON.parse(process.argv[2]);
const STEP_MS = input.stepMs; // a bound on each awaited condition (tests/support.py)

function pageUrl(page, sim) {
  const query = new URLSearchParams({ url: sim.url, proxyUrl: sim.proxyUrl, configId: sim.configId,
                                      organizationId: sim.organizationId });
  return `${input.app}/${page}?${query}`;
}

/**
 * Run `body` with a fresh context (its own storage and IndexedDB) and page; console errors and
 * warnings are kept in tab.console. On failure the error carries what the page showed.
 */
async function inPage(browser, page, sim, body) {
  const context = await browser.newContext();
  const tab = await context.newPage();
  tab.setDefaultTimeout(STEP_MS);
  tab.console = [];
  tab.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") tab.console.push(m.text()); });
  tab.on("pageerror", (e) => tab.console.push(`pageerror: ${e.message}`));
  try {
    return await body(tab, () => tab.goto(pageUrl(page, sim)));
  } catch (error) {
    error.page = await tab.evaluate(() => ({
      text: document.body.innerText.slice(0, 600),
      buttons: [...document.querySelectorAll("button")].map((b) => b.getAttribute("name") || b.innerText).slice(0, 20),
      events: window.events || [],
    })).catch(() => null);
    error.page = { ...error.page, console: tab.console.slice(-5) };
    throw error;
  } finally {
    await context.close();
  }
}

// The kit's page ----------------------------------------------------------------------------------
async function kitOtpLogin(tab, contact) {
  const before = await authCount(tab);
  const seen = (await new ControlClient(input.sim.url).outbox(contact)).length;
  await tab.click("#login");
  await tab.fill('[data-testid="email-input"]', contact);
  await tab.press('[data-testid="email-input"]', "Enter");
  const code = await waitForOtp(input.sim.url, contact, { after: seen, timeoutMs: STEP_MS });
  await tab.locator('input[maxlength="1"]').first().click();
  await tab.keyboard.type(code);
  return authenticated(tab, before);
}

async function kitWalletAndSignature(tab, message) {
  const made = await tab.evaluate(async (text) => {
    const walletId = await window.kit.createWallet({ walletName: "kit wallet", accounts: ["ADDRESS_FORMAT_ETHEREUM"] });
    const wallet = (await window.kit.fetchWallets()).find((w) => w.walletId === walletId);
    const account = wallet.accounts.find((a) => a.addressFormat === "ADDRESS_FORMAT_ETHEREUM");
    const signed = await window.kit.signMessage({ walletAccount: account, message: text, addEthereumPrefix: true });
    return { walletId, address: account.address, signed };
  }, message);
  return { ...made, verified: await verified(made.address, message, made.signed) };
}

async function verified(address, message, { r, s, v }) {
  const signature = `0x${r.padStart(64, "0")}${s.padStart(64, "0")}${(Number.parseInt(v, 16) % 27 + 27).toString(16)}`;
  return verifyMessage({ address, message, signature });
}

const flows = {
  /** E-mail OTP sign-up, then login, through the kit's modal; then a wallet and a signed message. */
  async kitOtp(browser) {
    return inPage(browser, "kit.html", input.sim, async (tab, load) => {
      await load();
      await kitReady(tab);
      const contact = "kit-otp@example.com";
      const signup = await kitOtpLogin(tab, contact);
      await logout(tab);
      const login = await kitOtpLogin(tab, contact);
      const wallet = await kitWalletAndSignature(tab, "signed in a browser");
      return { signup, login, wallet };
    });
  },

  /** Passkey sign-up and login with the virtual authenticator; then the same credential id with another key. */
  async kitPasskey(browser) {
    return inPage(browser, "kit.html", input.sim, async (tab, load) => {
      const authenticator = await addVirtualAuthenticator(tab);
      await load();
      await kitReady(tab);
      let before = await authCount(tab);
      await passkeyButton(tab, "Sign up with passkey");
      const signup = await authenticated(tab, before);
      await logout(tab);
      before = await authCount(tab);
      await passkeyButton(tab, "Log in with passkey");
      const login = await authenticated(tab, before);
      await logout(tab);
      const held = await authenticator.credentials();
      const forged = await forgedLogin(tab, authenticator, held[0]);
      return { signup, login, forged, credentialIds: held.map((c) => c.credentialId), rpId: held[0].rpId };
    });
  },

  /** The plain @turnkey/core page: OTP login, a wallet, a signed message, and export without the iframe. */
  async coreWallet(browser) {
    return inPage(browser, "core.html", input.sim, async (tab, load) => {
      await tab.exposeFunction("codeFor", (contact) => waitForOtp(input.sim.url, contact, { timeoutMs: STEP_MS }));
      await load();
      const proxyConfig = await tab.evaluate(() => window.app.init());
      const login = await tab.evaluate(() => window.app.otpLogin("core-page@example.com", window.codeFor));
      const message = "signed by the plain core page";
      const made = await tab.evaluate((text) => window.app.createAndSign(text), message);
      const exported = await tab.evaluate((walletId) => window.app.exportWallet(walletId), made.walletId);
      const derived = mnemonicToAccount(exported.mnemonic).address;
      return { proxyConfig: !!proxyConfig, login, address: made.address, verified: await verified(made.address, message, made.signature),
               derived, words: exported.mnemonic.split(" ").length,
               trustBanner: tab.console.some((line) => line.includes("wallet-simulator-testing")) };
    });
  },

  /** A simulator that does not allow the app's origin: the page cannot reach it; the allowed one it can. */
  async refusedOrigin(browser) {
    return inPage(browser, "core.html", input.refused, async (tab, load) => {
      await load();
      const probe = (sim) => tab.evaluate(async ({ url, proxyUrl, configId }) => {
        const outcome = {};
        for (const [name, target, headers] of [
          ["main", `${url}/public/v1/query/whoami`, { "X-Stamp": "e30" }],
          ["proxy", `${proxyUrl}/v1/wallet_kit_config`, { "X-Auth-Proxy-Config-Id": configId }],
        ]) {
          try {
            const reply = await fetch(target, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: "{}" });
            outcome[name] = { status: reply.status };
          } catch (error) {
            outcome[name] = { error: `${error.name}: ${error.message}` };
          }
        }
        return outcome;
      }, sim);
      const refused = await probe(input.refused);
      const allowed = await probe(input.sim);
      let sdk;
      try {
        await tab.evaluate(() => window.app.init());
        await tab.evaluate(() => window.app.otpLogin("refused@example.com", async () => "000000"));
        sdk = { ok: true };
      } catch (error) {
        sdk = { error: String(error.message).split("\n")[0] };
      }
      return { refused, allowed, sdk, console: tab.console.filter((line) => /CORS|Access-Control/i.test(line)).slice(0, 3) };
    });
  },
};

/** Log in with a credential that has the registered id and user handle but a key the simulator never saw. */
async function forgedLogin(tab, authenticator, credential) {
  await authenticator.remove();
  const impostor = await addVirtualAuthenticator(tab);
  const { privateKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  await impostor.addCredential({ ...credential, signCount: credential.signCount + 1,
                                 privateKey: privateKey.export({ format: "der", type: "pkcs8" }).toString("base64") });
  const before = await authCount(tab);
  const errors = await errorCount(tab);
  await passkeyButton(tab, "Log in with passkey");
  // the kit reports the refusal through onError (and its modal shows a failure)
  const error = await failed(tab, errors);
  return { error, authenticated: (await authCount(tab)) > before,
           auth: await tab.getAttribute("#state", "data-auth") };
}

// The flows use separate contexts, contacts and users: they run side by side (the kit's OTP step
// alone waits 5 s for a captcha token it will not get, see the docs).
run(() => runFlows(flows, { chromiumPath: input.chromium, only: input.flows }));
