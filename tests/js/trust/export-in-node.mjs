// export-in-node.js as an ES module: @turnkey/crypto's ESM build (dist/*.mjs) is what loads.
import { Turnkey } from "@turnkey/sdk-server";
import { generateP256KeyPair, decryptExportBundle } from "@turnkey/crypto";

const organizationId = process.env.ORGANIZATION_ID;
const api = new Turnkey({ apiBaseUrl: process.env.BASE_URL, apiPublicKey: process.env.API_PUBLIC_KEY,
                          apiPrivateKey: process.env.API_PRIVATE_KEY, defaultOrganizationId: organizationId }).apiClient();
const wallet = await api.createWallet({ walletName: `export in node (esm) ${Date.now()}`, accounts: [{
  curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
const target = generateP256KeyPair();
const { exportBundle } = await api.exportWallet({ walletId: wallet.walletId, targetPublicKey: target.publicKeyUncompressed });
try {
  const mnemonic = await decryptExportBundle({ exportBundle, embeddedKey: target.privateKey, organizationId, returnMnemonic: true });
  console.log(JSON.stringify({ address: wallet.addresses[0], mnemonic }));
} catch (e) {
  console.log(JSON.stringify({ error: e.message }));
}
