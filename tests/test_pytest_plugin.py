"""The plugin as a downstream suite uses it (pytester), in one process and under xdist."""

from __future__ import annotations

from conftest import SCENARIOS

DOWNSTREAM = """
import pytest

ETH = {"curve": "CURVE_SECP256K1", "pathFormat": "PATH_FORMAT_BIP32", "path": "m/44'/60'/0'/0/0",
       "addressFormat": "ADDRESS_FORMAT_ETHEREUM"}


def test_creates_a_wallet(simulator_client):
    reply = simulator_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH]})
    assert reply.status == 200


def test_state_does_not_leak_between_tests(simulator_client):
    assert simulator_client.query("list_wallets").body == {"wallets": []}


def test_in_process_transport(simulator_app_client):
    assert simulator_app_client.query("whoami").body["username"] == "Root User"


@pytest.mark.simulator_scenario("QUORUM")
def test_a_marked_scenario_and_a_named_user(simulator_user, simulator):
    bob = simulator_user("Bob")
    activity = simulator_user("Root User").submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET",
                                                 {"walletName": "w", "accounts": []}).body["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    done = bob.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": activity["fingerprint"]})
    assert done.body["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_back_to_the_default_after_a_marked_test(simulator_client):
    assert simulator_client.query("get_organization_configs").body["configs"]["quorum"]["threshold"] == 1


def test_outbox(simulator_client, simulator_outbox):
    simulator_client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                            {"otpType": "OTP_TYPE_EMAIL", "contact": "a@example.com", "appName": "x"})
    assert len(simulator_outbox.wait_for("a@example.com", timeout=1)) == 9


def test_official_client(turnkey_client):
    assert turnkey_client.get_whoami().username == "Root User"
"""


def downstream(pytester):
    pytester.makepyfile(test_downstream=DOWNSTREAM.replace("QUORUM", str(SCENARIOS / "two_of_three_quorum.yaml")))


def test_a_downstream_suite_uses_the_fixtures(pytester):
    downstream(pytester)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=7)


def test_the_plugin_under_xdist(pytester):
    downstream(pytester)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-n", "2")
    result.assert_outcomes(passed=7)


def test_a_crash_in_the_simulator_fails_the_test_that_caused_it(pytester):
    pytester.makepyfile(
        test_crash="""
def test_boom(simulator):
    simulator.simulator.crashes.append({"traceback": "Traceback: simulated internal error"})
"""
    )
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*the simulator failed internally*", "*simulated internal error*"])
