const { test, before, after, beforeEach } = require("node:test");
const assert = require("node:assert/strict");
const { Turnkey } = require("@turnkey/sdk-server");
const { startSimulator } = require("wallet-simulator-testing");

let sim;
before(async () => { sim = await startSimulator({ scenarios: ["two_of_three_quorum"], seed: 7 }); });
after(() => sim.stop());
beforeEach(() => sim.reset());

test("a root user's wallet waits for Bob", async () => {
  const api = new Turnkey({ apiBaseUrl: sim.url, apiPublicKey: sim.credentials.apiPublicKey,
    apiPrivateKey: sim.credentials.apiPrivateKey, defaultOrganizationId: sim.credentials.organizationId,
    activityPoller: { intervalMs: 50 } }).apiClient();
  const { activity } = await api.createWallet({ walletName: "shared", accounts: [] });
  assert.equal(activity.status, "ACTIVITY_STATUS_CONSENSUS_NEEDED");
  assert.equal((await sim.control.approve(activity.id, "Bob")).status, "ACTIVITY_STATUS_COMPLETED");
  await sim.control.assertCalled("create_wallet", { walletName: "shared" }, { times: 1 });
});
