"""A wheel built from the checkout carries schemas, scenarios and fixtures and works elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile

from conftest import NESTED_PYTEST_ADDOPTS, ROOT


def test_the_wheel_carries_the_data_folders(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for needed in (
        "simulator/_data/schemas/submit/create_wallet.json",
        "simulator/_data/schemas/scenario.json",
        "simulator/_data/scenarios/default.yaml",
        "simulator/_data/fixtures/default_credentials.json",
        "simulator/inspector/static/index.html",
        "simulator/inspector/static/js/main.js",
        "simulator/frames/static/export.html",
        "simulator/frames/static/frame-core.js",
    ):
        assert needed in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "wallet-simulator = simulator.cli:main" in text and "simulator.pytest_plugin" in text


def test_the_installed_wheel_serves_outside_the_checkout(site, tmp_path):
    script = (
        "import json, simulator; from simulator import Simulator; s = Simulator(); "
        "print(json.dumps([simulator.__file__, str(s.schemas.root), s.default_credentials()['organizationId']]))"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    module, schemas, org = json.loads(result.stdout)
    assert module.startswith(str(site)) and schemas.startswith(str(site))
    assert org == json.loads((ROOT / "fixtures" / "default_credentials.json").read_text())["organizationId"]


def test_the_wheel_requires_what_the_plugin_needs(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    required = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert any(r.startswith("pytest-httpserver") and "extra ==" not in r for r in required), required


DOWNSTREAM_SUITE = '''
"""A custody backend's suite, written from the README alone (installed wheel, no checkout)."""
import json, pathlib, signal, subprocess, sys

import pytest
import simulator
from simulator.testing import ApiKeyStamper, SimulatorClient

HERE = pathlib.Path(__file__).parent


def test_the_package_is_the_installed_wheel():
    assert "site" in simulator.__file__ and "/work/main/" not in simulator.__file__


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_quorum_by_name(simulator_user, simulator):
    activity = simulator_user("Root User").submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET",
                                                  {"walletName": "w", "accounts": []}).body["activity"]
    assert simulator.approve(activity["id"], "Bob")["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    simulator.journal.assert_called("create_wallet", times=1)


@pytest.mark.simulator_scenario("scenarios/custody.yaml")
def test_our_own_scenario(simulator_user, simulator):
    assert simulator_user("Dave").query("whoami").body["username"] == "Dave"
    before = simulator.clock.now_ms()
    simulator.clock.advance(60)
    assert simulator.clock.now_ms() >= before + 60_000


def test_outbox_and_webhooks(simulator_client, simulator_outbox, webhook_receiver):
    simulator_client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                            {"otpType": "OTP_TYPE_EMAIL", "contact": "a@example.com", "appName": "x"})
    assert simulator_outbox.wait_for("a@example.com", timeout=2)
    simulator_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "h", "accounts": []})
    assert all(webhook_receiver.verify(r) for r in webhook_receiver.wait_for(1))


def cli(*args):
    return subprocess.run([sys.executable, "-m", "simulator", *args], capture_output=True, text=True, timeout=120)


def test_check_and_replay(tmp_path):
    assert cli("check", str(HERE / "scenarios" / "custody.yaml"), "two_of_three_quorum").returncode == 0
    run = cli("replay", str(HERE / "scenarios" / "custody.yaml"))
    assert run.returncode == 0 and "1 passed, 0 failed" in run.stdout, run.stdout + run.stderr


def test_record_then_replay_from_our_repo(tmp_path):
    record = tmp_path / "session.yaml"
    proc = subprocess.Popen([sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0",
                             "--scenario", "two_of_three_quorum", "--record", str(record)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        ready = json.loads(proc.stdout.readline())
        client = SimulatorClient(ready["url"], ApiKeyStamper(ready["apiPrivateKey"]), ready["organizationId"])
        made = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "r", "accounts": []})
        client.query("get_activity", activityId=made.body["activity"]["id"])
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)  # a loaded machine only slows the stop
        proc.stdout.close()
    moved = HERE / "recordings" / "session.yaml"
    moved.parent.mkdir(exist_ok=True)
    moved.write_text(record.read_text())
    assert "include:\\n- two_of_three_quorum" in moved.read_text()
    run = cli("replay", str(moved))
    assert run.returncode == 0, run.stdout + run.stderr
'''

CUSTODY = """
include: [policy_deny]
steps:
  - {name: dave makes a wallet, as: Dave, submit: create_wallet, type: ACTIVITY_TYPE_CREATE_WALLET,
     parameters: {walletName: custody, accounts: []}, expect: {fields: {activity.status: ACTIVITY_STATUS_COMPLETED}}}
"""


def test_a_downstream_suite_runs_from_the_installed_wheel_alone(site, tmp_path):
    project = tmp_path / "custody"
    (project / "scenarios").mkdir(parents=True)
    (project / "scenarios" / "custody.yaml").write_text(CUSTODY)
    (project / "test_custody.py").write_text(DOWNSTREAM_SUITE)
    env = {**os.environ, "PYTHONPATH": str(site), "PYTEST_ADDOPTS": NESTED_PYTEST_ADDOPTS}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-2000:]
    assert "6 passed" in run.stdout
