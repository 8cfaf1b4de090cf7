// What the simulator's export, import and auth frames share: encodings, the HPKE base mode Turnkey
// uses (DHKEM P-256 + HKDF-SHA256 + AES-256-GCM, info "turnkey_hpke", aad = enc || receiver key),
// the signed-bundle check against the simulator's signer key, the embedded key, and the
// MessageChannel protocol of @turnkey/iframe-stamper. Written for these pages (no library, no
// build step); everything runs on WebCrypto. Exposed as window.SimFrame.
"use strict";

(function () {
  const subtle = window.crypto.subtle;
  const utf8 = new TextEncoder();

  // encodings -------------------------------------------------------------------------------------
  function concat(...parts) {
    const total = parts.reduce((n, p) => n + p.length, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const part of parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  function fromHex(text) {
    if (typeof text !== "string" || text.length === 0 || text.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(text)) {
      throw new Error("cannot create uint8array from invalid hex string");
    }
    const out = new Uint8Array(text.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(i * 2, 2), 16);
    return out;
  }

  function toHex(bytes) {
    return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

  function base58Encode(bytes) {
    let number = 0n;
    for (const b of bytes) number = number * 256n + BigInt(b);
    let text = "";
    while (number > 0n) {
      text = B58[Number(number % 58n)] + text;
      number /= 58n;
    }
    for (const b of bytes) {
      if (b !== 0) break;
      text = "1" + text;
    }
    return text;
  }

  function base58Decode(text) {
    let number = 0n;
    for (const ch of text) {
      const digit = B58.indexOf(ch);
      if (digit === -1) throw new Error(`cannot base58-decode: ${ch} isn't a valid character`);
      number = number * 58n + BigInt(digit);
    }
    const bytes = [];
    while (number > 0n) {
      bytes.unshift(Number(number % 256n));
      number /= 256n;
    }
    for (const ch of text) {
      if (ch !== "1") break;
      bytes.unshift(0);
    }
    return Uint8Array.from(bytes);
  }

  async function sha256(bytes) {
    return new Uint8Array(await subtle.digest("SHA-256", bytes));
  }

  async function base58CheckEncode(payload) {
    const check = (await sha256(await sha256(payload))).slice(0, 4);
    return base58Encode(concat(payload, check));
  }

  async function base58CheckDecode(text) {
    if (text.length < 5) throw new Error(`cannot base58-decode a string of length < 5 (found length ${text.length})`);
    const raw = base58Decode(text);
    const payload = raw.slice(0, raw.length - 4);
    const found = toHex(raw.slice(raw.length - 4));
    const computed = toHex((await sha256(await sha256(payload))).slice(0, 4));
    if (found !== computed) {
      throw new Error(`unable to decode credential bundle. checksums do not match: computed ${computed} but found ${found}`);
    }
    return payload;
  }

  function base64urlEncode(bytes) {
    let binary = "";
    for (const b of bytes) binary += String.fromCharCode(b);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function base64urlDecode(text) {
    const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  // bech32 (BIP-173), for Sui's "suiprivkey" format -----------------------------------------------
  const BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
  const BECH32_GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

  function bech32Polymod(values) {
    let chk = 1;
    for (const v of values) {
      const top = chk >>> 25;
      chk = ((chk & 0x1ffffff) << 5) ^ v;
      for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= BECH32_GEN[i];
    }
    return chk >>> 0;
  }

  function hrpExpand(hrp) {
    const codes = Array.from(hrp, (c) => c.charCodeAt(0));
    return [...codes.map((c) => c >> 5), 0, ...codes.map((c) => c & 31)];
  }

  function regroup(data, from, to, pad) {
    let acc = 0;
    let bits = 0;
    const out = [];
    for (const value of data) {
      acc = (acc << from) | value;
      bits += from;
      while (bits >= to) {
        bits -= to;
        out.push((acc >> bits) & ((1 << to) - 1));
      }
    }
    if (pad && bits > 0) out.push((acc << (to - bits)) & ((1 << to) - 1));
    else if (!pad && (bits >= from || ((acc << (to - bits)) & ((1 << to) - 1)))) throw new Error("invalid padding in bech32 data");
    return out;
  }

  function bech32Encode(hrp, bytes) {
    const words = regroup(bytes, 8, 5, true);
    const mod = bech32Polymod([...hrpExpand(hrp), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
    const check = [0, 1, 2, 3, 4, 5].map((i) => (mod >>> (5 * (5 - i))) & 31);
    return hrp + "1" + [...words, ...check].map((w) => BECH32[w]).join("");
  }

  function bech32Decode(text) {
    const lower = text.toLowerCase();
    const split = lower.lastIndexOf("1");
    if (split < 1 || split + 7 > lower.length) throw new Error("invalid bech32 string");
    const hrp = lower.slice(0, split);
    const words = Array.from(lower.slice(split + 1), (c) => {
      const w = BECH32.indexOf(c);
      if (w === -1) throw new Error(`invalid bech32 character: '${c}'`);
      return w;
    });
    if (bech32Polymod([...hrpExpand(hrp), ...words]) !== 1) throw new Error("invalid bech32 checksum");
    return { hrp, bytes: Uint8Array.from(regroup(words.slice(0, -6), 5, 8, false)) };
  }

  // P-256 points ------------------------------------------------------------------------------------
  const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
  const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

  function modPow(base, exp, mod) {
    let result = 1n;
    base %= mod;
    while (exp > 0n) {
      if (exp & 1n) result = (result * base) % mod;
      base = (base * base) % mod;
      exp >>= 1n;
    }
    return result;
  }

  function bigFrom(bytes) {
    return BigInt("0x" + (toHex(bytes) || "0"));
  }

  function bigTo32(n) {
    return fromHex(n.toString(16).padStart(64, "0"));
  }

  /** 33-byte compressed point → 65-byte uncompressed (y² = x³ − 3x + b; p ≡ 3 mod 4). */
  function uncompress(compressed) {
    if (compressed.length !== 33 || (compressed[0] !== 2 && compressed[0] !== 3)) {
      throw new Error("expected a compressed P-256 public key (33 bytes starting with 02 or 03)");
    }
    const x = bigFrom(compressed.slice(1));
    if (x >= P) throw new Error("x is out of range");
    const rhs = (((modPow(x, 3n, P) - 3n * x + B) % P) + P) % P;
    let y = modPow(rhs, (P + 1n) / 4n, P);
    if ((y * y) % P !== rhs) throw new Error("the compressed key is not on the P-256 curve");
    if ((y & 1n) !== BigInt(compressed[0] & 1)) y = P - y;
    return concat([4], bigTo32(x), bigTo32(y));
  }

  function compress(uncompressed) {
    return concat([2 + (uncompressed[64] & 1)], uncompressed.slice(1, 33));
  }

  /** A WebCrypto ECDSA signature (r || s) → ASN.1 DER, the form Turnkey's stamps carry. */
  function rawToDer(raw) {
    const integer = (bytes) => {
      let i = 0;
      while (i < bytes.length - 1 && bytes[i] === 0) i++;
      let body = bytes.slice(i);
      if (body[0] & 0x80) body = concat([0], body);
      return concat([2, body.length], body);
    };
    const body = concat(integer(raw.slice(0, 32)), integer(raw.slice(32)));
    return concat([0x30, body.length], body);
  }

  /** ASN.1 DER → r || s (32 bytes each). */
  function derToRaw(der) {
    const fail = () => {
      throw new Error("failed to convert DER-encoded signature: not a DER ECDSA signature");
    };
    if (der[0] !== 0x30) fail();
    let at = 2;
    const parts = [];
    for (let k = 0; k < 2; k++) {
      if (der[at] !== 0x02) fail();
      const length = der[at + 1];
      let value = der.slice(at + 2, at + 2 + length);
      at += 2 + length;
      while (value.length > 32 && value[0] === 0) value = value.slice(1);
      if (value.length > 32) fail();
      parts.push(concat(new Uint8Array(32 - value.length), value));
    }
    return concat(parts[0], parts[1]);
  }

  const PKCS8_ED25519_PREFIX = fromHex("302e020100300506032b657004220420");

  // WebCrypto imports a private key only with its public point, so the point is computed here
  // (affine double-and-add with BigInt; a credential is imported once, speed does not matter).
  const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
  const G = [
    0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296n,
    0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5n,
  ];
  const mod = (a) => ((a % P) + P) % P;

  function inverse(a) {
    let [r0, r1, t0, t1] = [mod(a), P, 1n, 0n];
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1, t0, t1] = [r1, r0 - q * r1, t1, t0 - q * t1];
    }
    return mod(t0);
  }

  function add(p1, p2) {
    if (p1 === null) return p2;
    if (p2 === null) return p1;
    const [x1, y1] = p1;
    const [x2, y2] = p2;
    if (x1 === x2 && mod(y1 + y2) === 0n) return null;
    const slope = x1 === x2 ? mod(3n * (x1 * x1 - 1n) * inverse(2n * y1)) : mod((y2 - y1) * inverse(x2 - x1));
    const x3 = mod(slope * slope - x1 - x2);
    return [x3, mod(slope * (x1 - x3) - y1)];
  }

  function multiply(k) {
    let result = null;
    let addend = G;
    for (; k > 0n; k >>= 1n) {
      if (k & 1n) result = add(result, addend);
      addend = add(addend, addend);
    }
    return result;
  }

  /** A raw 32-byte P-256 scalar as a private JWK (ECDH; re-import it for ECDSA with other key_ops). */
  async function p256PrivateJwk(scalar) {
    if (scalar.length !== 32) throw new Error(`invalid P-256 private key length: expected 32 bytes, got ${scalar.length}`);
    const d = bigFrom(scalar);
    if (d === 0n || d >= N) throw new Error("invalid P-256 private key: out of range");
    const [x, y] = multiply(d);
    return { kty: "EC", crv: "P-256", d: base64urlEncode(scalar), x: base64urlEncode(bigTo32(x)), y: base64urlEncode(bigTo32(y)), ext: true };
  }

  async function publicOfJwk(jwk) {
    const key = await subtle.importKey("jwk", { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, { name: "ECDH", namedCurve: "P-256" }, true, []);
    return new Uint8Array(await subtle.exportKey("raw", key));
  }

  async function ed25519PublicKey(seed) {
    const key = await subtle.importKey("pkcs8", concat(PKCS8_ED25519_PREFIX, seed), { name: "Ed25519" }, true, ["sign"]);
    return base64urlDecode((await subtle.exportKey("jwk", key)).x);
  }

  // HPKE base mode, RFC 9180, one message (sequence 0) -----------------------------------------------
  const HPKE_INFO = utf8.encode("turnkey_hpke");
  const KEM_ID = concat(utf8.encode("KEM"), [0x00, 0x10]);
  const SUITE_ID = concat(utf8.encode("HPKE"), [0x00, 0x10, 0x00, 0x01, 0x00, 0x02]);
  const VERSION = utf8.encode("HPKE-v1");
  const EMPTY = new Uint8Array(0);

  async function hmac(key, data) {
    // an empty key is the same HMAC key as HashLen zero bytes (RFC 2104 pads keys with zeros)
    const material = key.length ? key : new Uint8Array(32);
    const k = await subtle.importKey("raw", material, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return new Uint8Array(await subtle.sign("HMAC", k, data));
  }

  async function expand(prk, info, length) {
    let block = EMPTY;
    let out = EMPTY;
    for (let i = 1; out.length < length; i++) {
      block = await hmac(prk, concat(block, info, [i]));
      out = concat(out, block);
    }
    return out.slice(0, length);
  }

  const labeledExtract = (suite, salt, label, ikm) => hmac(salt, concat(VERSION, suite, utf8.encode(label), ikm));
  const labeledExpand = (suite, prk, label, info, length) =>
    expand(prk, concat([length >> 8, length & 255], VERSION, suite, utf8.encode(label), info), length);

  async function keySchedule(dh, enc, receiverPublic) {
    const eaePrk = await labeledExtract(KEM_ID, EMPTY, "eae_prk", dh);
    const shared = await labeledExpand(KEM_ID, eaePrk, "shared_secret", concat(enc, receiverPublic), 32);
    const pskIdHash = await labeledExtract(SUITE_ID, EMPTY, "psk_id_hash", EMPTY);
    const infoHash = await labeledExtract(SUITE_ID, EMPTY, "info_hash", HPKE_INFO);
    const context = concat([0], pskIdHash, infoHash);
    const secret = await labeledExtract(SUITE_ID, shared, "secret", EMPTY);
    const key = await labeledExpand(SUITE_ID, secret, "key", context, 32);
    const nonce = await labeledExpand(SUITE_ID, secret, "base_nonce", context, 12);
    return { key: await subtle.importKey("raw", key, "AES-GCM", false, ["encrypt", "decrypt"]), nonce };
  }

  async function ecdh(privateKey, publicRaw) {
    const peer = await subtle.importKey("raw", publicRaw, { name: "ECDH", namedCurve: "P-256" }, false, []);
    return new Uint8Array(await subtle.deriveBits({ name: "ECDH", public: peer }, privateKey, 256));
  }

  /** Open ``ciphertext`` sealed to the private JWK (``enc``: the sender's uncompressed key). */
  async function hpkeOpen(ciphertext, enc, receiverJwk) {
    const receiverPublic = await publicOfJwk(receiverJwk);
    try {
      const receiver = await subtle.importKey("jwk", receiverJwk, { name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
      const { key, nonce } = await keySchedule(await ecdh(receiver, enc), enc, receiverPublic);
      const aad = concat(enc, receiverPublic);
      return new Uint8Array(await subtle.decrypt({ name: "AES-GCM", iv: nonce, additionalData: aad }, key, ciphertext));
    } catch (e) {
      throw new Error("unable to decrypt bundle using embedded key. the bundle may be incorrect. failed with error: " + e.toString());
    }
  }

  /** Seal ``plaintext`` to an uncompressed P-256 public key: ``{"encappedPublic", "ciphertext"}``. */
  async function hpkeSeal(plaintext, receiverPublic) {
    const ephemeral = await subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
    const enc = new Uint8Array(await subtle.exportKey("raw", ephemeral.publicKey));
    const { key, nonce } = await keySchedule(await ecdh(ephemeral.privateKey, receiverPublic), enc, receiverPublic);
    const aad = concat(enc, receiverPublic);
    const sealed = new Uint8Array(await subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: aad }, key, plaintext));
    return JSON.stringify({ encappedPublic: toHex(enc), ciphertext: toHex(sealed) });
  }

  // signed bundles ----------------------------------------------------------------------------------
  function signerPublicKey() {
    return document.querySelector('meta[name="signer-public-key"]').content;
  }

  /** A v1.0.0 bundle's signed data, after the checks the real frames make, with the simulator's
   * signer key in place of the production enclave's. */
  async function verifiedBundleData(bundle) {
    let parsed;
    try {
      parsed = JSON.parse(bundle);
    } catch (e) {
      throw new Error(`unable to parse bundle: ${e.message}`);
    }
    if (!parsed || typeof parsed !== "object") throw new Error("unable to parse bundle: not a JSON object");
    if (parsed.version !== "v1.0.0") throw new Error(`unsupported version: ${parsed.version}`);
    for (const field of ["data", "dataSignature", "enclaveQuorumPublic"]) {
      if (!parsed[field]) throw new Error(`missing "${field}" in bundle`);
    }
    const expected = signerPublicKey();
    if (parsed.enclaveQuorumPublic !== expected) {
      throw new Error(`enclave quorum public keys from client and bundle do not match. Client: ${expected}. Bundle: ${parsed.enclaveQuorumPublic}.`);
    }
    const signer = await subtle.importKey("raw", fromHex(expected), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    const data = fromHex(parsed.data);
    const ok = await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, signer, derToRaw(fromHex(parsed.dataSignature)), data);
    if (!ok) throw new Error(`failed to verify enclave signature: ${bundle}`);
    return JSON.parse(new TextDecoder().decode(data));
  }

  function expectField(signedData, field, label, expected) {
    if (!expected) {
      console.warn(`we highly recommend a version of @turnkey/iframe-stamper >= v2.0.0 to pass "${field}" for security purposes.`);
    } else if (!signedData[field] || signedData[field] !== expected) {
      throw new Error(`${label} does not match expected value. Expected: ${expected}. Found: ${signedData[field]}.`);
    }
  }

  // the embedded key: a P-256 private JWK kept in this origin's localStorage with an expiry --------
  function embeddedKeyStore(name, defaultTtlMs) {
    const slot = `wallet-simulator:${name}:embedded-key`;
    let memory = null; // where localStorage is unavailable
    let pending = Promise.resolve(null);
    const read = () => {
      let item = memory;
      try {
        const text = window.localStorage.getItem(slot);
        item = text ? JSON.parse(text) : null;
      } catch (e) {
        /* storage blocked: memory only */
      }
      if (!item || Date.now() > item.expiry) {
        clear();
        return null;
      }
      return item.value;
    };
    const write = (jwk, ttlMs) => {
      const item = { value: jwk, expiry: Date.now() + (ttlMs || defaultTtlMs) };
      memory = item;
      try {
        window.localStorage.setItem(slot, JSON.stringify(item));
      } catch (e) {
        /* storage blocked: memory only */
      }
    };
    const clear = () => {
      memory = null;
      try {
        window.localStorage.removeItem(slot);
      } catch (e) {
        /* storage blocked */
      }
    };
    const init = (ttlMs) => {
      // one key even when the page's start and the parent's channel ask at the same time
      pending = pending.then(async () => {
        if (!read()) {
          const pair = await subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
          write(await subtle.exportKey("jwk", pair.privateKey), ttlMs);
        }
        return read();
      });
      return pending;
    };
    const publicHex = async () => {
      const jwk = read();
      return jwk ? toHex(await publicOfJwk(jwk)) : "";
    };
    return {
      get: read,
      clear,
      init,
      publicHex,
      /** ``serve``'s announce: the key PUBLIC_KEY_READY carries, made now for the parent's TTL override if any. */
      async announce(data) {
        await init(data.dangerouslyOverrideIframeKeyTtl > 0 ? data.dangerouslyOverrideIframeKeyTtl : undefined);
        return publicHex();
      },
      /** The messages about the embedded key itself, the same in every frame that holds one;
       * ``onReset`` forgets what the frame kept with the key. */
      handlers(onReset = () => {}) {
        return {
          async GET_EMBEDDED_PUBLIC_KEY() {
            return ["EMBEDDED_PUBLIC_KEY", await publicHex()];
          },
          async INIT_EMBEDDED_KEY() {
            await init();
            return ["EMBEDDED_PUBLIC_KEY", await publicHex()];
          },
          async RESET_EMBEDDED_KEY() {
            clear();
            onReset();
            return ["EMBEDDED_KEY_RESET", null];
          },
        };
      },
    };
  }

  // what the page shows ------------------------------------------------------------------------------
  function showError(message) {
    const box = document.getElementById("frame-error");
    box.textContent = message;
    box.hidden = false;
  }

  function clearError() {
    const box = document.getElementById("frame-error");
    box.textContent = "";
    box.hidden = true;
  }

  // styles the parent may set with APPLY_SETTINGS (a short list; anything else is refused)
  const STYLE_PROPERTIES = new Set([
    "padding", "margin", "borderWidth", "borderStyle", "borderColor", "borderRadius", "fontSize", "fontWeight",
    "fontFamily", "color", "labelColor", "backgroundColor", "width", "height", "maxWidth", "maxHeight",
    "lineHeight", "boxShadow", "textAlign", "overflowWrap", "wordWrap", "resize",
  ]);

  function validStyles(styles) {
    const valid = {};
    for (const [property, value] of Object.entries(styles || {})) {
      const name = property.trim();
      if (!name) throw new Error("css style property cannot be empty");
      if (!STYLE_PROPERTIES.has(name)) throw new Error(`invalid or unsupported css style property: "${name}"`);
      const text = String(value).trim();
      if (!text) throw new Error(`css style for "${name}" is empty`);
      if (/[;"'<>{}\\]|url\(|expression\(/i.test(text)) throw new Error(`invalid css style value for property "${name}"`);
      valid[name] = text;
    }
    return valid;
  }

  function applyStyles(element, styles) {
    for (const [name, value] of Object.entries(styles)) {
      if (name !== "labelColor") element.style[name] = value;
    }
  }

  /** Opened on its own (from the inspector, say) rather than in an app's iframe: say what the page is. */
  function explainStandalone(publicKey) {
    const note = document.getElementById("frame-note");
    const kind = document.body.dataset.frame;
    note.textContent =
      `wallet-simulator's ${kind} frame. Apps load it in an iframe through @turnkey/iframe-stamper ` +
      `(the ready line's ${kind}IframeUrl).` +
      (kind === "auth" ? "" : ` It trusts only bundles signed by the simulator's signer key ${signerPublicKey()}.`) +
      (publicKey ? ` Embedded public key: ${publicKey}.` : "");
    note.hidden = false;
  }

  // the protocol: a MessageChannel port from @turnkey/iframe-stamper >= 2.1, else window messages --
  /**
   * ``handlers`` maps a message type to ``async (data) => [replyType, value]``. A handler that throws
   * answers ERROR with the error's text (``Error: ...``, as the real frames do) and shows it in the page.
   * ``announce(data)`` makes the embedded key if needed and returns the public key PUBLIC_KEY_READY carries
   * (``data``: the parent's TURNKEY_INIT_MESSAGE_CHANNEL message, with dangerouslyOverrideIframeKeyTtl).
   */
  function serve({ handlers, announce }) {
    let port = null;

    function sendUp(type, value, requestId) {
      // the page says which key it announced, and that the parent's settings are applied, for a person
      // (and a browser test) to see how far the parent has set it up: react-wallet-kit's modals use their
      // frame only after its applySettings is answered (a click before that exports to no key, or imports with no frame)
      if (type === "PUBLIC_KEY_READY" && value) document.body.dataset.publicKey = value;
      if (type === "SETTINGS_APPLIED") document.body.dataset.settingsApplied = "true";
      const message = { type, value };
      if (requestId) message.requestId = requestId;
      if (port) port.postMessage(message);
      else if (window.parent !== window) window.parent.postMessage({ type, value }, "*");
    }

    async function onMessage(event) {
      const data = event.data || {};
      const handler = handlers[data.type];
      if (!handler) {
        if (typeof data.type === "string" && data.type !== "TURNKEY_INIT_MESSAGE_CHANNEL" && data.requestId) {
          // the real frames ignore unknown types and the parent waits forever; answering is kinder
          sendUp("ERROR", `Error: unsupported message type ${data.type} (the simulator's ${document.body.dataset.frame} frame)`, data.requestId);
        }
        return;
      }
      try {
        clearError();
        const [type, value] = await handler(data);
        sendUp(type, value, data.requestId);
      } catch (e) {
        const text = e instanceof Error ? e.toString() : String(e);
        showError(text);
        sendUp("ERROR", text, data.requestId);
      }
    }

    const legacy = new AbortController();
    let established = false;
    window.addEventListener(
      "message",
      async (event) => {
        const data = event.data || {};
        if (data.type === "TURNKEY_INIT_MESSAGE_CHANNEL" && event.ports && event.ports[0]) {
          if (established) return; // one parent, one channel
          established = true;
          legacy.abort();
          port = event.ports[0];
          port.onmessage = onMessage;
          sendUp("PUBLIC_KEY_READY", await announce(data));
        }
      },
      false,
    );
    document.addEventListener("DOMContentLoaded", async () => {
      window.addEventListener("message", (event) => {
        if (!established && event.data && event.data.type !== "TURNKEY_INIT_MESSAGE_CHANNEL") onMessage(event);
      }, { signal: legacy.signal });
      if (!established) {
        const publicKey = await announce({});
        sendUp("PUBLIC_KEY_READY", publicKey);
        if (window.parent === window) explainStandalone(publicKey);
      }
    });
    return { sendUp };
  }

  window.SimFrame = {
    concat, fromHex, toHex, base58Encode, base58Decode, base58CheckEncode, base58CheckDecode,
    base64urlEncode, base64urlDecode, bech32Encode, bech32Decode, uncompress, compress, rawToDer,
    p256PrivateJwk, publicOfJwk, ed25519PublicKey, hpkeOpen, hpkeSeal, verifiedBundleData, expectField,
    embeddedKeyStore, showError, clearError, validStyles, applyStyles, serve,
  };
})();
