require("wallet-simulator-testing/register");  // or: node --require wallet-simulator-testing/register
const { Turnkey } = require("@turnkey/sdk-server");
const { decryptExportBundle, generateP256KeyPair } = require("@turnkey/crypto");

const ORG = "5f1c0c5e-0000-4000-8000-00000000a001";

async function main() {
  const api = new Turnkey({
    apiBaseUrl: "http://127.0.0.1:8080", defaultOrganizationId: ORG,
    apiPublicKey: "02321b31e86db8b83121f9b7f7e13544d8796ff158125bec4e6493e717f75a5762",
    apiPrivateKey: "b02b91437e30e7c99682f43dfef819be237b9afba4d7131ac9f087daebb34992",
  }).apiClient();
  const { walletId } = await api.createWallet({ walletName: "to export", accounts: [] });
  const target = generateP256KeyPair();
  const { exportBundle } = await api.exportWallet({ walletId, targetPublicKey: target.publicKeyUncompressed });
  const mnemonic = await decryptExportBundle({   // no override: the preload made it trust the simulator
    exportBundle, embeddedKey: target.privateKey, organizationId: ORG, returnMnemonic: true,
  });
  console.log(mnemonic.split(" ").length, "words");
}
main().catch((e) => { console.error(e); process.exit(1); });
