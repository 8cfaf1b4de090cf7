"use strict";
// Test helper for suites in JS/TS: start `wallet-simulator serve`, read its one-line JSON ready
// line, hand its credentials to the tests, reset per test and drive the control API (/_simulator).
// No dependencies: node's child_process and global fetch (node >= 18).

const { spawn } = require("node:child_process");
const crypto = require("node:crypto");
const http = require("node:http");
const readline = require("node:readline");

const READY_ENV = "WALLET_SIMULATOR_READY";
const COMMAND_ENV = "WALLET_SIMULATOR_COMMAND";
const SHARED = Symbol.for("wallet-simulator.started");
const OUTBOX_LONG_POLL_MS = 10000; // one long poll of the outbox asks for at most this (the server allows 30 s)
// The simulator's published webhook signing keys (GET /public/v1/discovery/webhooks/jwks); a test
// in tests/test_downstream_js.py keeps this copy equal to the served one.
const WEBHOOK_JWKS = Object.freeze({
  keys: [
    {
      kty: "OKP",
      crv: "Ed25519",
      alg: "EdDSA",
      use: "sig",
      kid: "simulator-webhooks-1",
      x: "R3J5FubqFJaBgbRRHU5sfbRH2SAFTJ4EIUIRRo0InBI",
      turnkey_signature_algorithm: "ed25519",
      turnkey_signature_version: "v1",
    },
  ],
});

class ControlError extends Error {
  constructor(message, status, body) {
    super(message);
    this.name = "ControlError";
    this.status = status;
    this.body = body;
  }
}

/** The control API of a running simulator; method names follow simulator/control_client.py. */
class ControlClient {
  constructor(url, { token = process.env.WALLET_SIMULATOR_CONTROL_TOKEN } = {}) {
    this.url = String(url).replace(/\/+$/, "");
    this.token = token || undefined;
  }

