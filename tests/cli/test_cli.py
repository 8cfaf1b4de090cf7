"""The command line: serve prints one ready line, answers, and stops cleanly on Ctrl-C."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from conftest import DEFAULTS, ok
from support import PROCESS_STOP_SECONDS

from simulator.testing import ApiKeyStamper, SimulatorClient


def start(*args: str) -> tuple[subprocess.Popen, dict]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    if not line:
        proc.kill()
        raise AssertionError(proc.stderr.read())
    return proc, json.loads(line)


def test_serve_prints_the_ready_line_and_stops_on_ctrl_c():
    proc, ready = start("--seed", "3")
    try:
        assert {k: ready[k] for k in ("organizationId", "userId", "apiPublicKey", "apiPrivateKey")} == {
            k: DEFAULTS[k] for k in ("organizationId", "userId", "apiPublicKey", "apiPrivateKey")
        }
        assert ready["url"].startswith("http://127.0.0.1:") and ready["seed"] == 3
        assert ready["proxyUrl"].startswith("http://127.0.0.1:") and ready["proxyUrl"] != ready["url"]
        client = SimulatorClient(ready["url"], ApiKeyStamper(ready["apiPrivateKey"]), ready["organizationId"])
        assert ok(client.query("whoami"))["userId"] == ready["userId"]
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=PROCESS_STOP_SECONDS)
        proc.stdout.close()
        stderr = proc.stderr.read()
        proc.stderr.close()
    assert code == 0, stderr
    assert "Traceback" not in stderr


def test_serve_started_with_sigint_ignored_still_stops_on_sigint():
    """A shell script's `serve &` starts it ignoring SIGINT (POSIX, for background jobs); SIGINT still stops it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),  # what the shell does
    )
    assert proc.stdout is not None and proc.stdout.readline()
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    code = proc.wait(timeout=PROCESS_STOP_SECONDS)
    stopped_in = time.monotonic() - started
    proc.stdout.close()
    assert proc.stderr is not None and "Traceback" not in proc.stderr.read()
    proc.stderr.close()
    assert code == 0
    assert stopped_in < PROCESS_STOP_SECONDS / 2, "it stopped on SIGINT, not on a timeout"


def test_ctrl_c_right_after_the_ready_line_stops_cleanly():
    """The JS helper's stop() sends SIGINT as soon as it has read the ready line."""
    for _ in range(3):
        proc, _ready = start("--seed", "4")
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=PROCESS_STOP_SECONDS)
        proc.stdout.close()
        stderr = proc.stderr.read()
        proc.stderr.close()
        assert code == 0, stderr
        assert "Traceback" not in stderr


def test_serve_refuses_a_bad_scenario_with_its_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("organizations:\n  - name: A\n    colour: red\n")
    result = subprocess.run(
        [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0", "--scenario", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert f"{bad}:3:" in result.stderr and "unknown field 'colour'" in result.stderr
    assert result.stdout == ""


def test_serve_and_control_take_shipped_scenario_names():
    proc, ready = start("--scenario", "two_of_three_quorum", "--seed", "4")
    try:
        client = SimulatorClient(ready["url"], ApiKeyStamper(ready["apiPrivateKey"]), ready["organizationId"])
        assert ok(client.query("get_organization_configs"))["configs"]["quorum"]["threshold"] == 2
        loaded = subprocess.run(
            [sys.executable, "-m", "simulator", "control", "load", "default", "--url", ready["url"]],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert loaded.returncode == 0, loaded.stderr
        assert ok(client.query("get_organization_configs"))["configs"]["quorum"]["threshold"] == 1
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=PROCESS_STOP_SECONDS)
        proc.stdout.close()
        proc.stderr.close()


def test_an_unknown_scenario_name_is_refused_with_the_shipped_names():
    result = subprocess.run(
        [sys.executable, "-m", "simulator", "serve", "--port", "0", "--scenario", "two_of_three"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "two_of_three_quorum" in result.stderr and "Traceback" not in result.stderr


def test_serve_granian_without_granian_says_what_to_install():
    hidden = "import sys; sys.modules['granian'] = None; from simulator.cli import main; sys.exit(main())"
    result = subprocess.run(
        [sys.executable, "-c", hidden, "serve", "--server", "granian", "--port", "0", "--proxy-port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert "pip install 'wallet-simulator[granian]'" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("switches, status", [([], 403), (["--lenient-documented-rules"], 200)])
def test_serve_lenient_documented_rules_turns_the_rules_off(switches, status):
    """An import for another user (organizations.mdx, Permissions) through a simulator built from serve's switches."""
    from simulator.cli import config_from, parser
    from simulator.core import Simulator
    from simulator.testing import InProcessClient
    from simulator.web.app import create_app

    sim = Simulator(config_from(parser().parse_args(["serve", *switches])))
    credentials = sim.default_credentials()
    client = InProcessClient(
        create_app(sim), ApiKeyStamper(credentials["apiPrivateKey"]), credentials["organizationId"]
    )
    user = {"userName": "Bob", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}
    made = ok(client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [user]}))
    bob = made["activity"]["result"]["createUsersResult"]["userIds"][0]
    answer = client.submit("init_import_wallet", "ACTIVITY_TYPE_INIT_IMPORT_WALLET", {"userId": bob})
    assert answer.status == status, answer.body


def test_serve_switches_choose_the_transport():
    from simulator.cli import config_from, parser
    from simulator.config import Config

    assert config_from(parser().parse_args(["serve"])).server == "waitress"
    assert config_from(parser().parse_args(["serve", "--server", "granian"])).server == "granian"
    with pytest.raises(SystemExit):
        parser().parse_args(["serve", "--server", "gunicorn"])
    with pytest.raises(ValueError, match="server must be"):
        Config(server="gunicorn")


def test_serve_granian_refuses_a_scenario_fault_on_the_connection(tmp_path):
    pytest.importorskip("granian", reason="granian is not installed: pip install 'wallet-simulator[granian]'")
    scenario = tmp_path / "resets.yaml"
    scenario.write_text("faults:\n  - kind: reset\n")
    command = [sys.executable, "-m", "simulator", "serve", "--server", "granian", "--port", "0", "--proxy-port", "0"]
    result = subprocess.run([*command, "--scenario", str(scenario)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert f"{scenario}:" in result.stderr and "--server waitress" in result.stderr
