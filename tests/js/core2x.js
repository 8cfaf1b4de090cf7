// @turnkey/core 2.x (npm alias turnkey-core-v2), unmodified, in Node with the browser pieces it needs
// polyfilled: OTP sign-up and login (with js/core2-shim.js), OAuth sign-up and login (attested
// stamp_login), sessions used to stamp; and a read-write session opened with @turnkey/crypto.
// Usage: node core2x.js '{"url", "proxyUrl", "configId", "organizationId", "email", "shim"?,
//                         "apiPublicKey", "apiPrivateKey"}'
// Without "shim", only the OTP step runs, to show what core 2.x does unshimmed.
const input = JSON.parse(process.argv[2]);
if (input.shim) require(input.shim);
require("fake-indexeddb/auto");
const store = new Map();
globalThis.window = globalThis;
globalThis.document = {};
globalThis.location = { hostname: "localhost", origin: "http://localhost:3000", href: "http://localhost:3000/" };
globalThis.localStorage = {
  getItem: (k) => (store.has(k) ? store.get(k) : null),
  setItem: (k, v) => store.set(k, String(v)),
  removeItem: (k) => store.delete(k),
  clear: () => store.clear(),
  key: (i) => [...store.keys()][i] ?? null,
  get length() { return store.size; },
};
require("./webauthn_polyfill");
// EIP-6963: one injected Ethereum wallet (an ethers key) that announces itself when asked.
const events = new EventTarget();
globalThis.addEventListener = events.addEventListener.bind(events);
globalThis.removeEventListener = events.removeEventListener.bind(events);
globalThis.dispatchEvent = events.dispatchEvent.bind(events);
const { Wallet, getBytes } = require("ethers");
const injected = Wallet.createRandom();
const ethereum = {
  request: async ({ method, params }) => {
    if (method === "eth_requestAccounts" || method === "eth_accounts") return [injected.address];
    if (method === "eth_chainId") return "0x1";
    if (method === "personal_sign") {
      const message = params[0];  // hex bytes, or text as wallets also accept
      return injected.signMessage(/^0x[0-9a-f]*$/i.test(message) ? getBytes(message) : message);
    }
    throw new Error(`wallet polyfill: ${method} is not supported`);
  },
  on: () => {}, removeListener: () => {},
};
globalThis.addEventListener("eip6963:requestProvider", () => globalThis.dispatchEvent(new CustomEvent(
  "eip6963:announceProvider", { detail: { info: { uuid: "sim-wallet", name: "Simulated Wallet", icon: "", rdns: "local.simulator" },
                                          provider: ethereum } })));
const nodeCrypto = require("crypto");
const { TurnkeyClient } = require("turnkey-core-v2");

async function control(path, body) {
  const reply = await fetch(`${input.url}/_simulator${path}`, body ? { method: "POST",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) } : undefined);
  return reply.json();
}

async function latestCode(contact) {
  const { messages } = await control(`/outbox?contact=${encodeURIComponent(contact)}`);
  return messages[messages.length - 1].code;
}

async function otp(client, contact) {
  const { otpId, otpEncryptionTargetBundle } = await client.initOtp({ otpType: "OTP_TYPE_EMAIL", contact });
  const done = await client.completeOtp({ otpId, otpCode: await latestCode(contact), otpEncryptionTargetBundle,
                                          contact, otpType: "OTP_TYPE_EMAIL" });
  const session = await client.getSession();
  const whoami = await client.httpClient.getWhoami({ organizationId: session.organizationId });
  await client.logout();
  return { action: done.action, organizationId: session.organizationId, userId: session.userId,
           username: whoami.username, whoamiOrg: whoami.organizationId };
}

