"""Scenario replay (every shipped scenario replays green) and recording a session that replays."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest
import yaml
from conftest import DEFAULTS, ETH_ACCOUNT, SCENARIOS
from support import PROCESS_STOP_SECONDS

from simulator.testing import ApiKeyStamper, SimulatorClient
from simulator.testing.replay import replay, report

SHIPPED = sorted(SCENARIOS.glob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_scenario_replays_green(path):
    results = replay(path)
    assert results and all(r.ok for r in results), report(results)


def test_a_mismatch_is_reported_with_a_diff(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        (SCENARIOS / "default.yaml")
        .read_text()
        .replace("fields: {username: Root User}", "fields: {username: Someone Else}")
    )
    results = replay(path)
    text = report(results)
    assert not results[0].ok and 'username: expected "Someone Else", got "Root User"' in text
    assert text.endswith("2 passed, 1 failed")


def test_replay_command_exits_non_zero_on_failure(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        (SCENARIOS / "reject.yaml").read_text().replace("ACTIVITY_STATUS_REJECTED", "ACTIVITY_STATUS_COMPLETED")
    )
    run = subprocess.run(
        [sys.executable, "-m", "simulator", "replay", str(path)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 1 and "FAIL the wallet is rejected" in run.stdout


def test_replay_against_a_running_simulator(simulator):
    results = replay(SCENARIOS / "default.yaml", simulator.url)
    assert all(r.ok for r in results), report(results)


def test_a_recorded_session_replays_green(tmp_path):
    record = tmp_path / "session.yaml"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simulator",
            "serve",
            "--port",
            "0",
            "--proxy-port",
            "0",
            "--seed",
            "5",
            "--record",
            str(record),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready = json.loads(proc.stdout.readline())
        client = SimulatorClient(ready["url"], ApiKeyStamper(ready["apiPrivateKey"]), ready["organizationId"])
        made = client.submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "rec", "accounts": [ETH_ACCOUNT]}
        )
        wallet_id = made.body["activity"]["result"]["createWalletResult"]["walletId"]
        client.query("list_wallet_accounts", walletId=wallet_id)
        client.submit(
            "create_wallet_accounts",
            "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
            {"walletId": wallet_id, "accounts": [{**ETH_ACCOUNT, "path": "m/44'/60'/0'/0/1"}]},
        )
        client.query("get_wallet", walletId="00000000-0000-4000-8000-0000000000c8")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=PROCESS_STOP_SECONDS)
        proc.stdout.close()
        proc.stderr.close()
    recorded = yaml.safe_load(record.read_text())
    steps = recorded["steps"]
    assert [s.get("submit") or s.get("query") for s in steps] == [
        "create_wallet",
        "list_wallet_accounts",
        "create_wallet_accounts",
        "get_wallet",
    ]
    assert steps[1]["body"]["walletId"].startswith("${s1_") and "capture" in steps[0]
    assert steps[3]["expect"] == {"status": 404, "fields": {"code": 5}}
    assert "X-Stamp" not in record.read_text() and DEFAULTS["apiPrivateKey"] not in record.read_text()
    results = replay(record)
    assert all(r.ok for r in results), report(results)
