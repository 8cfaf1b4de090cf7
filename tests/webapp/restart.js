// Keeps one kit page (src/kit.jsx) and its virtual authenticator open while a test stops and starts
// the simulator under it (tests/test_data_dir_browser.py): the passkey lives in the browser, as a
// developer's does. One command a line on stdin, one JSON line on stdout for each ({ok, ...} or
// {ok: false, error, page}); stdin closed: the browser closes.
//   signup   sign up with a passkey in the kit's modal, make a wallet, log out
//   login    reload the page, log in with the same passkey, list the wallets, log out
//   refused  reload the page, log in with the same passkey: the kit reports an error
// Usage: node restart.js '{"page": "http://localhost:PORT/kit.html?url=...", "chromium": PATH, "stepMs": N}'
"use strict";
const path = require("node:path");
const readline = require("node:readline");

const { ROOT, MODULES, CHROMIUM_ARGS, run } = require("./harness.js");
const { addVirtualAuthenticator } = require(path.join(ROOT, "js", "lib", "helper", "playwright.js"));
const { kitReady, authCount, errorCount, authenticated, failed, logout, passkeyButton } = require("./kit_steps.js");

const input = JSON.parse(process.argv[2]);

async function wallets(tab) {
  return tab.evaluate(async () => (await window.kit.fetchWallets()).map((w) => ({ walletId: w.walletId, walletName: w.walletName })));
}

async function reloaded(tab) {
  await tab.reload();
  await kitReady(tab);
}

const commands = {
  async signup(tab, authenticator) {
    const before = await authCount(tab);
    await passkeyButton(tab, "Sign up with passkey");
    const auth = await authenticated(tab, before);
    const walletId = await tab.evaluate(() => window.kit.createWallet({ walletName: "kept wallet", accounts: ["ADDRESS_FORMAT_ETHEREUM"] }));
    const listed = await wallets(tab);
    await logout(tab);
    return { auth, walletId, wallets: listed, credentialIds: (await authenticator.credentials()).map((c) => c.credentialId) };
  },
  async login(tab, authenticator) {
    await reloaded(tab);
    const before = await authCount(tab);
    await passkeyButton(tab, "Log in with passkey");
    const auth = await authenticated(tab, before);
    const listed = await wallets(tab);
    await logout(tab);
    return { auth, wallets: listed, credentialIds: (await authenticator.credentials()).map((c) => c.credentialId) };
  },
  async refused(tab) {
    await reloaded(tab);
    const before = await authCount(tab);
    const errors = await errorCount(tab);
    await passkeyButton(tab, "Log in with passkey");
    const error = await failed(tab, errors);
    return { error, authenticated: (await authCount(tab)) > before, auth: await tab.getAttribute("#state", "data-auth") };
  },
};

async function answer(tab, authenticator, line) {
  try {
    return { ok: true, ...(await commands[line.trim()](tab, authenticator)) };
  } catch (error) {
    const page = await tab.evaluate(() => ({ text: document.body.innerText.slice(0, 600), events: window.events || [] }))
      .catch(() => null);
    return { ok: false, error: String(error.stack || error).slice(0, 2000), page };
  }
}

run(async () => {
  const { chromium } = require(path.join(MODULES, "playwright-core"));
  const browser = await chromium.launch({ executablePath: input.chromium, args: CHROMIUM_ARGS, headless: true,
                                          timeout: input.stepMs });
  try {
    const tab = await (await browser.newContext()).newPage();
    tab.setDefaultTimeout(input.stepMs);
    const authenticator = await addVirtualAuthenticator(tab);
    await tab.goto(input.page);
    await kitReady(tab);
    process.stdout.write(JSON.stringify({ ok: true, ready: true }) + "\n");
    for await (const line of readline.createInterface({ input: process.stdin })) {
      if (line.trim()) process.stdout.write(JSON.stringify(await answer(tab, authenticator, line)) + "\n");
    }
  } finally {
    await browser.close();
  }
});