  async call(method, path, body, query) {
    const qs = query ? "?" + new URLSearchParams(query).toString() : "";
    const reply = await fetch(`${this.url}/_simulator${path}${qs}`, {
      method,
      headers: {
        "Content-Type": "application/json",
        ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await reply.text();
    let answer;
    try {
      answer = text ? JSON.parse(text) : {};
    } catch {
      answer = { message: text };
    }
    if (!reply.ok) throw new ControlError(answer.message || `${reply.status} ${reply.statusText}`, reply.status, answer);
    return answer;
  }

  reset() { return this.call("POST", "/reset", {}).then(() => undefined); }
  async loadScenarios(scenarios, { replace = true } = {}) {
    return (await this.call("POST", "/scenarios", { paths: scenarios.map(String), replace })).credentials;
  }
  async snapshot() { return (await this.call("POST", "/snapshots", {})).snapshotId; }
  restore(snapshotId) { return this.call("POST", `/snapshots/${snapshotId}/restore`, {}).then(() => undefined); }
  state() { return this.call("GET", "/state"); }
  importState(state) { return this.call("PUT", "/state", state).then(() => undefined); }
  async journal(op) { return (await this.call("GET", "/journal", undefined, op ? { op } : undefined)).entries; }
  async outbox(contact) {
    return (await this.call("GET", "/outbox", undefined, contact ? { contact } : undefined)).messages;
  }
  explain(activityId) { return this.call("GET", `/activities/${activityId}/explain`); }
  coverage() { return this.call("GET", "/coverage"); }
  keys() { return this.call("GET", "/keys"); }
  async advanceClock(seconds) { return (await this.call("POST", "/clock/advance", { seconds })).nowMs; }
  async approve(activityId, user) {
    return (await this.call("POST", `/activities/${activityId}/approve`, { userId: user })).activity;
  }
  async reject(activityId, user) {
    return (await this.call("POST", `/activities/${activityId}/reject`, { userId: user })).activity;
  }
  configureAuthProxy(organizationId, settings = {}) {
    return this.call("POST", "/auth-proxy", { organizationId, ...settings });
  }
  async oauthAuthorize(subject, options = {}) {
    return (await this.call("POST", "/oauth/authorize", { subject, ...options })).code;
  }
  async oauthIdToken(subject, audience, options = {}) {
    return (await this.call("POST", "/oauth/id-token", { subject, audience, ...options })).idToken;
  }
  async webhookDeliveries() { return (await this.call("GET", "/webhooks/deliveries")).deliveries; }
  async fireWebhook({ activityId = null, url = null, overrides = null } = {}) {
    return (await this.call("POST", "/webhooks/fire", { activityId, url, overrides })).deliveries;
  }
  resendWebhook(eventId) { return this.call("POST", `/webhooks/${eventId}/resend`, {}); }
  webhookChaos(chaos) { return this.call("POST", "/webhooks/chaos", chaos); }
  async drainWebhooks(timeout = 5) { return (await this.call("POST", "/webhooks/drain", { timeout })).pending; }
  setWebhookReceiver(url, organizationId) {
    return this.call("POST", "/webhooks/receiver", { url: url ?? null, organizationId: organizationId ?? null });
  }

  // Transport faults (simulator/faults.py): latency, unavailable, lostAnswer, reset, timeout, slow.
  addFault(kind, spec = {}) { return this.call("POST", "/faults", { kind, ...spec }); }
  async faults() { return (await this.call("GET", "/faults")).faults; }
  removeFault(name) { return this.call("DELETE", `/faults/${encodeURIComponent(name)}`).then(() => undefined); }
  clearFaults() { return this.call("DELETE", "/faults").then(() => undefined); }
  /**
   * Run `fn` with the fault active, and remove it afterwards whatever happens (as Python's
   * `with control.fault(...)`): `await control.withFault("lostAnswer", { match: { operation: "create_wallet" } }, async (fault) => ...)`.
   */
  async withFault(kind, spec, fn) {
    const fault = await this.addFault(kind, spec);
    try {
      return await fn(fault);
    } finally {
      await this.removeFault(fault.name);
    }
  }

  /**
   * The code of the first OTP sent to `contact` beyond the `after` already seen (0: the first ever),
   * with long polls of the outbox (`?wait=`: answered when the code is there); `intervalMs` paces the
   * polls of a server without `?wait=`. As the Python plugin's simulator_outbox.wait_for.
   */
  async waitForOtp(contact, { timeoutMs = 5000, intervalMs = 20, after = 0 } = {}) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // a long poll (GET /outbox?wait=): the server answers as soon as the code is there; a server
      // without ?wait= answers at once, and this loop polls it every intervalMs as before
      const wait = Math.max(0, Math.min(deadline - Date.now(), OUTBOX_LONG_POLL_MS)) / 1000;
      const query = { contact, wait: wait.toFixed(3), after: String(after) };
      const sent = (await this.call("GET", "/outbox", undefined, query)).messages;
      if (sent.length > after) return String(sent[after].code);
      if (Date.now() >= deadline) throw new Error(`no OTP sent to ${contact} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }

  // The journal, with the pytest plugin's assertions (simulator/journal.py): parameters match as a
  // subset of an activity's parameters or a query's body.
  async calls(op, parameters = {}) {
    return (await this.journal(op)).filter((entry) => contains(fieldsOf(entry), parameters));
  }
  async assertCalled(op, parameters = {}, { times } = {}) {
    const found = await this.calls(op, parameters);
    if ((times === undefined && found.length) || (times !== undefined && found.length === times)) return found;
    const expected = times === undefined ? "at least once" : `${times} time(s)`;
    const nearest = (await this.journal()).filter((e) => e.op === op).slice(-5);
    const lines = nearest.map((e) => `  ${e.kind}/${e.op} -> ${e.status}: ${JSON.stringify(fieldsOf(e)).slice(0, 300)}`);
    throw new JournalAssertionError(
      `expected ${op}(${JSON.stringify(parameters)}) ${expected}, found ${found.length}.\n` +
        (lines.length ? `Latest calls of ${op}:\n${lines.join("\n")}` : `No calls of ${op} were made.`),
    );
  }
  async assertNotCalled(op, parameters = {}) {
    await this.assertCalled(op, parameters, { times: 0 });
  }
}

class JournalAssertionError extends Error {
  constructor(message) {
    super(message);
    this.name = "AssertionError";
  }
}

function fieldsOf(entry) {
  const body = entry.request || {};
  if (body && typeof body.parameters === "object" && body.parameters !== null) return body.parameters;
  return typeof body === "object" && body !== null ? body : {};
}

/** Whether `wanted` is a subset of `actual` (objects by key, everything else by equality). */
function contains(actual, wanted) {
  if (wanted && typeof wanted === "object" && !Array.isArray(wanted)) {
    return (
      actual !== null && typeof actual === "object" && !Array.isArray(actual) &&
      Object.entries(wanted).every(([key, value]) => key in actual && contains(actual[key], value))
    );
  }
  return JSON.stringify(actual) === JSON.stringify(wanted);
}

/**
 * Check a webhook delivery's signature as a receiver should: the key named by
 * X-Turnkey-Signature-Key-Id in the JWKS (default: the simulator's published keys), Ed25519 over
 * `v1.ed25519.<key id>.<timestamp>.<event id>.<raw body>`. `rawBody` is the exact bytes received.
 */
function verifyWebhook(headers, rawBody, jwks = WEBHOOK_JWKS) {
  const lower = {};
  for (const [name, value] of Object.entries(headers || {})) lower[name.toLowerCase()] = String(value);
  const keyId = lower["x-turnkey-signature-key-id"] || "";
  const key = (jwks.keys || []).find((k) => k.kid === keyId);
  if (!key || lower["x-turnkey-signature-algorithm"] !== "ed25519") return false;
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(String(rawBody));
  const signed = Buffer.concat([
    Buffer.from(`v1.ed25519.${keyId}.${lower["x-turnkey-timestamp"] || ""}.${lower["x-turnkey-event-id"] || ""}.`),
    body,
  ]);
  const signature = Buffer.from(lower["x-turnkey-signature"] || "", "hex");
  try {
    const publicKey = crypto.createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: key.x }, format: "jwk" });
    return crypto.verify(null, signed, publicKey, signature);
  } catch {
    return false;
  }
}

/**
 * A local HTTP receiver of the simulator's webhook deliveries (the pytest plugin's webhook_receiver):
 * it listens on 127.0.0.1, registers itself as the organization's webhook (default: the ready line's
 * organization) and keeps every request with its raw body. `simulator` is what startSimulator() or
 * connect() returns, or a ControlClient.
 */
async function startWebhookReceiver(simulator = connect(), { organizationId, path = "/hooks", status = 200 } = {}) {
  const control = simulator instanceof ControlClient ? simulator : simulator.control;
  const requests = [];
  const waiters = new Set();
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      let json;
      try {
        json = JSON.parse(rawBody.toString("utf8"));
      } catch {
        json = undefined;
      }
      requests.push({ method: request.method, path: request.url, headers: request.headers, rawBody, json });
      response.writeHead(status, { "Content-Type": "text/plain" }).end("ok");
      for (const wake of waiters) wake();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}${path}`;
  await control.setWebhookReceiver(url, organizationId);
  return {
    url,
    requests,
    /** The first `count` deliveries, waiting up to timeoutMs for them. */
    waitFor(count = 1, { timeoutMs = 5000 } = {}) {
      if (requests.length >= count) return Promise.resolve(requests.slice(0, count));
      return new Promise((resolve, reject) => {
        const wake = () => {
          if (requests.length < count) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(requests.slice(0, count));
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`${requests.length} of ${count} webhook deliveries arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    verify: (request) => verifyWebhook(request.headers, request.rawBody),
    /** Stop listening and unregister (the organization's receiver is removed). */
    async close() {
      await control.setWebhookReceiver(null, organizationId).catch(() => undefined);
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The command that runs the simulator: options.command, else $WALLET_SIMULATOR_COMMAND, else wallet-simulator. */
function simulatorCommand(command) {
  if (command) return Array.isArray(command) ? command : [command];
  const fromEnv = process.env[COMMAND_ENV];
  if (!fromEnv) return ["wallet-simulator"];
  return fromEnv.trim().startsWith("[") ? JSON.parse(fromEnv) : fromEnv.trim().split(/\s+/);
}

function serveArguments(options) {
  const args = ["serve", "--port", String(options.port ?? 0), "--proxy-port", String(options.proxyPort ?? 0)];
  for (const scenario of options.scenarios || []) args.push("--scenario", String(scenario));
  if (options.seed !== undefined && options.seed !== null) args.push("--seed", String(options.seed));
  if (options.controlToken) args.push("--control-token", String(options.controlToken));
  if (options.dataDir) args.push("--data-dir", String(options.dataDir));
  return args.concat(options.args || []);
}

/** A simulator reached through its ready line: url, proxyUrl, credentials, control, stop(). */
function connect(ready = process.env[READY_ENV], child = null, token = undefined) {
  if (!ready) {
    throw new Error(`no simulator: ${READY_ENV} is not set (start one with startSimulator() or the global setup)`);
  }
  const line = typeof ready === "string" ? JSON.parse(ready) : ready;
  const { url, proxyUrl, seed, organizationId, userId, apiPublicKey, apiPrivateKey } = line;
  const control = new ControlClient(url, { token: token ?? line.controlToken ?? process.env.WALLET_SIMULATOR_CONTROL_TOKEN });
  return {
    ready: line,
    url,
    proxyUrl,
    seed,
    credentials: { organizationId, userId, apiPublicKey, apiPrivateKey },
    control,
    reset: () => control.reset(),
    pid: child ? child.pid : undefined,
    stop: child ? (timeoutMs) => stopChild(child, timeoutMs) : async () => undefined,
  };
}

/** Start `wallet-simulator serve` and resolve once its ready line is read. */
function startSimulator(options = {}) {
  const [program, ...prefix] = simulatorCommand(options.command);
  const child = spawn(program, [...prefix, ...serveArguments(options)], {
    cwd: options.cwd,
    env: { ...process.env, ...(options.env || {}) },
    stdio: ["ignore", "pipe", options.stderr === "inherit" ? "inherit" : "pipe"],
  });
  let stderr = "";
  if (child.stderr) {
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-4000);
      if (options.onLog) options.onLog(chunk);
    });
  }
  return new Promise((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 30000;
    const fail = (why) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`wallet-simulator did not start: ${why}${stderr ? `\n${stderr.trim()}` : ""}`));
    };
    const timer = setTimeout(() => fail(`no ready line within ${timeoutMs} ms`), timeoutMs);
    child.on("error", (error) => fail(`cannot run ${program}: ${error.message} (set options.command or ${COMMAND_ENV})`));
    child.on("exit", (code) => fail(`it exited with status ${code}`));
    readline.createInterface({ input: child.stdout }).once("line", (line) => {
      clearTimeout(timer);
      child.removeAllListeners("exit");
      try {
        resolve(connect(line, child, options.controlToken));
      } catch (error) {
        fail(`unreadable ready line ${JSON.stringify(line)}: ${error.message}`);
      }
    });
  });
}

function stopChild(child, timeoutMs = 10000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill("SIGINT"); // serve stops cleanly on Ctrl-C (and writes a --record file)
  });
}

/**
 * A global setup for jest (`globalSetup`) or vitest (`globalSetup`): starts one simulator for the
 * run and publishes its ready line in $WALLET_SIMULATOR_READY (and vitest's provide("walletSimulator")).
 * Returns the teardown vitest calls; jest calls `globalTeardown` instead.
 */
function createGlobalSetup(options = {}) {
  return async function setup(context) {
    const simulator = await startSimulator(options);
    globalThis[SHARED] = simulator;
    process.env[READY_ENV] = JSON.stringify(simulator.ready);
    if (context && typeof context.provide === "function") context.provide("walletSimulator", simulator.ready);
    return globalTeardown;
  };
}

async function globalTeardown() {
  const simulator = globalThis[SHARED];
  globalThis[SHARED] = undefined;
  if (simulator) await simulator.stop();
}

/** Reset the simulator before every test: `resetBeforeEach(beforeEach)` (jest, vitest, node:test). */
function resetBeforeEach(hook = globalThis.beforeEach, simulator = undefined) {
  if (typeof hook !== "function") throw new Error("resetBeforeEach needs the test runner's beforeEach");
  hook(() => (simulator || connect()).reset());
}

module.exports = {
  ControlClient,
  ControlError,
  JournalAssertionError,
  WEBHOOK_JWKS,
  startWebhookReceiver,
  verifyWebhook,
  READY_ENV,
  COMMAND_ENV,
  connect,
  createGlobalSetup,
  globalTeardown,
  resetBeforeEach,
  startSimulator,
};
