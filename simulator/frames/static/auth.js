// The auth frame: holds an embedded key, decrypts the credential bundle injected into it (e-mail
// auth, recovery, OTP, OAuth) and stamps requests with that credential (X-Stamp, API-key scheme).
// The credential stays in memory only, as in the real frame.
"use strict";

(function () {
  const F = window.SimFrame;
  const TTL_MS = 48 * 60 * 60 * 1000;
  const embedded = F.embeddedKeyStore("auth", TTL_MS);
  let credential = null;

  function status(text) {
    document.getElementById("status").textContent = text;
  }

  /** base58check (current) or base64url (older bundles): 33-byte compressed sender key || ciphertext. */
  async function bundleBytes(bundle) {
    if (typeof bundle !== "string" || !bundle) throw new Error("missing credential bundle");
    const base58 = !/[-_OIl0]/.test(bundle);
    return base58 ? F.base58CheckDecode(bundle) : F.base64urlDecode(bundle);
  }

  async function signingKey() {
    const jwk = await F.p256PrivateJwk(credential);
    const key = await crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
    return { key, publicKey: F.compress(await F.publicOfJwk(jwk)) };
  }

  async function inject(data) {
    const bytes = await bundleBytes(data.value);
    if (bytes.length <= 33) {
      throw new Error(`bundle size ${bytes.length} is too low. Expecting a compressed public key (33 bytes) and an encrypted credential`);
    }
    const receiver = embedded.get();
    if (!receiver) throw new Error("no embedded key found: initialize one (INIT_EMBEDDED_KEY) and encrypt the credential to it");
    credential = await F.hpkeOpen(bytes.slice(33), F.uncompress(bytes.slice(0, 33)), receiver);
    const { publicKey } = await signingKey();
    status(`Credential ${F.toHex(publicKey)} injected.`);
    return ["BUNDLE_INJECTED", true];
  }

  F.serve({
    announce: embedded.announce,
    handlers: {
      INJECT_CREDENTIAL_BUNDLE: inject,
      INJECT_RECOVERY_BUNDLE: inject, // the older name
      async STAMP_REQUEST(data) {
        if (credential === null) {
          throw new Error("cannot sign payload without credential. Credential bytes are null. Has a credential bundle been injected into the iframe?");
        }
        const { key, publicKey } = await signingKey();
        const raw = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, new TextEncoder().encode(data.value)));
        const stamp = { publicKey: F.toHex(publicKey), scheme: "SIGNATURE_SCHEME_TK_API_P256", signature: F.toHex(F.rawToDer(raw)) };
        return ["STAMP", F.base64urlEncode(new TextEncoder().encode(JSON.stringify(stamp)))];
      },
      ...embedded.handlers(() => {
        credential = null;
        status("No credential injected.");
      }),
    },
  });
})();
