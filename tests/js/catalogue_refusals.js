// The four requests Turnkey's error catalogue refuses and the simulator once accepted, sent through the
// official @turnkey/sdk-server client, unmodified.
// Usage: node catalogue_refusals.js '<ready JSON: url, organizationId, apiPublicKey, apiPrivateKey, subOrganizationId>'
// Prints one JSON object: for each call, the error it threw ({message, status, code}) or "accepted".
const { Turnkey } = require("@turnkey/sdk-server");

const ready = JSON.parse(process.argv[2]);

async function outcome(call) {
  try {
    await call();
    return "accepted";
  } catch (e) {
    return { message: String(e.message), status: e.cause?.status ?? e.status ?? null, code: e.code ?? null };
  }
}

async function main() {
  const api = new Turnkey({ apiBaseUrl: ready.url, apiPublicKey: ready.apiPublicKey,
                            apiPrivateKey: ready.apiPrivateKey, defaultOrganizationId: ready.organizationId }).apiClient();
  const user = (email) => ({ userName: "js", userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [],
                             userTags: [] });
  const out = {};
  out.invalidEmail = await outcome(() => api.createUsers({ users: [user("not-an-email")] }));
  out.unreachableEmail = await outcome(() => api.createUsers({ users: [user("alice@mail.test")] }));
  out.emptyClientId = await outcome(() => api.createOauth2Credential({
    provider: "OAUTH2_PROVIDER_X", clientId: "", encryptedClientSecret: "00" }));
  out.templateVariables = await outcome(() => api.emailAuth({
    organizationId: ready.subOrganizationId, email: "alice@example.com", targetPublicKey: "04" + "11".repeat(64),
    emailCustomization: { appName: "Catalogue", templateVariables: "{not json" } }));
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { process.stderr.write(String(e.stack || e)); process.exit(1); });
