// The JS test helper (js/) under node's own test runner, as a TypeScript team's global setup uses it:
// start `wallet-simulator serve` (WALLET_SIMULATOR_COMMAND says how), read the ready line, drive the
// official @turnkey/sdk-server with its credentials, reset per test, and call the control API.
// Run by tests/js_helper/test_downstream_js.py: node --test tests/js/helper.test.js
const { test, describe, before, after, beforeEach } = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { Turnkey } = require("@turnkey/sdk-server");
const helper = require(path.join(__dirname, "..", "..", "js"));

const ETH = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0",
              addressFormat: "ADDRESS_FORMAT_ETHEREUM" };

// An activity waiting for votes is polled numRetries + 1 times before the call returns it: 1 s apart by
// default (4 s per pending call); the simulator answers at once, so a short interval gives the same outcome.
function apiFor(sim) {
  return new Turnkey({ apiBaseUrl: sim.url, apiPublicKey: sim.credentials.apiPublicKey,
                       apiPrivateKey: sim.credentials.apiPrivateKey,
                       defaultOrganizationId: sim.credentials.organizationId,
                       activityPoller: { intervalMs: 20, numRetries: 3 } }).apiClient();
}

describe("global setup, as jest or vitest runs it", () => {
  const provided = {};
  let teardown;
  before(async () => {
    teardown = await helper.createGlobalSetup({ seed: 3 })({ provide: (k, v) => { provided[k] = v; } });
  });
  after(async () => { await teardown(); });
  helper.resetBeforeEach(beforeEach);

  test("publishes the ready line to the tests", () => {
    const sim = helper.connect();
    assert.equal(sim.seed, 3);
    assert.match(sim.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(provided.walletSimulator, JSON.parse(process.env[helper.READY_ENV]));
    assert.equal(sim.credentials.organizationId, "5f1c0c5e-0000-4000-8000-00000000a001");
  });

  test("the official client works with the credentials, and the journal sees it", async () => {
    const sim = helper.connect();
    const made = await apiFor(sim).createWallet({ walletName: "from js", accounts: [ETH] });
    assert.equal(made.activity.status, "ACTIVITY_STATUS_COMPLETED");
    const calls = await sim.control.journal("create_wallet");
    assert.equal(calls.length, 1);
    assert.equal(calls[0].request.parameters.walletName, "from js");
  });

  test("state does not leak between tests (reset before each)", async () => {
    const sim = helper.connect();
    assert.deepEqual((await apiFor(sim).getWallets({})).wallets, []);
    assert.deepEqual(await sim.control.journal("create_wallet"), []);
  });

  test("the control API: clock, snapshots, scenarios by name, votes, explain", async () => {
    const { control } = helper.connect();
    const now = await control.advanceClock(0);
    assert.ok((await control.advanceClock(60)) >= now + 60000);
    assert.equal((await control.state()).format, "wallet-simulator-state/1");
    const snapshot = await control.snapshot();
    await control.restore(snapshot);
    const credentials = await control.loadScenarios(["two_of_three_quorum"]);
    assert.deepEqual(credentials.map((c) => c.userName).filter(Boolean).sort(), ["Bob", "Carol", "Root User"].sort());
    const sim = helper.connect();
    const pending = await apiFor(sim).createWallet({ walletName: "shared", accounts: [] }).catch((e) => e);
    const activityId = pending.activityId || (await control.journal("create_wallet"))[0].outcome.activityId;
    assert.equal((await control.explain(activityId)).status, "ACTIVITY_STATUS_CONSENSUS_NEEDED");
    assert.equal((await control.approve(activityId, "Bob")).status, "ACTIVITY_STATUS_COMPLETED");
    await control.loadScenarios(["default"]);
  });

  test("a refused control call is a ControlError with the server's message", async () => {
    const { control } = helper.connect();
    await assert.rejects(control.restore("snapshot-404"), (error) => {
      assert.ok(error instanceof helper.ControlError);
      assert.equal(error.status, 404);
      assert.match(error.message, /no snapshot snapshot-404/);
      return true;
    });
  });

  test("webhooks and the fake OAuth provider through the control API", async () => {
    const { control } = helper.connect();
    assert.deepEqual(await control.webhookDeliveries(), []);
    const code = await control.oauthAuthorize("subject-1", { email: "a@example.com" });
    assert.ok(code.length > 8);
    const token = await control.oauthIdToken("subject-1", "my-client", { nonce: "n" });
    assert.equal(token.split(".").length, 3);
    assert.match((await control.keys()).notarizer, /^04[0-9a-f]{128}$/);
  });

  test("a webhook receiver registers itself, gets each event, and verifyWebhook checks it", async () => {
    const sim = helper.connect();
    const receiver = await helper.startWebhookReceiver(sim);
    try {
      const made = await apiFor(sim).createWallet({ walletName: "hooked", accounts: [] });
      const [delivery] = await receiver.waitFor(1, { timeoutMs: 5000 });
      assert.equal(delivery.json.id, made.activity.id);
      assert.equal(receiver.verify(delivery), true);
      assert.equal(helper.verifyWebhook(delivery.headers, delivery.rawBody), true);
      const tampered = Buffer.from(delivery.rawBody.toString().replace("hooked", "hacked"));
      assert.equal(helper.verifyWebhook(delivery.headers, tampered), false);
      const served = await (await fetch(`${sim.url}/public/v1/discovery/webhooks/jwks`)).json();
      assert.deepEqual(served, helper.WEBHOOK_JWKS);
    } finally {
      await receiver.close();
    }
  });

  test("waitForOtp returns the code the auth proxy sent", async () => {
    const { control, credentials } = helper.connect();
    await assert.rejects(control.waitForOtp("nobody@example.com", { timeoutMs: 50 }), /no OTP sent to nobody@example.com/);
    const api = apiFor(helper.connect());
    await api.initOtp({ otpType: "OTP_TYPE_EMAIL", contact: "otp@example.com", appName: "app" });
    const code = await control.waitForOtp("otp@example.com");
    assert.equal(code, (await control.outbox("otp@example.com"))[0].code);
    assert.ok(credentials.organizationId);
  });

  test("journal assertions name what was called instead", async () => {
    const sim = helper.connect();
    await apiFor(sim).createWallet({ walletName: "journaled", accounts: [] });
    assert.equal((await sim.control.assertCalled("create_wallet", { walletName: "journaled" }, { times: 1 })).length, 1);
    await sim.control.assertNotCalled("create_wallet", { walletName: "other" });
    await assert.rejects(sim.control.assertCalled("create_wallet", { walletName: "other" }), (error) => {
      assert.equal(error.name, "AssertionError");
      assert.match(error.message, /expected create_wallet\(\{"walletName":"other"\}\) at least once, found 0/);
      assert.match(error.message, /"walletName":"journaled"/);
      return true;
    });
  });

  test("faults: add, list with counts, remove, clear; withFault removes its fault even when the test throws", async () => {
    const sim = helper.connect();
    const { control } = sim;
    const added = await control.addFault("unavailable", { match: { operation: "create_wallet" }, times: 1 });
    assert.equal(added.name, "fault-1");
    await control.addFault("latency", { name: "late", ms: 1, match: { operation: "whoami" } });
    await assert.rejects(apiFor(sim).createWallet({ walletName: "refused", accounts: [] }), /Turnkey error 13: internal server error/);
    const listed = Object.fromEntries((await control.faults()).map((f) => [f.name, f]));
    assert.equal(listed["fault-1"].hits, 1);
    assert.equal(listed["fault-1"].requests[0].operation, "create_wallet");
    await control.removeFault("fault-1");
    assert.deepEqual((await control.faults()).map((f) => f.name), ["late"]);
    await control.clearFaults();
    assert.deepEqual(await control.faults(), []);
    await assert.rejects(
      control.withFault("reset", { match: { operation: "create_wallet" } }, async () => {
        await apiFor(sim).createWallet({ walletName: "reset", accounts: [] });
      }),
      (error) => error.message === "fetch failed",
    );
    assert.deepEqual(await control.faults(), []);
    assert.equal((await apiFor(sim).createWallet({ walletName: "after", accounts: [] })).activity.status, "ACTIVITY_STATUS_COMPLETED");
  });

  test("an operation name that names nothing is refused naming the closest; a client's method name is its operation", async () => {
    const sim = helper.connect();
    const { control } = sim;
    await assert.rejects(control.addFault("reset", { match: { operation: "no_such_operation" } }), (error) => {
      assert.equal(error.name, "ControlError");
      assert.equal(error.status, 400);
      assert.match(error.message, /no operation is named 'no_such_operation'.*the closest: /);
      return true;
    });
    assert.deepEqual(await control.faults(), []);
    const added = await control.addFault("unavailable", { match: { operation: "getWallets" }, times: 1 });
    assert.equal(added.match.operation, "list_wallets");
    await assert.rejects(apiFor(sim).getWallets({}), /Turnkey error 13/);
    assert.equal((await control.faults())[0].hits, 1);
    await control.clearFaults();
    assert.equal((await control.assertCalled("getWallets", {}, { times: 1 }))[0].op, "list_wallets");
    await assert.rejects(control.assertNotCalled("list_walets"), /the closest: list_wallets/);
  });
});

test("startSimulator says why it could not start", async () => {
  await assert.rejects(helper.startSimulator({ scenarios: ["no_such_scenario"], timeoutMs: 30000 }),
                       /did not start: it exited with status 2[\s\S]*no_such_scenario/);
  await assert.rejects(helper.startSimulator({ command: ["/nonexistent/wallet-simulator"] }), /cannot run/);
});

// A simulator of another release than the helper's: the helper warns once it has read the ready line.
async function warningsOfAStart(command) {
  const seen = [];
  const listener = (warning) => seen.push(warning);
  process.on("warning", listener);
  try {
    const sim = await helper.startSimulator({ command, timeoutMs: 30000 });
    await sim.stop();
    await new Promise((resolve) => setImmediate(resolve)); // emitWarning delivers on the next tick
    return { sim, seen: seen.filter((w) => w.code === "WALLET_SIMULATOR_VERSION") };
  } finally {
    process.off("warning", listener);
  }
}

test("startSimulator warns when the simulator is another release, and not when it is its own", async () => {
  const [python] = JSON.parse(process.env.WALLET_SIMULATOR_COMMAND || '["python3"]');
  const older = "import sys, simulator; simulator.__version__ = '0.2.9'; from simulator.cli import main; sys.exit(main())";
  const other = await warningsOfAStart([python, "-c", older]);
  assert.equal(other.sim.ready.version, "0.2.9");
  assert.equal(other.seen.length, 1);
  assert.match(other.seen[0].message, new RegExp(`started wallet-simulator 0\\.2\\.9, but wallet-simulator-testing is ${helper.VERSION.replace(/\./g, "\\.")}`));
  const own = await warningsOfAStart(undefined);
  assert.equal(own.sim.ready.version, helper.VERSION);
  assert.deepEqual(own.seen, []);
});

test("connect without a simulator names the variable", () => {
  const saved = process.env[helper.READY_ENV];
  delete process.env[helper.READY_ENV];
  try {
    assert.throws(() => helper.connect(), /WALLET_SIMULATOR_READY is not set/);
  } finally {
    if (saved !== undefined) process.env[helper.READY_ENV] = saved;
  }
});

test("dataDir keeps the state across a restart", async () => {
  const fs = require("node:fs");
  const os = require("node:os");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "simulator-data-"));
  try {
    const first = await helper.startSimulator({ seed: 9, dataDir, timeoutMs: 30000 });
    let walletId;
    try {
      ({ walletId } = await apiFor(first).createWallet({ walletName: "kept", accounts: [ETH] }));
    } finally {
      await first.stop();
    }
    const second = await helper.startSimulator({ dataDir, timeoutMs: 30000 });
    try {
      const { wallets } = await apiFor(second).getWallets({});
      assert.ok(wallets.some((w) => w.walletId === walletId && w.walletName === "kept"));
    } finally {
      await second.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
