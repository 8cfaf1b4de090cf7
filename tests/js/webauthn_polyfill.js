// A software passkey for Node: navigator.credentials.create / get as a browser platform
// authenticator answers them (ES256, "none" attestation), so @turnkey/core's passkey flows run
// unmodified. Test-only; keys live in memory.
const crypto = require("crypto");

function cbor(value) {
  const head = (major, n) => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
  };
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64url = (buf) => Buffer.from(buf).toString("base64url");
const arrayBuffer = (buf) => buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length);
const credentials = new Map();

function clientData(type, challenge) {
  return Buffer.from(JSON.stringify({ type, challenge: b64url(Buffer.from(challenge)), origin: globalThis.location.origin }));
}

async function create({ publicKey }) {
  const { privateKey, publicKey: pub } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = pub.export({ format: "jwk" });
  const id = crypto.randomBytes(16);
  credentials.set(b64url(id), { privateKey, counter: 0 });
  const cose = cbor(new Map([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x, "base64url")], [-3, Buffer.from(jwk.y, "base64url")]]));
  const rpIdHash = crypto.createHash("sha256").update(publicKey.rp.id || globalThis.location.hostname).digest();
  const authData = Buffer.concat([rpIdHash, Buffer.from([0x45]), Buffer.alloc(4), Buffer.alloc(16),
                                  Buffer.from([0, id.length]), id, cose]);
  const attestationObject = cbor({ fmt: "none", attStmt: {}, authData });
  return { id: b64url(id), rawId: arrayBuffer(id), type: "public-key", authenticatorAttachment: "platform",
           response: { clientDataJSON: arrayBuffer(clientData("webauthn.create", publicKey.challenge)),
                       attestationObject: arrayBuffer(attestationObject), getTransports: () => ["internal"] },
           getClientExtensionResults: () => ({}) };
}

async function get({ publicKey }) {
  const allowed = (publicKey.allowCredentials || []).map((c) => b64url(Buffer.from(c.id)));
  const id = allowed.find((i) => credentials.has(i)) || [...credentials.keys()].pop();
  const credential = credentials.get(id);
  credential.counter += 1;
  const rpIdHash = crypto.createHash("sha256").update(publicKey.rpId || globalThis.location.hostname).digest();
  const counter = Buffer.alloc(4);
  counter.writeUInt32BE(credential.counter);
  const authenticatorData = Buffer.concat([rpIdHash, Buffer.from([0x05]), counter]);
  const data = clientData("webauthn.get", publicKey.challenge);
  const signed = Buffer.concat([authenticatorData, crypto.createHash("sha256").update(data).digest()]);
  const signature = crypto.sign("sha256", signed, credential.privateKey);
  return { id, rawId: arrayBuffer(Buffer.from(id, "base64url")), type: "public-key", authenticatorAttachment: "platform",
           response: { clientDataJSON: arrayBuffer(data), authenticatorData: arrayBuffer(authenticatorData),
                       signature: arrayBuffer(signature), userHandle: null },
           getClientExtensionResults: () => ({}) };
}

globalThis.PublicKeyCredential = function PublicKeyCredential() {};
Object.defineProperty(globalThis, "navigator", { value: { ...(globalThis.navigator || {}), credentials: { create, get } },
                                                 configurable: true, writable: true });
module.exports = { credentials };
