"""An operation name that names nothing is caught wherever a user writes one (issue 52): a fault's or a
rateLimited rule's ``match.operation``, a journal assertion, the control API and the CLI; an official
client's method name (``get_wallets``, ``getWallets``) is its operation's alias (simulator/operations/operation_names.py)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest
import requests
import turnkey_sdk_types as T
from conftest import ROOT
from turnkey_sdk_types import TurnkeyNetworkError

from simulator.cli import main
from simulator.control.control_client import ControlClient, ControlError
from simulator.faults import FaultError
from simulator.operations.operation_names import UnknownOperation, resolve
from simulator.scenario import ScenarioError, ScenarioNameWarning, ScenarioWarning, load_scenario

NODE_MODULES = ROOT / "tests" / "js" / "node_modules"


@pytest.mark.skipif(not (NODE_MODULES / "@turnkey" / "http").is_dir(), reason="tests/js/node_modules missing")
def test_the_alias_table_is_the_clients_current_one():
    """`python tools/operation_aliases.py` rewrites it from turnkey-http and the JS clients."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "operation_aliases.py"), "--check"], capture_output=True, cwd=ROOT
    )
    assert run.returncode == 0, (
        "simulator/operations/operation_aliases.py is stale: run python tools/operation_aliases.py"
    )


@pytest.mark.parametrize(
    "name, operation",
    [
        ("list_wallets", "list_wallets"),
        ("get_wallets", "list_wallets"),  # turnkey-http's method
        ("getWallets", "list_wallets"),  # @turnkey/http's and @turnkey/sdk-server's
        ("getWhoami", "whoami"),
        ("get_whoami", "whoami"),
        ("createWallet", "create_wallet"),
        ("proxyInitOtp", "otp_init"),  # @turnkey/core's auth-proxy method
    ],
)
def test_a_client_method_name_is_its_operations_alias(name, operation):
    assert resolve(name).operation == operation


def test_a_name_of_nothing_names_the_closest_operations():
    found = resolve("getWalets")
    assert found.operation is None and "list_wallets" in found.problem and "get_wallet" in found.problem


# the control API and the Python API ---------------------------------------------------------------------
def test_the_control_api_refuses_a_fault_on_no_operation_naming_the_closest(simulator):
    spec = {"kind": "reset", "match": {"operation": "no_such_operation"}}
    reply = requests.post(f"{simulator.url}/_simulator/faults", json=spec, timeout=10)
    assert reply.status_code == 400
    error = reply.json()
    assert error["code"] == 3 and "no operation is named 'no_such_operation'" in error["message"]
    assert "the closest:" in error["message"]
    assert simulator.fault_listing() == []  # a refused request changes nothing
    typo = requests.post(
        f"{simulator.url}/_simulator/faults", json={"kind": "reset", "match": {"operation": "list_walets"}}, timeout=10
    )
    assert typo.status_code == 400 and "the closest: list_wallets" in typo.json()["message"]


def test_a_fault_on_an_operation_of_the_other_interface_is_refused(simulator):
    with pytest.raises(FaultError, match="match.interface: authProxy"):
        simulator.add_fault({"kind": "reset", "match": {"operation": "otp_init"}})
    with pytest.raises(FaultError, match="match.interface: api"):
        simulator.add_fault({"kind": "reset", "match": {"interface": "authProxy", "operation": "create_wallet"}})


def test_the_python_api_refuses_it_and_the_client_method_name_fires(simulator, turnkey_client):
    with (
        pytest.raises(FaultError, match="no_such_operation"),
        simulator.fault("unavailable", match={"operation": "no_such_operation"}),
    ):
        pass
    with simulator.fault("unavailable", match={"operation": "get_wallets"}, times=1) as fault:
        assert fault["match"] == {"operation": "list_wallets"}  # the answer names the operation it matches
        with pytest.raises(TurnkeyNetworkError) as failed:
            turnkey_client.get_wallets(T.GetWalletsBody())
        assert failed.value.status_code == 500
        assert simulator.fault_listing()[0]["hits"] == 1
    assert turnkey_client.get_wallets(T.GetWalletsBody()).wallets is not None


def test_the_control_client_refuses_it_too(simulator):
    control = ControlClient(simulator.url)
    with pytest.raises(ControlError) as refused:
        control.add_fault("latency", ms=1, match={"operation": ["create_wallet", "getWalets"]})
    assert refused.value.status == 400 and "list_wallets" in str(refused.value)
    assert control.add_fault("latency", ms=1, match={"operation": ["create_wallet", "getWallets"]})["match"] == {
        "operation": ["create_wallet", "list_wallets"]
    }


