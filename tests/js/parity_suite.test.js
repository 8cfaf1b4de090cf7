// A suite written for the JS helper, run both ways by tests/parity/test_js_helper_both_ways.py: against the
// simulator, and with WALLET_SIMULATOR_UPSTREAM set against an upstream through `parity record`.
const { test, before, after } = require("node:test");
const assert = require("node:assert");
const { Turnkey } = require("@turnkey/sdk-server");
const { startSimulator, simulatorOnly } = require(process.env.HELPER);

let sim;
let api;
before(async () => {
  sim = await startSimulator({ seed: 7 });
  api = new Turnkey({
    apiBaseUrl: sim.url,
    apiPublicKey: sim.credentials.apiPublicKey,
    apiPrivateKey: sim.credentials.apiPrivateKey,
    defaultOrganizationId: sim.credentials.organizationId,
  }).apiClient();
});
after(async () => sim && sim.stop());

test("a wallet through the official client", async () => {
  const made = await api.createWallet({
    walletName: "js-suite",
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }],
  });
  assert.match(made.addresses[0], /^0x/);
  const { wallets } = await api.getWallets();
  assert.ok(wallets.some((w) => w.walletName === "js-suite"));
});

test("whoami", async () => {
  assert.strictEqual((await api.getWhoami()).organizationId, sim.credentials.organizationId);
});

test("the clock", { skip: simulatorOnly("moves the simulated clock") }, async () => {
  await sim.control.advanceClock(30);
});
