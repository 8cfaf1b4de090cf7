"""E-mail reachability (issue 52): an address whose domain cannot receive mail (RFC 2606 / 6761 names such as
``.test`` and ``.example``) is accepted with a warning by default, as release 0.2.0 accepted it, and refused with
the service's "could not reach email" only in the strictest reading (serve --strict-email, Config.strict_email,
the pytest plugin's simulator_strict_email, a scenario's strictEmail: true). The syntax is always checked."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from conftest import DEFAULTS

from simulator import Config
from simulator.cli import config_from, parser
from simulator.server import SimulatorServer
from simulator.testing import ApiKeyStamper, SimulatorClient

T = pytest.importorskip("turnkey_sdk_types")

STRICT = "include: [default]\nstrictEmail: true\n"
ADDRESSES = ["alice@mail.test", "bob@shop.example"]


def user(name: str, email: str) -> Any:
    return T.v1UserParamsV3(
        userName=name, userEmail=email, apiKeys=[], authenticators=[], oauthProviders=[], userTags=[]
    )


def root_user(email: str) -> Any:
    return T.v1RootUserParamsV4(userName="Carol", userEmail=email, apiKeys=[], authenticators=[], oauthProviders=[])


def sub_organization(email: str) -> Any:
    return T.CreateSubOrganizationBody(
        subOrganizationName="carol's org", rootUsers=[root_user(email)], rootQuorumThreshold=1
    )


def strict(simulator: SimulatorServer, tmp_path: Path) -> None:
    path = tmp_path / "strict_email.yaml"
    path.write_text(STRICT)
    simulator.simulator.use_scenarios([path])


def test_a_suite_written_for_0_2_0_passes_and_each_address_is_warned_about(
    turnkey_client, simulator, simulator_control, caplog
):
    caplog.set_level(logging.WARNING, logger="simulator")
    made = turnkey_client.create_users(T.CreateUsersBody(users=[user(f"u{i}", a) for i, a in enumerate(ADDRESSES)]))
    assert made.activity.status == "ACTIVITY_STATUS_COMPLETED"
    alice = made.activity.result.createUsersResult.userIds[0]
    assert turnkey_client.get_user(T.GetUserBody(userId=alice)).user.userEmail == "alice@mail.test"
    child = turnkey_client.create_sub_organization(sub_organization("carol@corp.example"))
    assert child.activity.status == "ACTIVITY_STATUS_COMPLETED"
    moved = turnkey_client.update_user_email(T.UpdateUserEmailBody(userId=alice, userEmail="alice@new.test"))
    assert moved.activity.status == "ACTIVITY_STATUS_COMPLETED"
    renamed = turnkey_client.update_user(T.UpdateUserBody(userId=alice, userEmail="alice@old.example"))
    assert renamed.activity.status == "ACTIVITY_STATUS_COMPLETED"

    # the journal entry of each request names what it passed with (the control API's journal as the Python one)
    [created] = simulator_control.journal("create_users")
    assert created["status"] == 200 and len(created["warnings"]) == 2
    for address, warning in zip(ADDRESSES, created["warnings"], strict=True):
        assert warning.startswith(f"could not reach email: '{address}'") and "--strict-email" in warning
    [sub] = simulator.simulator.journal.entries("create_sub_organization")
    assert sub["warnings"][0].startswith("could not reach email: 'carol@corp.example'")
    [updated] = simulator.simulator.journal.entries("update_user_email")
    assert updated["warnings"][0].startswith("could not reach email: 'alice@new.test'")
    [changed] = simulator.simulator.journal.entries("update_user")
    assert changed["warnings"][0].startswith("could not reach email: 'alice@old.example'")
    # a request with nothing to warn about has no warnings key (entries keep the shape they had)
    assert all("warnings" not in e for e in simulator.simulator.journal.entries("get_user"))
    # the log line names the request and the address
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and r.name == "simulator"]
    assert any(m.startswith("submit/create_users: could not reach email: 'bob@shop.example'") for m in logged)
    assert any(m.startswith("submit/update_user_email: could not reach email: 'alice@new.test'") for m in logged)


def test_the_syntax_is_refused_whatever_the_switch(turnkey_client, simulator_control):
    before = json.dumps(simulator_control.state(), sort_keys=True)
    with pytest.raises(T.TurnkeyNetworkError) as raised:
        turnkey_client.create_users(T.CreateUsersBody(users=[user("x", "not-an-email")]))
    assert raised.value.status_code == 400 and "invalid email address" in str(raised.value)
    assert json.dumps(simulator_control.state(), sort_keys=True) == before


def test_the_strict_scenario_key_refuses_them_with_the_documented_error(
    turnkey_client, simulator, simulator_client, simulator_control, tmp_path
):
    strict(simulator, tmp_path)
    before = json.dumps(simulator_control.state(), sort_keys=True)
    calls = {
        "create_users": lambda a: turnkey_client.create_users(T.CreateUsersBody(users=[user("u", a)])),
        "create_sub_organization": lambda a: turnkey_client.create_sub_organization(sub_organization(a)),
        "update_user_email": lambda a: turnkey_client.update_user_email(
            T.UpdateUserEmailBody(userId=DEFAULTS["userId"], userEmail=a)
        ),
    }
    for name, call in calls.items():
        for address in ADDRESSES:
            with pytest.raises(T.TurnkeyNetworkError) as raised:
                call(address)
            assert raised.value.status_code == 400, name
            assert f"could not reach email: '{address}'" in str(raised.value), name
    assert json.dumps(simulator_control.state(), sort_keys=True) == before  # a refused request changes nothing
    # the answer itself: the catalogue's message first, gRPC 3, turnkeyErrorCode INVALID_FQDN
    answer = simulator_client.submit(
        "create_users",
        "ACTIVITY_TYPE_CREATE_USERS_V3",
        {"users": [{"userName": "u", "userEmail": "alice@mail.test", "apiKeys": [], "authenticators": [],
                    "oauthProviders": [], "userTags": []}]},
    )  # fmt: skip
    assert answer.status == 400 and answer.body["code"] == 3 and answer.body["turnkeyErrorCode"] == "INVALID_FQDN"
    assert answer.body["message"].startswith("could not reach email")
    # a reset keeps the scenario's reading; the default scenario again warns
    simulator_control.reset()
    assert (
        simulator_client.submit(
            "update_user_email",
            "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
            {"userId": DEFAULTS["userId"], "userEmail": "a@b.test"},
        ).status
        == 400
    )
    simulator.simulator.use_scenarios([])
    assert (
        simulator_client.submit(
            "update_user_email",
            "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
            {"userId": DEFAULTS["userId"], "userEmail": "a@b.test"},
        ).status
        == 200
    )


def test_the_python_api_and_the_serve_switch_refuse_them():
    assert config_from(parser().parse_args(["serve", "--strict-email"])).strict_email is True
    assert config_from(parser().parse_args(["serve"])).strict_email is False
    with SimulatorServer(config=Config(strict_email=True)) as server:
        client = SimulatorClient(server.url, ApiKeyStamper(DEFAULTS["apiPrivateKey"]), DEFAULTS["organizationId"])
        params = {"userId": DEFAULTS["userId"], "userEmail": "alice@printer.local"}
        answer = client.submit("update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", params)
        assert answer.status == 400 and answer.body["turnkeyErrorCode"] == "INVALID_FQDN", answer.body
        server.simulator.reset()  # the switch outlives a reset
        assert client.submit("update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", params).status == 400


SUITE = """
import pytest
import turnkey_sdk_types as T

def users(email):
    return T.CreateUsersBody(users=[T.v1UserParamsV3(
        userName="u", userEmail=email, apiKeys=[], authenticators=[], oauthProviders=[], userTags=[])])

def test_test_domains(turnkey_client, simulator):
    {body}
"""
ACCEPTS = """made = turnkey_client.create_users(users("alice@mail.test"))
    assert made.activity.status == "ACTIVITY_STATUS_COMPLETED"
    assert simulator.simulator.journal.entries("create_users")[-1]["warnings"]"""
REFUSES = """with pytest.raises(T.TurnkeyNetworkError) as raised:
        turnkey_client.create_users(users("alice@mail.test"))
    assert raised.value.status_code == 400 and "could not reach email" in str(raised.value)"""


def test_the_pytest_plugin_warns_by_default_and_refuses_with_its_ini_option(pytester):
    pytester.makepyfile(test_suite=SUITE.format(body=ACCEPTS))
    pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    pytester.makeini("[pytest]\nsimulator_strict_email = true\n")
    pytester.makepyfile(test_suite=SUITE.format(body=REFUSES))
    pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider").assert_outcomes(passed=1)
