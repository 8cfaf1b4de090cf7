const { Turnkey } = require("@turnkey/sdk-server");

async function main() {
  const api = new Turnkey({
    apiBaseUrl: "http://127.0.0.1:8080",          // no trailing slash needed; `//` is tolerated
    apiPublicKey: "02321b31e86db8b83121f9b7f7e13544d8796ff158125bec4e6493e717f75a5762",
    apiPrivateKey: "b02b91437e30e7c99682f43dfef819be237b9afba4d7131ac9f087daebb34992",
    defaultOrganizationId: "5f1c0c5e-0000-4000-8000-00000000a001",
  }).apiClient();
  const { walletId, addresses } = await api.createWallet({ walletName: "demo", accounts: [{
    curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0",
    addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
  console.log(walletId, addresses);
}

main().catch((error) => { console.error(error); process.exit(1); });
