// Shaped like Turnkey's examples/import-in-node, with no signer override: init_import_wallet,
// seal the mnemonic with @turnkey/crypto's encryptWalletToBundle, import_wallet, then sign with
// the imported wallet. Config from the environment: BASE_URL, API_PUBLIC_KEY, API_PRIVATE_KEY,
// ORGANIZATION_ID, USER_ID, and MNEMONIC and PAYLOAD (hex) for the test. Prints {"address",
// "signature"}, or {"error"} when @turnkey/crypto refuses the import bundle.
const { Turnkey } = require("@turnkey/sdk-server");
const { encryptWalletToBundle } = require("@turnkey/crypto");

async function main() {
  const organizationId = process.env.ORGANIZATION_ID;
  const userId = process.env.USER_ID;
  const api = new Turnkey({ apiBaseUrl: process.env.BASE_URL, apiPublicKey: process.env.API_PUBLIC_KEY,
                            apiPrivateKey: process.env.API_PRIVATE_KEY, defaultOrganizationId: organizationId }).apiClient();
  const { importBundle } = await api.initImportWallet({ userId });
  let encryptedBundle;
  try {
    encryptedBundle = await encryptWalletToBundle({ mnemonic: process.env.MNEMONIC, importBundle, userId, organizationId });
  } catch (e) {
    console.log(JSON.stringify({ error: e.message }));
    return;
  }
  const wallet = await api.importWallet({ userId, walletName: `import in node ${Date.now()}`, encryptedBundle, accounts: [{
    curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
  const signature = await api.signRawPayload({ signWith: wallet.addresses[0], payload: process.env.PAYLOAD,
                                               encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" });
  console.log(JSON.stringify({ address: wallet.addresses[0], signature }));
}

main().catch((e) => { console.error(e); process.exit(1); });
