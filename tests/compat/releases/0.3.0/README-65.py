import turnkey_sdk_types as T


def test_my_wallet_code(turnkey_client, simulator):
    made = turnkey_client.create_wallet(T.CreateWalletBody(walletName="w", accounts=[]))
    assert made.activity.status == "ACTIVITY_STATUS_COMPLETED"
    simulator.journal.assert_called("create_wallet", walletName="w")
