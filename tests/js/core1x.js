// @turnkey/core 1.14.1 (the last 1.x, which uses the /v1/otp_* and /v1/oauth_login proxy paths),
// unmodified, in Node with the browser pieces it needs polyfilled.
// Usage: node core1x.js '{"url", "proxyUrl", "configId", "organizationId", "email", "oidcToken"?}'
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
const { TurnkeyClient } = require("turnkey-core-v1");

const input = JSON.parse(process.argv[2]);

async function latestCode(contact) {
  const reply = await fetch(`${input.url}/_simulator/outbox?contact=${encodeURIComponent(contact)}`);
  const { messages } = await reply.json();
  return messages[messages.length - 1].code;
}

async function main() {
  const client = new TurnkeyClient({ apiBaseUrl: input.url, authProxyUrl: input.proxyUrl,
                                     authProxyConfigId: input.configId, organizationId: input.organizationId });
  await client.init();
  const out = {};
  out.config = await client.getProxyAuthConfig();
  // First time: the account lookup finds nothing, so completeOtp signs up, then logs in.
  let otpId = await client.initOtp({ otpType: "OTP_TYPE_EMAIL", contact: input.email });
  out.signup = await client.completeOtp({ otpId, otpCode: await latestCode(input.email), contact: input.email,
                                          otpType: "OTP_TYPE_EMAIL" });
  const session = await client.getSession();
  out.session = { organizationId: session.organizationId, userId: session.userId, expiry: session.expiry };
  out.whoami = await client.httpClient.getWhoami({ organizationId: session.organizationId });
  await client.logout();
  // Second time: the account exists, so completeOtp logs straight in.
  otpId = await client.initOtp({ otpType: "OTP_TYPE_EMAIL", contact: input.email });
  out.login = await client.completeOtp({ otpId, otpCode: await latestCode(input.email), contact: input.email,
                                         otpType: "OTP_TYPE_EMAIL" });
  out.secondSession = (await client.getSession()).organizationId;
  await client.logout();
  // OAuth (an ID token from the simulator's provider, nonce bound to the session key): sign up, then log in.
  for (const step of ["oauthSignup", "oauthLogin"]) {
    const publicKey = await client.apiKeyStamper.createKeyPair();
    const nonce = require("crypto").createHash("sha256").update(publicKey).digest("hex");
    const reply = await fetch(`${input.url}/_simulator/oauth/id-token`, { method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ subject: "g-" + input.email, audience: "google-client", nonce }) });
    const { idToken } = await reply.json();
    out[step] = await client.completeOauth({ oidcToken: idToken, publicKey });
    out[step + "Org"] = (await client.getSession()).organizationId;
    await client.logout();
  }
  try {
    await client.initOtp({ otpType: "OTP_TYPE_EMAIL", contact: input.email });
    await client.completeOtp({ otpId: "missing", otpCode: "000000", contact: input.email, otpType: "OTP_TYPE_EMAIL" });
  } catch (e) {
    out.error = { code: e.code, message: String(e.message) };
  }
  return out;
}

main().then((out) => console.log(JSON.stringify(out)), (e) => { console.error(e); process.exit(1); });
