import time

import turnkey_sdk_types as T
from turnkey_sdk_types import TurnkeyNetworkError


def create_wallet_with_retries(client, name, attempts=3):
    # one body for every attempt: the same timestampMs makes the retry the same request
    body = T.CreateWalletBody(walletName=name, accounts=[], timestampMs=str(int(time.time() * 1000)))
    for tries in range(1, attempts + 1):
        try:
            return client.create_wallet(body)
        except TurnkeyNetworkError as error:
            transient = error.status_code is None or error.status_code >= 500
            if not transient or tries == attempts:
                raise


def test_a_lost_answer_makes_one_wallet(turnkey_client, simulator):
    with simulator.fault("lostAnswer", match={"operation": "create_wallet"}, times=1):
        made = create_wallet_with_retries(turnkey_client, "payouts")
    assert made.activity.status == "ACTIVITY_STATUS_COMPLETED"
    calls = simulator.journal.assert_called("create_wallet", times=2, walletName="payouts")
    assert calls[0]["fault"]["kind"] == "lostAnswer" and "fault" not in calls[1]
    assert calls[0]["outcome"]["activityId"] == calls[1]["outcome"]["activityId"] == made.activity.id
    wallets = turnkey_client.get_wallets(T.GetWalletsBody()).wallets
    assert [w.walletName for w in wallets].count("payouts") == 1


def test_an_unavailable_service_is_retried_until_it_answers(turnkey_client, simulator):
    with simulator.fault("unavailable", match={"operation": "create_wallet"}, times=2):
        made = create_wallet_with_retries(turnkey_client, "later")
    assert made.activity.status == "ACTIVITY_STATUS_COMPLETED"
    simulator.journal.assert_called("create_wallet", times=3, walletName="later")