async function oauth(client, subject) {
  const publicKey = await client.createApiKeyPair();
  const nonce = nodeCrypto.createHash("sha256").update(publicKey).digest("hex");
  const { idToken } = await control("/oauth/id-token", { subject, audience: "google-client", nonce });
  const done = await client.completeOauth({ oidcToken: idToken, publicKey });
  const session = await client.getSession();
  const wallets = await client.fetchWallets();
  await client.logout();
  return { action: done.action, organizationId: session.organizationId, wallets: wallets.length };
}

async function passkey(client) {
  const signedUp = await client.signUpWithPasskey({ passkeyDisplayName: "core2-passkey" });
  const first = await client.getSession();
  await client.logout();
  const loggedIn = await client.loginWithPasskey({});
  const second = await client.getSession();
  const whoami = await client.httpClient.getWhoami({ organizationId: second.organizationId });
  await client.logout();
  return { signup: first.organizationId, login: second.organizationId, whoamiUser: whoami.userId,
           sessionUser: second.userId, credentialId: loggedIn.credentialId || null, signedUp: !!signedUp.sessionToken };
}

async function wallet(client) {
  const [provider] = (await client.fetchWalletProviders()).filter((p) => p.info.rdns === "local.simulator");
  const out = {};
  for (const step of ["signup", "login"]) {
    const done = await client.loginOrSignupWithWallet({ walletProvider: provider });
    const session = await client.getSession();
    out[step] = { action: done.action, organizationId: session.organizationId, address: done.address };
    await client.logout();
  }
  out.expected = injected.address;
  return out;
}

async function readWriteSession() {
  const { generateP256KeyPair, decryptCredentialBundle, getPublicKey } = require("@turnkey/crypto");
  const { uint8ArrayToHexString, uint8ArrayFromHexString } = require("@turnkey/encoding");
  const { ApiKeyStamper } = require("@turnkey/api-key-stamper");
  const { TurnkeyClient: HttpClient } = require("@turnkey/http");
  const api = new HttpClient({ baseUrl: input.url }, new ApiKeyStamper({ apiPublicKey: input.apiPublicKey,
                                                                        apiPrivateKey: input.apiPrivateKey }));
  const target = generateP256KeyPair();
  const { activity } = await api.createReadWriteSession({ type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
    timestampMs: String(Date.now()), organizationId: input.organizationId,
    parameters: { targetPublicKey: target.publicKeyUncompressed } });
  const made = activity.result.createReadWriteSessionResultV2;
  const privateKey = decryptCredentialBundle(made.credentialBundle, target.privateKey);
  const publicKey = uint8ArrayToHexString(getPublicKey(uint8ArrayFromHexString(privateKey), true));
  const asSession = new HttpClient({ baseUrl: input.url }, new ApiKeyStamper({ apiPublicKey: publicKey,
                                                                              apiPrivateKey: privateKey }));
  const whoami = await asSession.getWhoami({ organizationId: input.organizationId });
  return { userId: whoami.userId, apiKeyId: made.apiKeyId };
}

async function main() {
  const client = new TurnkeyClient({ apiBaseUrl: input.url, authProxyUrl: input.proxyUrl,
                                     authProxyConfigId: input.configId, organizationId: input.organizationId,
                                     passkeyConfig: { rpId: "localhost" },
                                     walletConfig: { features: { auth: true }, chains: { ethereum: { native: true } } } });
  await client.init();
  const out = {};
  if (!input.shim) {
    try {
      await otp(client, input.email);
    } catch (e) {
      out.error = { code: e.code, message: String(e.message), cause: String(e.cause && e.cause.message) };
    }
    return out;
  }
  out.config = await client.getProxyAuthConfig();
  out.otpSignup = await otp(client, input.email);
  out.otpLogin = await otp(client, input.email);
  out.oauthSignup = await oauth(client, "g-" + input.email);
  out.oauthLogin = await oauth(client, "g-" + input.email);
  out.passkey = await passkey(client);
  out.wallet = await wallet(client);
  out.readWrite = await readWriteSession();
  return out;
}

main().then((out) => console.log(JSON.stringify(out)), (e) => { console.error(e); process.exit(1); });
