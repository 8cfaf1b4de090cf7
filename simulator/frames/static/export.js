// The export frame: decrypts an export bundle with the embedded key (which never leaves this page)
// and shows the mnemonic or the private key in the format the parent asked for.
"use strict";

(function () {
  const F = window.SimFrame;
  const TTL_MS = 48 * 60 * 60 * 1000; // the real frames' embedded-key lifetime
  const embedded = F.embeddedKeyStore("export", TTL_MS);
  const SETTINGS = "wallet-simulator:export:settings";
  const keyDiv = () => document.getElementById("key-div");

  /** The bundle's plaintext: signature, organization, then HPKE with the embedded key. */
  async function decrypt(bundle, organizationId) {
    const signed = await F.verifiedBundleData(bundle);
    F.expectField(signed, "organizationId", "organization id", organizationId);
    if (!signed.encappedPublic) throw new Error('missing "encappedPublic" in bundle signed data');
    if (!signed.ciphertext) throw new Error('missing "ciphertext" in bundle signed data');
    const receiver = embedded.get();
    if (!receiver) throw new Error("no embedded key found: the frame's key has expired or was reset; reload the frame");
    return F.hpkeOpen(F.fromHex(signed.ciphertext), F.fromHex(signed.encappedPublic), receiver);
  }

  /** Raw key bytes in the formats the real frame offers. */
  async function encodeKey(bytes, keyFormat) {
    const need32 = () => {
      if (bytes.length !== 32) throw new Error(`invalid private key length. Expected 32 bytes. Got ${bytes.length}.`);
    };
    switch (keyFormat) {
      case "SOLANA": {
        need32();
        return F.base58Encode(F.concat(bytes, await F.ed25519PublicKey(bytes))); // Phantom/Solflare keypair
      }
      case "BITCOIN_MAINNET_WIF":
      case "BITCOIN_TESTNET_WIF":
        need32();
        return F.base58CheckEncode(F.concat([keyFormat === "BITCOIN_MAINNET_WIF" ? 0x80 : 0xef], bytes, [0x01]));
      case "SUI_BECH32":
        need32();
        return F.bech32Encode("suiprivkey", F.concat([0x00], bytes)); // flag 0: Ed25519
      case "HEXADECIMAL":
      case undefined:
      case null:
      case "":
        return "0x" + F.toHex(bytes);
      default:
        console.warn(`invalid key format: ${keyFormat}. Defaulting to HEXADECIMAL.`);
        return "0x" + F.toHex(bytes);
    }
  }

  function display(text) {
    for (const child of Array.from(document.body.children)) {
      if (child.tagName !== "SCRIPT" && child.id !== "key-div" && child.id !== "frame-error") child.hidden = true;
    }
    keyDiv().textContent = text;
    applySaved();
  }

  function applySaved() {
    try {
      const saved = JSON.parse(window.localStorage.getItem(SETTINGS) || "null");
      if (saved && saved.styles) F.applyStyles(keyDiv(), saved.styles);
    } catch (e) {
      /* nothing saved, or storage blocked */
    }
  }

  F.serve({
    announce: embedded.announce,
    handlers: {
      async INJECT_KEY_EXPORT_BUNDLE(data) {
        const bytes = await decrypt(data.value, data.organizationId);
        embedded.clear(); // one bundle per key, as the real frame
        display(await encodeKey(bytes, data.keyFormat));
        return ["BUNDLE_INJECTED", true];
      },
      async INJECT_WALLET_EXPORT_BUNDLE(data) {
        const bytes = await decrypt(data.value, data.organizationId);
        embedded.clear();
        // a wallet bundle holds the mnemonic, then an optional "\n" and passphrase: only the words are shown
        display(new TextDecoder().decode(bytes).split("\n")[0]);
        return ["BUNDLE_INJECTED", true];
      },
      async APPLY_SETTINGS(data) {
        const settings = JSON.parse(data.value);
        const styles = F.validStyles(settings.styles);
        F.applyStyles(keyDiv(), styles);
        try {
          window.localStorage.setItem(SETTINGS, JSON.stringify({ styles }));
        } catch (e) {
          /* storage blocked: applied for this page only */
        }
        return ["SETTINGS_APPLIED", true];
      },
      ...embedded.handlers(),
    },
  });
  applySaved();
})();
