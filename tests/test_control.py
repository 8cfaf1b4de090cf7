"""The control API and its client: scenarios, snapshots, state export/import, clock, votes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ETH_ACCOUNT, SCENARIOS, ok, result_of

from simulator import Config, Simulator
from simulator.control_client import ControlClient, ControlError


def test_snapshot_and_restore(client, simulator):
    control = ControlClient(simulator.url)
    snapshot = control.snapshot()
    ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "later", "accounts": []}))
    control.restore(snapshot)
    assert ok(client.query("list_wallets")) == {"wallets": []}
    with pytest.raises(ControlError, match="no snapshot nope"):
        control.restore("nope")


def test_state_exports_as_json_and_imports_back(client, simulator):
    wallet = result_of(
        client.submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "kept", "accounts": [ETH_ACCOUNT]}
        ),
        "createWalletResult",
    )
    control = ControlClient(simulator.url)
    state = json.loads(json.dumps(control.state()))  # plain JSON all the way down
    control.reset()
    assert ok(client.query("list_wallets")) == {"wallets": []}
    control.import_state(state)
    accounts = ok(client.query("list_wallet_accounts"))["accounts"]
    assert [a["address"] for a in accounts] == wallet["addresses"]
    assert ok(client.query("whoami"))["username"] == "Root User"  # the key index came back too
    with pytest.raises(ControlError, match="cannot import the state"):
        control.import_state({"format": "something else"})


def test_export_is_readable(simulator):
    state = Simulator(Config(seed=1)).export_state()
    org = next(iter(state["store"]["orgs"].values()))
    assert org["__type__"] == "Organization" and org["name"] == "Simulated Organization"


def test_load_scenarios_clock_and_votes(simulator):
    control = ControlClient(simulator.url)
    credentials = control.load_scenarios([SCENARIOS / "two_of_three_quorum.yaml"])
    assert {c["userName"] for c in credentials} == {"Root User", "Bob", "Carol"}
    from simulator.testing import ApiKeyStamper, SimulatorClient

    root = next(c for c in credentials if c["userName"] == "Root User")
    client = SimulatorClient(simulator.url, ApiKeyStamper(root["apiPrivateKey"]), root["organizationId"])
    activity = ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}))[
        "activity"
    ]
    assert control.explain(activity["id"])["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    assert control.approve(activity["id"], "Bob")["status"] == "ACTIVITY_STATUS_COMPLETED"
    before = simulator.simulator.clock.now_ms()
    assert control.advance_clock(60) >= before + 60_000
    assert [e["op"] for e in control.journal()] == ["create_wallet"]
    with pytest.raises(ControlError, match="cannot read scenario file"):
        control.load_scenarios([SCENARIOS / "missing.yaml"])
    control.load_scenarios([])  # back to the default


def test_the_cli_wraps_the_control_api(simulator):
    run = lambda *a: subprocess.run(
        [sys.executable, "-m", "simulator", "control", *a, "--url", simulator.url],  # noqa: E731
        capture_output=True,
        text=True,
        timeout=60,
    )
    snapshot = run("snapshot")
    assert snapshot.returncode == 0 and snapshot.stdout.strip().startswith('"snapshot-')
    assert run("restore", json.loads(snapshot.stdout)).returncode == 0
    assert run("explain", "nope").returncode == 1
    assert run("clock").returncode == 2