# the journal ------------------------------------------------------------------------------------------
def test_journal_assertions_take_aliases_and_refuse_names_of_nothing(simulator, turnkey_client):
    turnkey_client.get_wallets(T.GetWalletsBody())
    assert simulator.journal.assert_called("get_wallets", times=1)[0]["op"] == "list_wallets"
    assert simulator.journal.calls("getWallets")
    with pytest.raises(UnknownOperation, match="the closest: create_wallet"):
        simulator.journal.assert_not_called("create_walet")  # it used to pass, whatever was called
    with pytest.raises(ValueError, match="no operation is named"):
        simulator.journal.assert_called("no_such_operation")


def test_the_control_api_journal_filter_reads_the_name_alike(simulator, turnkey_client):
    turnkey_client.get_wallets(T.GetWalletsBody())
    control = ControlClient(simulator.url)
    assert [e["op"] for e in control.journal("getWallets")] == ["list_wallets"]
    with pytest.raises(ControlError) as refused:
        control.journal("no_such_operation")
    assert refused.value.status == 400 and "the closest:" in str(refused.value)


# scenario files and the CLI ------------------------------------------------------------------------------
BOTH = """include: [default]
faults:
  - {name: by method, kind: unavailable, match: {operation: get_wallets}, times: 1}
  - {name: nothing, kind: reset, match: {operation: no_such_operation}}
"""


def test_a_scenario_file_warns_and_still_loads_and_its_alias_fires(tmp_path, turnkey_client, simulator):
    path = tmp_path / "faults.yaml"
    path.write_text(BOTH)
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        load_scenario(path)
    by_kind = {w.category: str(w.message) for w in shown}
    assert "'get_wallets' is an official client's method name for list_wallets" in by_kind[ScenarioWarning]
    assert "faults[1].match.operation: no operation is named 'no_such_operation'" in by_kind[ScenarioNameWarning]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScenarioWarning)
        simulator.simulator.use_scenarios([path])
    listed = {f["name"]: f for f in simulator.fault_listing()}
    assert listed["by method"]["match"]["operation"] == "list_wallets"
    assert listed["nothing"]["match"]["operation"] == "no_such_operation"  # kept as written: it never fires
    with pytest.raises(TurnkeyNetworkError):
        turnkey_client.get_wallets(T.GetWalletsBody())
    assert simulator.fault_listing()[0]["hits"] == 1


def test_check_flags_the_alias_as_a_warning_and_the_name_of_nothing_as_an_error(tmp_path, capsys):
    both = tmp_path / "both.yaml"
    both.write_text(BOTH)
    alias_only = tmp_path / "alias.yaml"
    alias_only.write_text(BOTH.split("  - {name: nothing")[0])
    assert main(["check", str(both)]) == 1
    err = capsys.readouterr().err
    assert "faults[0].match.operation: 'get_wallets' is an official client's method name for list_wallets" in err
    assert "faults[1].match.operation: no operation is named 'no_such_operation'" in err
    assert "1 name(s) that name nothing" in err
    assert main(["check", str(alias_only)]) == 0
    captured = capsys.readouterr()
    assert "write list_wallets" in captured.err and f"{alias_only}: ok" in captured.out


def test_a_rate_limited_rule_takes_an_alias_and_refuses_a_name_of_nothing(tmp_path, simulator, turnkey_client):
    limited = tmp_path / "limited.yaml"
    limited.write_text(
        "include: [default]\nrules:\n  - {name: back off, match: {operation: get_wallets}, outcome: rateLimited}\n"
    )
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        simulator.simulator.use_scenarios([limited])
    assert any("write list_wallets" in str(w.message) for w in shown)
    with pytest.raises(TurnkeyNetworkError) as limited_answer:
        turnkey_client.get_wallets(T.GetWalletsBody())
    assert limited_answer.value.status_code == 429
    nothing = tmp_path / "nothing.yaml"
    nothing.write_text(
        "include: [default]\nrules:\n  - {name: back off, match: {operation: nope_wallets}, outcome: rateLimited}\n"
    )
    with pytest.raises(ScenarioError, match="no operation is named 'nope_wallets'"):
        load_scenario(nothing)


def test_the_cli_refuses_it_with_the_control_apis_words(simulator, capsys):
    assert main(["control", "fault-add", "reset", "no_such_operation", "--url", simulator.url]) == 1
    assert "no operation is named 'no_such_operation'" in capsys.readouterr().err
    assert main(["control", "journal", "nope", "--url", simulator.url]) == 1
    assert "the closest:" in capsys.readouterr().err
    assert main(["control", "fault-add", "reset", "getWallets", "--url", simulator.url]) == 0
    assert '"operation": "list_wallets"' in capsys.readouterr().out
