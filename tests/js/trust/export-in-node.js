// Shaped like Turnkey's examples/export-in-node, and like it with no signer override: create a
// wallet, export it to a fresh target key, open the bundle with @turnkey/crypto's
// decryptExportBundle. Against the simulator this works only under wallet-simulator-testing/register.
// Config from the environment as the example reads it: BASE_URL, API_PUBLIC_KEY, API_PRIVATE_KEY,
// ORGANIZATION_ID. Prints {"address", "mnemonic"}, or {"error"} when @turnkey/crypto refuses.
const { Turnkey } = require("@turnkey/sdk-server");
const { generateP256KeyPair, decryptExportBundle } = require("@turnkey/crypto");

async function main() {
  const organizationId = process.env.ORGANIZATION_ID;
  const api = new Turnkey({ apiBaseUrl: process.env.BASE_URL, apiPublicKey: process.env.API_PUBLIC_KEY,
                            apiPrivateKey: process.env.API_PRIVATE_KEY, defaultOrganizationId: organizationId }).apiClient();
  const wallet = await api.createWallet({ walletName: `export in node ${Date.now()}`, accounts: [{
    curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
  const target = generateP256KeyPair();
  const { exportBundle } = await api.exportWallet({ walletId: wallet.walletId, targetPublicKey: target.publicKeyUncompressed });
  try {
    const mnemonic = await decryptExportBundle({ exportBundle, embeddedKey: target.privateKey, organizationId, returnMnemonic: true });
    console.log(JSON.stringify({ address: wallet.addresses[0], mnemonic }));
  } catch (e) {
    console.log(JSON.stringify({ error: e.message }));
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
