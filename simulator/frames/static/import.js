// The import frame: takes the mnemonic or private key the user types or pastes, and hands back
// only its encryption to the import bundle's target key ({"encappedPublic", "ciphertext"}).
"use strict";

(function () {
  const F = window.SimFrame;
  let target = null; // the uncompressed target key of the injected import bundle (memory only)
  const plaintext = () => document.getElementById("plaintext");
  const passphrase = () => document.getElementById("passphrase");

  async function decodeKey(text, keyFormat) {
    switch (keyFormat) {
      case "SOLANA": {
        const bytes = F.base58Decode(text);
        if (bytes.length !== 64) throw new Error(`invalid key length. Expected 64 bytes. Got ${bytes.length}.`);
        return bytes.slice(0, 32);
      }
      case "BITCOIN_MAINNET_WIF":
      case "BITCOIN_TESTNET_WIF": {
        const payload = await F.base58CheckDecode(text);
        const [version, mainnet] = [payload[0], keyFormat === "BITCOIN_MAINNET_WIF"];
        if (version !== (mainnet ? 0x80 : 0xef)) {
          throw new Error(`invalid WIF version byte: ${version}. Expected ${mainnet ? "0x80 (mainnet)" : "0xEF (testnet)"}.`);
        }
        const rest = payload.slice(1);
        if (rest.length === 32) throw new Error("uncompressed WIF keys not supported");
        if (rest.length !== 33 || rest[32] !== 0x01) throw new Error("invalid WIF format: expected compressed private key");
        return rest.slice(0, 32);
      }
      case "SUI_BECH32": {
        const { hrp, bytes } = F.bech32Decode(text);
        if (hrp !== "suiprivkey") throw new Error('invalid SUI private key human-readable part (HRP): expected "suiprivkey"');
        if (bytes.length !== 33 || bytes[0] !== 0x00) throw new Error("invalid SUI private key: expected an Ed25519 key (flag 0x00) of 32 bytes");
        return bytes.slice(1);
      }
      default: // HEXADECIMAL, the default
        return F.fromHex(text.startsWith("0x") ? text.slice(2) : text);
    }
  }

  function takeTarget() {
    if (target === null) throw new Error("no target key found");
    const key = target;
    target = null; // one encryption per import bundle, as the real frame
    return key;
  }

  F.serve({
    async announce() {
      return ""; // the import frame has no embedded key: it encrypts to the bundle's target
    },
    handlers: {
      async INJECT_IMPORT_BUNDLE(data) {
        const signed = await F.verifiedBundleData(data.value);
        F.expectField(signed, "organizationId", "organization id", data.organizationId);
        F.expectField(signed, "userId", "user id", data.userId);
        if (!signed.targetPublic) throw new Error('missing "targetPublic" in bundle signed data');
        const raw = F.fromHex(signed.targetPublic);
        target = raw.length === 33 ? F.uncompress(raw) : raw;
        return ["BUNDLE_INJECTED", true];
      },
      async EXTRACT_WALLET_ENCRYPTED_BUNDLE() {
        if (target === null) throw new Error("no target key found");
        const words = plaintext().value.trim();
        if (!words) throw new Error("no wallet mnemonic entered");
        if (words.includes("\n--PASS--\n")) throw new Error('mnemonic cannot include the string "\\n--PASS--\\n"');
        if (words.includes("\n")) throw new Error("mnemonic cannot include newline characters");
        const pass = passphrase().value;
        const combined = pass === "" ? words : `${words}\n--PASS--\n${pass}`;
        return ["ENCRYPTED_BUNDLE_EXTRACTED", await F.hpkeSeal(new TextEncoder().encode(combined), takeTarget())];
      },
      async EXTRACT_KEY_ENCRYPTED_BUNDLE(data) {
        if (target === null) throw new Error("no target key found");
        const text = plaintext().value.trim();
        if (!text) throw new Error("no private key entered");
        const bytes = await decodeKey(text, data.keyFormat);
        return ["ENCRYPTED_BUNDLE_EXTRACTED", await F.hpkeSeal(bytes, takeTarget())];
      },
      async APPLY_SETTINGS(data) {
        const settings = JSON.parse(data.value);
        const on = settings.enablePassphrase === true;
        for (const id of ["passphrase-label", "mnemonic-label"]) document.getElementById(id).style.display = on ? "inline-block" : "none";
        passphrase().hidden = !on;
        F.applyStyles(plaintext(), F.validStyles(settings.styles));
        return ["SETTINGS_APPLIED", true];
      },
    },
  });

  document.addEventListener("DOMContentLoaded", () => {
    // as the real frame: what was pasted does not stay on the clipboard (when the parent allows clipboard-write)
    plaintext().addEventListener("paste", () => {
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText("").catch(() => {});
    });
  });
})();
