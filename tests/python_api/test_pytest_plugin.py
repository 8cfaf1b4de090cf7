"""The plugin as a downstream suite uses it (pytester), in one process and under xdist."""

from __future__ import annotations

import pytest
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


NAMED = """
import pytest


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_a_shipped_scenario_by_name(simulator_client, simulator):
    assert simulator_client.query("get_organization_configs").body["configs"]["quorum"]["threshold"] == 2
    assert {c["userName"] for c in simulator.credentials} >= {"Bob", "Carol"}


@pytest.mark.simulator_scenario("scenarios/two_of_three_quorum.yaml")   # the README's old spelling
def test_the_old_spelling_names_the_shipped_file(simulator_client):
    assert simulator_client.query("get_organization_configs").body["configs"]["quorum"]["threshold"] == 2


@pytest.mark.simulator_scenario("mine.yaml")
def test_a_local_file_including_a_shipped_one(simulator_user):
    assert simulator_user("Dave").query("whoami").body["username"] == "Dave"


def test_old_and_new_attribute_spellings(simulator, simulator_client):
    simulator_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []})
    assert simulator.journal is simulator.simulator.journal
    simulator.simulator.journal.assert_called("create_wallet", walletName="w")
    simulator.journal.assert_called("create_wallet", times=1)
    # The same clock under both spellings; comparing two readings of a running clock raced a millisecond.
    assert simulator.clock is simulator.simulator.clock


@pytest.mark.simulator_scenario("no_such_scenario")
def test_an_unknown_name(simulator):
    pass
"""


def test_the_marker_takes_shipped_names_old_paths_and_local_files(pytester):
    pytester.makepyfile(test_named=NAMED)
    (pytester.path / "mine.yaml").write_text("include: [policy_deny]\n")
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, errors=1)
    result.stdout.fnmatch_lines(
        ["*simulator_scenario: no_such_scenario: cannot read scenario file*shipped scenarios: *"]
    )
    assert "Traceback" not in result.stdout.str()


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


ON_GRANIAN = """
def test_the_session_simulator_runs_on_granian(simulator_server, simulator_client):
    assert simulator_server.simulator.config.server == "granian"
    made = simulator_client.submit(
        "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "on-granian", "accounts": []}
    )
    assert made.status == 200, made.body
    assert simulator_client.query("list_wallets").body["wallets"][-1]["walletName"] == "on-granian"
"""


def test_the_ini_option_simulator_transport_runs_the_session_simulator_on_granian(pytester):
    pytest.importorskip("granian", reason="granian is not installed: pip install 'wallet-simulator[granian]'")
    pytester.makeini("[pytest]\nsimulator_transport = granian\n")
    pytester.makepyfile(test_on_granian=ON_GRANIAN)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_an_unknown_simulator_transport_names_the_choices(pytester):
    pytester.makeini("[pytest]\nsimulator_transport = gunicorn\n")
    pytester.makepyfile(test_on_granian=ON_GRANIAN)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*server must be 'waitress' or 'granian', got 'gunicorn'*"])


IMPORT_FOR_ANOTHER_USER = """
def test_an_import_for_another_user(simulator_client):
    params = {"users": [{"userName": "Bob", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}]}
    made = simulator_client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", params)
    bob = made.body["activity"]["result"]["createUsersResult"]["userIds"][0]
    answer = simulator_client.submit("init_import_wallet", "ACTIVITY_TYPE_INIT_IMPORT_WALLET", {"userId": bob})
    assert answer.status == EXPECTED, answer.body
"""


@pytest.mark.parametrize("lenient, status", [(True, 200), (False, 403)])
def test_the_ini_option_simulator_lenient_documented_rules_turns_the_rules_off(pytester, lenient, status):
    """organizations.mdx: imports target your own user; the ini option restores 0.2.0's behaviour."""
    pytester.makeini(f"[pytest]\nsimulator_lenient_documented_rules = {str(lenient).lower()}\n")
    pytester.makepyfile(test_import=IMPORT_FOR_ANOTHER_USER.replace("EXPECTED", str(status)))
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


SEEDED = """
import os

from simulator.faults import drawn

SEED = int(os.environ["EXPECTED_SEED"])


def test_the_session_simulator_has_the_seed_and_its_faults_hit_what_it_draws(simulator_server, simulator, simulator_client):
    assert simulator_server.simulator.source.seed == SEED
    with simulator.fault("unavailable", name="flaky", match={"operation": "whoami"}, probability=0.5):
        hit = [simulator_client.query("whoami").status == 500 for _ in range(8)]
    # which matches a fault's probability hits is drawn from the seed, per fault and per match
    assert hit == [drawn(SEED, "flaky", n, 0.5) for n in range(1, 9)]
"""


def test_the_seed_of_the_session_simulator_is_an_ini_option_and_a_command_line_option(pytester, monkeypatch):
    pytester.makeini("[pytest]\nsimulator_seed = 41\n")
    pytester.makepyfile(test_seeded=SEEDED)
    monkeypatch.setenv("EXPECTED_SEED", "41")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["wallet-simulator seed: 41"])
    monkeypatch.setenv("EXPECTED_SEED", "7")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--simulator-seed", "7")
    result.assert_outcomes(passed=1)  # the command line's seed wins over the ini's
    pytester.makeini("[pytest]\nsimulator_seed = many\n")
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*simulator_seed must be an integer, got 'many'*"])
