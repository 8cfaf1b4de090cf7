// import-in-node.js as an ES module: @turnkey/crypto's ESM build (dist/*.mjs) is what loads.
import { Turnkey } from "@turnkey/sdk-server";
import { encryptWalletToBundle } from "@turnkey/crypto";

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
  process.exit(0);
}
const wallet = await api.importWallet({ userId, walletName: `import in node (esm) ${Date.now()}`, encryptedBundle, accounts: [{
  curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
const signature = await api.signRawPayload({ signWith: wallet.addresses[0], payload: process.env.PAYLOAD,
                                             encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" });
console.log(JSON.stringify({ address: wallet.addresses[0], signature }));
