from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig
from turnkey_http import TurnkeyClient
import turnkey_sdk_types as T

stamper = ApiKeyStamper(ApiKeyStamperConfig(
    api_public_key="02321b31e86db8b83121f9b7f7e13544d8796ff158125bec4e6493e717f75a5762",
    api_private_key="b02b91437e30e7c99682f43dfef819be237b9afba4d7131ac9f087daebb34992"))
client = TurnkeyClient(base_url="http://127.0.0.1:8080", stamper=stamper,
                       organization_id="5f1c0c5e-0000-4000-8000-00000000a001")
wallet = client.create_wallet(T.CreateWalletBody(walletName="demo", accounts=[T.v1WalletAccountParams(
    curve="CURVE_SECP256K1", pathFormat="PATH_FORMAT_BIP32", path="m/44'/60'/0'/0/0",
    addressFormat="ADDRESS_FORMAT_ETHEREUM")]))
print(wallet.walletId, wallet.addresses)
