// A plain page with @turnkey/core 2.x's TurnkeyClient, no framework, pointed straight at the
// simulator. window.app holds the steps the test runs; export decrypts with @turnkey/crypto's
// decryptExportBundle and no dangerouslyOverrideSignerPublicKey: the bundler plugin that trusts
// the simulator's signing keys is what lets it through.
import { TurnkeyClient } from "@turnkey/core";
import { decryptExportBundle, generateP256KeyPair } from "@turnkey/crypto";
import { simulator } from "./config.js";

const client = new TurnkeyClient({
  apiBaseUrl: simulator.url,
  authProxyUrl: simulator.proxyUrl,
  authProxyConfigId: simulator.configId,
  organizationId: simulator.organizationId,
});

function show(text) {
  document.getElementById("state").textContent = text;
}

window.app = {
  async init() {
    await client.init();
    show("ready");
    return client.getProxyAuthConfig();
  },
  async otpLogin(contact, codeFor) {
    const { otpId, otpEncryptionTargetBundle } = await client.initOtp({ otpType: "OTP_TYPE_EMAIL", contact });
    const otpCode = await codeFor(contact);
    const done = await client.completeOtp({ otpId, otpCode, otpEncryptionTargetBundle, contact, otpType: "OTP_TYPE_EMAIL" });
    const session = await client.getSession();
    show(`signed in ${session.organizationId}`);
    return { action: done.action, organizationId: session.organizationId, userId: session.userId };
  },
  async createAndSign(message) {
    const walletId = await client.createWallet({ walletName: `webapp ${Date.now()}`, accounts: ["ADDRESS_FORMAT_ETHEREUM"] });
    const wallet = (await client.fetchWallets()).find((w) => w.walletId === walletId);
    const account = wallet.accounts.find((a) => a.addressFormat === "ADDRESS_FORMAT_ETHEREUM");
    const signed = await client.signMessage({ walletAccount: account, message, addEthereumPrefix: true });
    return { walletId, address: account.address, signature: signed };
  },
  async exportWallet(walletId) {
    const target = generateP256KeyPair();
    const exportBundle = await client.exportWallet({ walletId, targetPublicKey: target.publicKeyUncompressed });
    const session = await client.getSession();
    const mnemonic = await decryptExportBundle({ exportBundle, embeddedKey: target.privateKey,
                                                 organizationId: session.organizationId, returnMnemonic: true });
    return { mnemonic };
  },
};
show("loaded");
