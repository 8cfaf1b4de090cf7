// Drives the simulator's export, import and auth frames in headless Chromium (playwright-core)
// through @turnkey/sdk-browser's iframeClient, unmodified (tests/frames/src/page.js), the way an
// app does: the auth frame logs in with an e-mail auth credential bundle and stamps every request;
// export and import frames are opened with the ready line's URLs. Reports what each flow saw;
// tests/frames/test_frames_browser.py asserts on the report.
// Usage: node drive.js '{"page": "http://localhost:PORT/page.html", "chromium": "/usr/bin/chromium",
//   "ready": <serve's ready line>}'
"use strict";
const crypto = require("node:crypto");
const path = require("node:path");

const { ROOT, MODULES, runFlows, run } = require(path.join(__dirname, "..", "webapp", "harness.js"));
const { hashMessage, verifyMessage } = require(path.join(MODULES, "viem"));
const accounts = require(path.join(MODULES, "viem", "_cjs", "accounts", "index.js"));
const bs58 = (({ default: d, ...named }) => d || named)(require(path.join(MODULES, "bs58"))); // v5/v6: a default export
const { Turnkey } = require(path.join(MODULES, "@turnkey", "sdk-server"));
const { ControlClient } = require(path.join(ROOT, "js", "lib", "helper", "index.js"));
const { waitForOtp } = require(path.join(ROOT, "js", "lib", "helper", "playwright.js"));

