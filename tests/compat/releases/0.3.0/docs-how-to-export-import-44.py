from simulator.testing import ApiKeyStamper, ClientKeyPair, SimulatorClient, decrypt_export_bundle

ORG = "5f1c0c5e-0000-4000-8000-00000000a001"
client = SimulatorClient("http://127.0.0.1:8080",
                         ApiKeyStamper("b02b91437e30e7c99682f43dfef819be237b9afba4d7131ac9f087daebb34992"), ORG)
made = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "py export", "accounts": []})
wallet_id = made.body["activity"]["result"]["createWalletResult"]["walletId"]
target = ClientKeyPair.generate()
exported = client.submit("export_wallet", "ACTIVITY_TYPE_EXPORT_WALLET",
                         {"walletId": wallet_id, "targetPublicKey": target.public_key_uncompressed})
bundle = exported.body["activity"]["result"]["exportWalletResult"]["exportBundle"]
mnemonic = decrypt_export_bundle(bundle, target.private_key, ORG, return_mnemonic=True)
assert len(mnemonic.split()) == 12
