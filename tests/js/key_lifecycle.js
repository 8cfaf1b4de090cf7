// The key lifecycle with the official clients, unmodified: @turnkey/sdk-server makes the calls and
// @turnkey/crypto opens the export bundles and seals the import bundles, trusting the simulator's
// signer key through its documented override (dangerouslyOverrideSignerPublicKey).
// Usage: node key_lifecycle.js '{"url", "organizationId", "userId", "apiPublicKey", "apiPrivateKey",
//                                "signer", "mnemonic", "privateKey"}'
// Prints one JSON object with what came back; the Python test checks it with independent libraries.
const { Turnkey } = require("@turnkey/sdk-server");
const {
  decryptExportBundle, encryptPrivateKeyToBundle, encryptWalletToBundle, generateP256KeyPair,
} = require("@turnkey/crypto");

const given = JSON.parse(process.argv[2]);
const ETH = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0",
              addressFormat: "ADDRESS_FORMAT_ETHEREUM" };
const SOL = { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'",
              addressFormat: "ADDRESS_FORMAT_SOLANA" };
const org = given.organizationId;
const trust = { organizationId: org, dangerouslyOverrideSignerPublicKey: given.signer };

async function exported(api, out) {
  const wallet = await api.createWallet({ walletName: "js export", accounts: [ETH, SOL] });
  const target = generateP256KeyPair();
  const bundle = (await api.exportWallet({ walletId: wallet.walletId,
                                           targetPublicKey: target.publicKeyUncompressed })).exportBundle;
  out.wallet = wallet.addresses;
  out.mnemonic = await decryptExportBundle({ ...trust, exportBundle: bundle, embeddedKey: target.privateKey,
                                             returnMnemonic: true });
  try {
    await decryptExportBundle({ exportBundle: bundle, embeddedKey: target.privateKey, organizationId: org,
                                returnMnemonic: true });
  } catch (e) {
    out.withoutOverride = e.message;
  }
  const account = await api.exportWalletAccount({ address: wallet.addresses[1], targetPublicKey: target.publicKey });
  out.solanaKeypair = await decryptExportBundle({ ...trust, exportBundle: account.exportBundle,
                                                  embeddedKey: target.privateKey, keyFormat: "SOLANA" });
  out.walletExported = (await api.getWallet({ walletId: wallet.walletId })).wallet.exported;
  out.deleted = (await api.deleteWallets({ walletIds: [wallet.walletId] })).walletIds;
}

async function imported(api, out) {
  const keyInit = await api.initImportPrivateKey({ userId: given.userId });
  const sealedKey = await encryptPrivateKeyToBundle({ ...trust, privateKey: given.privateKey, keyFormat: "HEXADECIMAL",
                                                      importBundle: keyInit.importBundle, userId: given.userId });
  const key = await api.importPrivateKey({ userId: given.userId, privateKeyName: "js import", encryptedBundle: sealedKey,
                                           curve: "CURVE_SECP256K1", addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] });
  out.importedKey = key.addresses;
  out.signature = await api.signRawPayload({ signWith: key.privateKeyId, payload: given.payload,
                                             encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
                                             hashFunction: "HASH_FUNCTION_KECCAK256" });
  const walletInit = await api.initImportWallet({ userId: given.userId });
  const sealedWallet = await encryptWalletToBundle({ ...trust, mnemonic: given.mnemonic,
                                                     importBundle: walletInit.importBundle, userId: given.userId });
  const wallet = await api.importWallet({ userId: given.userId, walletName: "js import", encryptedBundle: sealedWallet,
                                          accounts: [ETH] });
  out.importedWallet = wallet.addresses;
  try {
    await api.deleteWallets({ walletIds: [wallet.walletId] });
  } catch (e) {
    out.deleteRefused = e.message;
  }
}

async function main() {
  const api = new Turnkey({ apiBaseUrl: given.url, apiPublicKey: given.apiPublicKey, apiPrivateKey: given.apiPrivateKey,
                            defaultOrganizationId: org }).apiClient();
  const out = {};
  await exported(api, out);
  await imported(api, out);
  console.log(JSON.stringify(out));
}

main().catch((e) => { console.error(e); process.exit(1); });
