// Drives the official JS clients, unmodified, against a running simulator.
// Usage: node compat.js '<ready JSON: url, organizationId, userId, apiPublicKey, apiPrivateKey>'
// Prints one JSON object: what each call returned (or the error it threw).
const { Turnkey } = require("@turnkey/sdk-server");
const { TurnkeyClient, createActivityPoller } = require("@turnkey/http");
const { ApiKeyStamper } = require("@turnkey/api-key-stamper");

const ready = JSON.parse(process.argv[2]);
const ETH = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0",
              addressFormat: "ADDRESS_FORMAT_ETHEREUM" };

async function main() {
  const out = {};
  // A base URL ending in "/" makes the clients request "//public/...": the simulator must cope.
  const api = new Turnkey({ apiBaseUrl: ready.url + "/", apiPublicKey: ready.apiPublicKey,
                            apiPrivateKey: ready.apiPrivateKey, defaultOrganizationId: ready.organizationId }).apiClient();
  const wallet = await api.createWallet({ walletName: "js", accounts: [ETH] });
  out.createWallet = { walletId: wallet.walletId, addresses: wallet.addresses, status: wallet.activity.status };
  out.getWhoami = await api.getWhoami({});
  const users = await api.createUsers({ users: [{ userName: "js user", apiKeys: [], authenticators: [],
                                                  oauthProviders: [], userTags: [] }] });
  out.createUsers = users.userIds;
  const tag = await api.createUserTag({ userTagName: "js", userIds: users.userIds });
  out.createUserTag = tag.userTagId;
  out.listUserTags = (await api.listUserTags({})).userTags.map((t) => t.tagName);
  const policy = await api.createPolicy({ policyName: "js", effect: "EFFECT_ALLOW", notes: "" });
  out.deletePolicies = (await api.deletePolicies({ policyIds: [policy.policyId] })).policyIds;
  out.getWalletAccounts = (await api.getWalletAccounts({ walletId: wallet.walletId })).accounts.map((a) => a.address);
  out.getOrganizationConfigs = (await api.getOrganizationConfigs({})).configs;
  out.getActivity = (await api.getActivity({ activityId: wallet.activity.id })).activity.id;
  const low = new TurnkeyClient({ baseUrl: ready.url },
                                new ApiKeyStamper({ apiPublicKey: ready.apiPublicKey, apiPrivateKey: ready.apiPrivateKey }));
  const poll = createActivityPoller({ client: low, requestFn: low.createWallet });
  const activity = await poll({ type: "ACTIVITY_TYPE_CREATE_WALLET", timestampMs: String(Date.now()),
                                organizationId: ready.organizationId, parameters: { walletName: "low", accounts: [] } });
  out.httpPoller = { status: activity.status, walletId: activity.result.createWalletResult.walletId };
  try {
    await api.deletePolicies({ policyIds: ["00000000-0000-4000-8000-0000000000d6"] });  // well formed: "missing" is malformed (400)
    out.error = null;
  } catch (e) {
    out.error = { name: e.constructor.name, message: e.message, code: e.code };
  }
  return out;
}

main().then((out) => console.log(JSON.stringify(out)), (e) => { console.error(e); process.exit(1); });
