// What the official JS clients do when the simulator injects a transport fault (simulator/faults.py).
// Usage: node faults.js '<ready JSON: url, organizationId, apiPublicKey, apiPrivateKey>' '<cases JSON>'
// cases: [{kind, spec}] ; for each case and each client (@turnkey/http's TurnkeyClient, @turnkey/sdk-server's
// apiClient) the fault is added for create_wallet, one wallet is created, and the fault is removed.
// Prints one JSON object per case: what each client returned or threw, how long it took, and how many
// create_wallet requests the simulator's journal saw (more than one: the client retried).
const path = require("node:path");
const { Turnkey } = require("@turnkey/sdk-server");
const { TurnkeyClient } = require("@turnkey/http");
const { ApiKeyStamper } = require("@turnkey/api-key-stamper");
const { ControlClient } = require(path.join(__dirname, "..", "..", "js"));

const ready = JSON.parse(process.argv[2]);
const cases = JSON.parse(process.argv[3]);
const control = new ControlClient(ready.url);
const stamper = new ApiKeyStamper({ apiPublicKey: ready.apiPublicKey, apiPrivateKey: ready.apiPrivateKey });
const http = new TurnkeyClient({ baseUrl: ready.url }, stamper);
const server = new Turnkey({ apiBaseUrl: ready.url, apiPublicKey: ready.apiPublicKey, apiPrivateKey: ready.apiPrivateKey,
                             defaultOrganizationId: ready.organizationId }).apiClient();

const CLIENTS = {
  http: (name) => http.createWallet({ type: "ACTIVITY_TYPE_CREATE_WALLET", timestampMs: String(Date.now()),
                                      organizationId: ready.organizationId,
                                      parameters: { walletName: name, accounts: [] } }),
  sdkServer: (name) => server.createWallet({ walletName: name, accounts: [] }),
};

function described(error) {
  const cause = error.cause || {};
  return { name: error.constructor.name, message: String(error.message).slice(0, 300), code: error.code ?? null,
           status: error.status ?? error.statusCode ?? null, cause: cause.code || cause.name || null,
           causeMessage: cause.message ? String(cause.message).slice(0, 200) : null };
}

async function main() {
  const out = [];
  for (const { kind, spec } of cases) {
    const row = { kind, spec };
    for (const [client, create] of Object.entries(CLIENTS)) {
      const name = `${kind}-${client}-${out.length}`;
      const started = Date.now();
      const result = await control.withFault(kind, { ...spec, match: { operation: "create_wallet" } }, async () => {
        try {
          const made = await create(name);
          return { ok: true, status: (made.activity || made).status };
        } catch (error) {
          return { ok: false, error: described(error) };
        }
      });
      result.elapsedMs = Date.now() - started;
      const journal = await control.calls("create_wallet", { walletName: name });
      result.requests = journal.length;
      result.faults = journal.map((e) => (e.fault ? e.fault.kind : null));
      row[client] = result;
    }
    out.push(row);
  }
  return out;
}

main().then((out) => console.log(JSON.stringify(out)), (e) => { console.error(e); process.exit(1); });