const input = JSON.parse(process.argv[2]);
const ready = input.ready;
const STEP_MS = input.stepMs; // a bound on each awaited condition (tests/support.py)
const ETH = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" };
const SOL = { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" };

const parent = new Turnkey({ apiBaseUrl: ready.url, apiPublicKey: ready.apiPublicKey, apiPrivateKey: ready.apiPrivateKey,
                             defaultOrganizationId: ready.organizationId }).apiClient();
const control = new ControlClient(ready.url);

/** A page with sdk-browser; helpers bound to it. */
function helpers(tab, organizationId) {
  const open = (name, kind) =>
    tab.evaluate(([n, options]) => window.frameApp.open(n, options),
      [name, { iframeUrl: ready[`${kind}IframeUrl`], apiBaseUrl: ready.url, organizationId }]);
  const call = async (name, method, ...args) => tab.evaluate(([n, m, a]) => window.frameApp.call(n, m, ...a), [name, method, args]);
  const ok = async (name, method, ...args) => {
    const outcome = await call(name, method, ...args);
    if ("error" in outcome) throw new Error(`${name}.${method}: ${outcome.error}`);
    return outcome.value;
  };
  const frame = (name) => tab.frameLocator(`#frame-${name}`);
  const shown = async (name, selector) => (await frame(name).locator(selector).innerText()).trim();
  return { open, call, ok, frame, shown };
}

/** A sub-organization whose root user logs in by e-mail auth into the auth frame. */
async function emailLogin(h, subOrg, email, frameName) {
  const embedded = await h.open(frameName, "auth");
  const before = (await control.outbox(email)).length;
  await parent.emailAuth({ organizationId: subOrg, email, targetPublicKey: embedded,
                           emailCustomization: { appName: "frames test" } });
  const sent = await control.outbox(email);
  if (sent.length <= before) throw new Error("email_auth sent nothing");
  const bundle = sent[sent.length - 1].credentialBundle;
  const injected = await h.ok(frameName, "injectCredentialBundle", bundle);
  return { embedded, bundle, injected };
}

async function newSubOrg(email) {
  const made = await parent.createSubOrganization({
    subOrganizationName: `frames ${email}`,
    rootUsers: [{ userName: "frames user", userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [] }],
    rootQuorumThreshold: 1,
  });
  return { subOrg: made.subOrganizationId, userId: made.rootUserIds[0] };
}

async function signedBy(h, address, message) {
  const signed = await h.ok("auth", "signRawPayload", { signWith: address, payload: hashMessage(message),
                                                        encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" });
  const v = (Number.parseInt(signed.v, 16) % 27) + 27;
  const signature = `0x${signed.r.padStart(64, "0")}${signed.s.padStart(64, "0")}${v.toString(16)}`;
  return verifyMessage({ address, message, signature });
}

/** The Ed25519 public key of a 32-byte seed (Node's crypto, independent of the frame's WebCrypto). */
function ed25519Public(seed) {
  const pkcs8 = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  const jwk = crypto.createPublicKey(crypto.createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" })).export({ format: "jwk" });
  return Buffer.from(jwk.x, "base64url");
}

/** Another signer's key (uncompressed hex), as a bundle from the production enclave would carry. */
function someP256Key() {
  const jwk = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ format: "jwk" });
  return "04" + Buffer.from(jwk.x, "base64url").toString("hex") + Buffer.from(jwk.y, "base64url").toString("hex");
}

async function inPage(browser, body) {
  const context = await browser.newContext();
  const tab = await context.newPage();
  tab.setDefaultTimeout(STEP_MS);
  tab.console = [];
  tab.on("console", (m) => { if (m.type() === "error") tab.console.push(m.text()); });
  tab.on("pageerror", (e) => tab.console.push(`pageerror: ${e.message}`));
  try {
    await tab.goto(input.page);
    return await body(tab);
  } catch (error) {
    error.page = { console: tab.console.slice(-8) };
    throw error;
  } finally {
    await context.close();
  }
}

const flows = {
  /** Log in through the auth frame, then export and import through their frames, all stamped by the auth frame. */
  async sdkBrowser(browser) {
    const email = "frames@example.com";
    const { subOrg, userId } = await newSubOrg(email);
    return inPage(browser, async (tab) => {
      const h = helpers(tab, subOrg);
      const seen = { subOrg, userId };
      const login = await emailLogin(h, subOrg, email, "auth");
      seen.login = { injected: login.injected, embedded: login.embedded,
                     whoami: await h.ok("auth", "getWhoami", { organizationId: subOrg }),
                     status: await h.shown("auth", "#status") };

      // export a wallet: the mnemonic the frame shows derives the wallet's address
      const wallet = await h.ok("auth", "createWallet", { walletName: "frames wallet", accounts: [ETH, SOL] });
      const [ethAddress, solAddress] = wallet.addresses;
      let target = await h.open("export-wallet", "export");
      const walletBundle = (await h.ok("auth", "exportWallet", { walletId: wallet.walletId, targetPublicKey: target })).exportBundle;
      const injectedWallet = await h.ok("export-wallet", "injectWalletExportBundle", walletBundle, subOrg);
      const mnemonic = await h.shown("export-wallet", "#key-div");
      seen.exportWallet = { injected: injectedWallet, address: ethAddress, words: mnemonic.split(" ").length,
                            derived: accounts.mnemonicToAccount(mnemonic).address };

      // export a wallet account (hex) and a Solana account (base58 keypair)
      target = await h.open("export-account", "export");
      const accountBundle = (await h.ok("auth", "exportWalletAccount", { address: ethAddress, targetPublicKey: target })).exportBundle;
      await h.ok("export-account", "injectKeyExportBundle", accountBundle, subOrg, "HEXADECIMAL");
      const accountKey = await h.shown("export-account", "#key-div");
      seen.exportAccount = { address: ethAddress, key0x: accountKey.startsWith("0x"),
                             derived: accounts.privateKeyToAccount(accountKey).address };
      target = await h.open("export-solana", "export");
      const solBundle = (await h.ok("auth", "exportWalletAccount", { address: solAddress, targetPublicKey: target })).exportBundle;
      await h.ok("export-solana", "injectKeyExportBundle", solBundle, subOrg, "SOLANA");
      const keypair = bs58.decode(await h.shown("export-solana", "#key-div"));
      seen.exportSolana = { address: solAddress, length: keypair.length, publicHalf: bs58.encode(keypair.slice(32)) };

      // export a private key
      const made = await h.ok("auth", "createPrivateKeys", { privateKeys: [{ privateKeyName: "frames key", curve: "CURVE_SECP256K1",
                                                                             addressFormats: ["ADDRESS_FORMAT_ETHEREUM"], privateKeyTags: [] }] });
      const { privateKeyId, addresses } = made.privateKeys[0];
      target = await h.open("export-key", "export");
      const keyBundle = (await h.ok("auth", "exportPrivateKey", { privateKeyId, targetPublicKey: target })).exportBundle;
      await h.ok("export-key", "injectKeyExportBundle", keyBundle, subOrg, "HEXADECIMAL");
      const keyHex = await h.shown("export-key", "#key-div");
      seen.exportKey = { address: addresses[0].address, hex: keyHex, derived: accounts.privateKeyToAccount(keyHex).address };
      // the same key as Bitcoin WIF (mainnet)
      target = await h.open("export-wif", "export");
      const wifBundle = (await h.ok("auth", "exportPrivateKey", { privateKeyId, targetPublicKey: target })).exportBundle;
      await h.ok("export-wif", "injectKeyExportBundle", wifBundle, subOrg, "BITCOIN_MAINNET_WIF");
      seen.exportKey.wif = await h.shown("export-wif", "#key-div");

      // import a mnemonic typed into the frame; the imported wallet signs
      const words = accounts.generateMnemonic(accounts.english);
      await h.open("import-wallet", "import");
      const importBundle = (await h.ok("auth", "initImportWallet", { userId })).importBundle;
      const importInjected = await h.ok("import-wallet", "injectImportBundle", importBundle, subOrg, userId);
      await h.frame("import-wallet").locator("#plaintext").pressSequentially(words, { delay: 0 });
      const sealedWallet = await h.ok("import-wallet", "extractWalletEncryptedBundle");
      const imported = await h.ok("auth", "importWallet", { userId, walletName: "imported in a frame", encryptedBundle: sealedWallet, accounts: [ETH] });
      const importedAddress = imported.addresses[0];
      seen.importWallet = { injected: importInjected, sealed: Object.keys(JSON.parse(sealedWallet)).sort(),
                            address: importedAddress, derived: accounts.mnemonicToAccount(words).address,
                            verified: await signedBy(h, importedAddress, "signed by a wallet imported through the frame") };

      // import a private key pasted into the frame; it signs
      const privateKey = accounts.generatePrivateKey();
      await h.open("import-key", "import");
      const keyImportBundle = (await h.ok("auth", "initImportPrivateKey", { userId })).importBundle;
      await h.ok("import-key", "injectImportBundle", keyImportBundle, subOrg, userId);
      await h.frame("import-key").locator("#plaintext").fill(privateKey);
      const sealedKey = await h.ok("import-key", "extractKeyEncryptedBundle", "HEXADECIMAL");
      const importedKey = await h.ok("auth", "importPrivateKey", { userId, privateKeyName: "imported key", encryptedBundle: sealedKey,
                                                                   curve: "CURVE_SECP256K1", addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] });
      const keyAddress = importedKey.addresses[0].address;
      seen.importKey = { address: keyAddress, derived: accounts.privateKeyToAccount(privateKey).address,
                         verified: await signedBy(h, keyAddress, "signed by a key imported through the frame") };

      // import a Solana keypair (base58, as Phantom shows it)
      const seed = crypto.randomBytes(32);
      const solPublic = ed25519Public(seed);
      await h.open("import-solana", "import");
      await h.ok("import-solana", "injectImportBundle", (await h.ok("auth", "initImportPrivateKey", { userId })).importBundle, subOrg, userId);
      await h.frame("import-solana").locator("#plaintext").fill(bs58.encode(Buffer.concat([seed, solPublic])));
      const sealedSol = await h.ok("import-solana", "extractKeyEncryptedBundle", "SOLANA");
      const importedSol = await h.ok("auth", "importPrivateKey", { userId, privateKeyName: "imported solana key", encryptedBundle: sealedSol,
                                                                   curve: "CURVE_ED25519", addressFormats: ["ADDRESS_FORMAT_SOLANA"] });
      seen.importSolana = { address: importedSol.addresses[0].address, expected: bs58.encode(solPublic) };
      seen.console = tab.console;
      return seen;
    });
  },

  /** Each refusal: the SDK's promise rejects with the frame's message, and the frame shows it. */
  async refusals(browser) {
    const email = "frames-refusals@example.com";
    const { subOrg, userId } = await newSubOrg(email);
    return inPage(browser, async (tab) => {
      const h = helpers(tab, subOrg);
      const seen = {};
      const refused = async (name, method, ...args) => {
        const outcome = await h.call(name, method, ...args);
        return { error: outcome.error || null, value: outcome.value, shown: await h.shown(name, "#frame-error").catch(() => null) };
      };

      // the auth frame: stamping before any credential; a credential sealed to another frame's key
      seen.authEmptyKey = await h.open("auth-empty", "auth");
      seen.stampWithoutCredential = await refused("auth-empty", "getWhoami", { organizationId: subOrg });
      const login = await emailLogin(h, subOrg, email, "auth");
      seen.credentialForAnotherKey = await refused("auth-empty", "injectCredentialBundle", login.bundle);
      // the embedded key's own messages (iframe-stamper's getEmbeddedPublicKey, clearEmbeddedKey, initEmbeddedKey)
      const keyLifecycle = async (name, announced) => ({
        announced: (await h.ok(name, "getEmbeddedPublicKey")) === announced,
        cleared: await h.ok(name, "clearEmbeddedKey"),
        afterClear: await h.ok(name, "getEmbeddedPublicKey"),
        renewed: await h.ok(name, "initEmbeddedKey"),
        stillThere: await h.ok(name, "getEmbeddedPublicKey"),
      });
      const spareExport = await h.open("export-spare", "export");
      seen.embeddedKeys = { auth: await keyLifecycle("auth-empty", seen.authEmptyKey), export: await keyLifecycle("export-spare", spareExport) };

      // export: another organization, a bundle sealed to another key, a tampered signature, another signer
      const wallet = await h.ok("auth", "createWallet", { walletName: "refusals", accounts: [ETH] });
      const target = await h.open("export", "export");
      const other = await h.open("export-other", "export");
      const bundle = (await h.ok("auth", "exportWallet", { walletId: wallet.walletId, targetPublicKey: target })).exportBundle;
      seen.wrongOrganization = await refused("export", "injectWalletExportBundle", bundle, ready.organizationId);
      seen.anotherKey = await refused("export-other", "injectWalletExportBundle", bundle, subOrg);
      const parsed = JSON.parse(bundle);
      const tampered = JSON.stringify({ ...parsed, data: parsed.data.slice(0, -2) + (parsed.data.endsWith("7d") ? "20" : "7d") });
      seen.tamperedSignature = await refused("export", "injectWalletExportBundle", tampered, subOrg);
      seen.anotherSigner = await refused("export", "injectWalletExportBundle", JSON.stringify({ ...parsed, enclaveQuorumPublic: someP256Key() }), subOrg);
      // none of that used the frame's key up: the right bundle still opens
      seen.afterRefusals = { injected: (await h.call("export", "injectWalletExportBundle", bundle, subOrg)).value,
                             words: (await h.shown("export", "#key-div")).split(" ").length };

      // import: extract before a bundle, another organization, another user, newlines, words that are not BIP-39
      await h.open("import", "import");
      seen.extractWithoutBundle = await refused("import", "extractWalletEncryptedBundle");
      const importBundle = (await h.ok("auth", "initImportWallet", { userId })).importBundle;
      seen.importWrongOrganization = await refused("import", "injectImportBundle", importBundle, ready.organizationId, userId);
      seen.importWrongUser = await refused("import", "injectImportBundle", importBundle, subOrg, ready.userId);
      await h.ok("import", "injectImportBundle", importBundle, subOrg, userId);
      await h.frame("import").locator("#plaintext").fill("abandon abandon abandon\nabandon");
      seen.newlineMnemonic = await refused("import", "extractWalletEncryptedBundle");
      await h.frame("import").locator("#plaintext").fill("these twelve words are not from the bip thirty nine list at all");
      const sealed = await h.ok("import", "extractWalletEncryptedBundle"); // the frame does not check words, as the real one
      const server = await h.call("auth", "importWallet", { userId, walletName: "not bip-39", encryptedBundle: sealed, accounts: [ETH] });
      seen.notBip39 = { sealed: typeof sealed, serverError: server.error || null };
      await h.open("import-key", "import");
      await h.ok("import-key", "injectImportBundle", (await h.ok("auth", "initImportPrivateKey", { userId })).importBundle, subOrg, userId);
      await h.frame("import-key").locator("#plaintext").fill("0xnot-hex");
      seen.malformedKey = await refused("import-key", "extractKeyEncryptedBundle", "HEXADECIMAL");
      seen.console = tab.console;
      return seen;
    });
  },
};

// The kit ---------------------------------------------------------------------------------------------
const KIT_FRAME = "#turnkey-default-iframe-element-id"; // the id the kit gives its export and import iframes

function kitUrl() {
  const query = new URLSearchParams({ url: ready.url, proxyUrl: ready.proxyUrl, configId: ready.authProxyConfigId,
                                      organizationId: ready.organizationId, exportIframeUrl: ready.exportIframeUrl,
                                      importIframeUrl: ready.importIframeUrl });
  return input.page.replace(/page\.html$/, `kit.html?${query}`);
}

/** E-mail OTP sign-up through the kit's own modal (the code read from the simulator's outbox). */
async function kitSignUp(tab, contact) {
  await tab.waitForSelector('#state[data-client="ready"]');
  await tab.click("#login");
  await tab.fill('[data-testid="email-input"]', contact);
  await tab.press('[data-testid="email-input"]', "Enter");
  const code = await waitForOtp(ready.url, contact, { timeoutMs: STEP_MS });
  await tab.locator('input[maxlength="1"]').first().click();
  await tab.keyboard.type(code);
  await tab.waitForSelector('#state[data-auth="authenticated"]');
}

flows.kit = async function kit(browser) {
  const context = await browser.newContext();
  const tab = await context.newPage();
  tab.setDefaultTimeout(STEP_MS);
  try {
    await tab.goto(kitUrl());
    await kitSignUp(tab, "kit-frames@example.com");
    const seen = {};
    const wallet = await tab.evaluate(async () => {
      const walletId = await window.kit.createWallet({ walletName: "kit export", accounts: ["ADDRESS_FORMAT_ETHEREUM"] });
      const made = (await window.kit.fetchWallets()).find((w) => w.walletId === walletId);
      return { walletId, address: made.accounts[0].address };
    });

    // handleExportWallet: the kit's warning, its button, then the mnemonic inside the simulator's export frame
    await tab.evaluate((walletId) => { window.exporting = window.kit.handleExportWallet({ walletId }); }, wallet.walletId);
    // the kit sends export_wallet with the key its frame announced only once it has set the frame up (its
    // applySettings answered; a click before that exports to no key): wait for the frame to say so
    await tab.frameLocator(KIT_FRAME).locator("body[data-public-key][data-settings-applied]").waitFor({ state: "attached" });
    await tab.click('[data-testid="confirm-export-warning-button"]');
    const keyDiv = tab.frameLocator(KIT_FRAME).locator("#key-div");
    await keyDiv.filter({ hasText: /\w+ \w+/ }).waitFor();
    const mnemonic = (await keyDiv.innerText()).trim();
    seen.exportWallet = { address: wallet.address, words: mnemonic.split(" ").length,
                          derived: accounts.mnemonicToAccount(mnemonic).address,
                          styled: await keyDiv.evaluate((e) => e.style.fontSize) };
    await tab.click('[data-testid="export-done"]');
    await tab.waitForSelector(KIT_FRAME, { state: "detached" });
    // and the modal's leave transition over, as for a person: an import opened while the export modal is
    // still leaving (a loaded machine stretches its 150 ms) never creates its frame, in the kit itself
    await tab.waitForFunction(() => !document.querySelector("#headlessui-portal-root")?.childElementCount);

    // handleImportWallet: words typed into the simulator's import frame, the kit's button, a new wallet that signs
    const words = accounts.generateMnemonic(accounts.english);
    await tab.evaluate(() => {
      window.importing = window.kit.handleImportWallet({ walletName: "kit import", defaultWalletAccounts: ["ADDRESS_FORMAT_ETHEREUM"] });
    });
    await tab.frameLocator(KIT_FRAME).locator("#plaintext").pressSequentially(words, { delay: 0 });
    // likewise its import ("Import iframe client not initialized" before that)
    await tab.frameLocator(KIT_FRAME).locator("body[data-settings-applied]").waitFor({ state: "attached" });
    await tab.click('[data-testid="import-button"]');
    const imported = await tab.evaluate(async (message) => {
      const walletId = await window.importing;
      const made = (await window.kit.fetchWallets()).find((w) => w.walletId === walletId);
      const account = made.accounts[0];
      const signed = await window.kit.signMessage({ walletAccount: account, message, addEthereumPrefix: true });
      return { walletId, address: account.address, signed };
    }, "signed by a wallet the kit imported");
    const { r, s, v } = imported.signed;
    const signature = `0x${r.padStart(64, "0")}${s.padStart(64, "0")}${((Number.parseInt(v, 16) % 27) + 27).toString(16)}`;
    seen.importWallet = { address: imported.address, derived: accounts.mnemonicToAccount(words).address,
                          verified: await verifyMessage({ address: imported.address, message: "signed by a wallet the kit imported", signature }) };
    seen.errors = await tab.evaluate(() => window.events.filter((e) => e.type === "error"));
    return seen;
  } catch (error) {
    error.page = await tab.evaluate(() => ({ text: document.body.innerText.slice(0, 600), events: window.events || [] })).catch(() => null);
    throw error;
  } finally {
    await context.close();
  }
};

run(() => runFlows(flows, { chromiumPath: input.chromium, only: input.flows }));
