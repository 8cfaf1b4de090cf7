import pytest
import turnkey_sdk_types as T


def test_my_wallet_code(turnkey_client, simulator):
    made = turnkey_client.create_wallet(T.CreateWalletBody(walletName="w", accounts=[]))
    assert made.activity.status == "ACTIVITY_STATUS_COMPLETED"
    simulator.journal.assert_called("create_wallet", walletName="w")
    simulator.clock.advance(3600)   # move simulated time


@pytest.mark.simulator_scenario("two_of_three_quorum")   # a shipped scenario, by name
def test_needs_a_cosigner(simulator_user, simulator):
    activity = simulator_user("Root User").submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET",
                                                  {"walletName": "w", "accounts": []}).body["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    assert simulator.approve(activity["id"], "Bob")["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_otp(simulator_client, simulator_outbox):
    simulator_client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                            {"otpType": "OTP_TYPE_EMAIL", "contact": "a@example.com", "appName": "demo"})
    code = simulator_outbox.wait_for("a@example.com", timeout=1)   # the code itself
    assert len(code) == 9
