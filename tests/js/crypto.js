// Opens a credential bundle and verifies a session JWT with the official @turnkey/crypto.
// Usage: node crypto.js '{"bundle", "receiverPrivateKey", "session", "notarizerPublicKey"}'
const { decryptCredentialBundle, verifySessionJwtSignature } = require("@turnkey/crypto");

const input = JSON.parse(process.argv[2]);
(async () => {
  const privateKey = decryptCredentialBundle(input.bundle, input.receiverPrivateKey);
  const sessionValid = await verifySessionJwtSignature(input.session, input.notarizerPublicKey);
  const claims = JSON.parse(atob(input.session.split(".")[1]));  // as @turnkey/core's parseSession does
  console.log(JSON.stringify({ privateKey, sessionValid, claims }));
})().catch((e) => { console.error(e); process.exit(1); });
