"""docs/how-to/prove-parity.md: its commands run as written, a simulator standing in for Turnkey
(https://api.turnkey.com in the text is its address, the TURNKEY_* variables its default key): the two pytest
runs and the diff, the replay, the two node runs and the diff, and the recorder alone (on free ports)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from support import JS_MODULES, NODE, node_env, preloaded_env

from simulator.config import Config
from simulator.parity.exchanges import read_recording
from simulator.server import SimulatorServer
from simulator.testing import ApiKeyStamper, SimulatorClient

PAGE = ROOT / "docs" / "how-to" / "prove-parity.md"
REAL = "https://api.turnkey.com"
SH = re.compile(r"^```sh\n(.*?)^```$", re.M | re.S)
PYTEST_SUITE = """
import pytest


def test_a_wallet(simulator_client):
    made = simulator_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "docs", "accounts": []})
    assert made.status == 200


def test_whoami(simulator_client, simulator_credentials):
    assert simulator_client.query("whoami").body["organizationId"] == simulator_credentials["organizationId"]


@pytest.mark.simulator_only("moves the clock")
def test_the_clock(simulator):
    simulator.clock.advance(1)
"""
JS_SUITE = """
const { test, before, after } = require("node:test");
const assert = require("node:assert");
const { Turnkey } = require("@turnkey/sdk-server");
const { startSimulator, simulatorOnly } = require("wallet-simulator-testing");

let sim;
before(async () => { sim = await startSimulator({ seed: 3 }); });
after(async () => sim && sim.stop());

test("whoami", async () => {
  const api = new Turnkey({ apiBaseUrl: sim.url, apiPublicKey: sim.credentials.apiPublicKey,
    apiPrivateKey: sim.credentials.apiPrivateKey, defaultOrganizationId: sim.credentials.organizationId }).apiClient();
  assert.strictEqual((await api.getWhoami()).organizationId, sim.credentials.organizationId);
});

test("the clock", { skip: simulatorOnly("moves the clock") }, async () => { await sim.control.advanceClock(1); });
"""


def blocks() -> list[str]:
    return SH.findall(PAGE.read_text())


def block_with(*words: str) -> list[str]:
    found = [b for b in blocks() if all(w in b for w in words)]
    assert len(found) == 1, f"one sh block of {PAGE.name} with {words}, found {len(found)}"
    return [line for line in found[0].splitlines() if line.strip()]


@pytest.fixture
def upstream():
    with SimulatorServer(config=Config(seed=4242)) as server:
        yield server


def environment(upstream: SimulatorServer, base: dict[str, str]) -> dict[str, str]:
    """The page's first block (the user's key) with the stand-in's, the commands on PATH from this checkout."""
    creds = upstream.simulator.default_credentials()
    names = re.findall(r"^export (TURNKEY_[A-Z_]+)=", "\n".join(block_with("export TURNKEY_")), re.M)
    values = {"TURNKEY_ORGANIZATION_ID": creds["organizationId"], "TURNKEY_API_PUBLIC_KEY": creds["apiPublicKey"]}
    values["TURNKEY_API_PRIVATE_KEY"] = creds["apiPrivateKey"]
    assert sorted(names) == sorted(values)
    env = {k: v for k, v in base.items() if not k.startswith(("WALLET_SIMULATOR_", "TURNKEY_"))}
    env.update(values)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env["WALLET_SIMULATOR_PROXY_UPSTREAM"] = upstream.proxy_url
    env["WALLET_SIMULATOR_COMMAND"] = json.dumps([sys.executable, "-m", "simulator"])
    return env


def run_lines(lines: list[str], upstream: SimulatorServer, cwd: Path, env: dict[str, str]) -> None:
    for line in lines:
        command = line.replace(REAL, upstream.url)
        run = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, f"{command}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"


def test_the_pytest_runs_and_the_diff(upstream, tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_suite.py").write_text(PYTEST_SUITE)
    env = environment(upstream, preloaded_env())
    run_lines(block_with("pytest", "parity diff"), upstream, tmp_path, env)
    run_lines(block_with("--ignore"), upstream, tmp_path, env)
    real, simulated = read_recording(tmp_path / "real.jsonl")[1], read_recording(tmp_path / "simulated.jsonl")[1]
    assert [e.operation for e in real] == [e.operation for e in simulated] == ["create_wallet", "whoami"]
    assert {e["op"] for e in upstream.simulator.journal.entries()} == {"create_wallet", "whoami"}
    run_lines(block_with("parity replay"), upstream, tmp_path, env)  # the one-run way: no difference either
    assert [e.operation for e in read_recording(tmp_path / "simulated.jsonl")[1]] == ["create_wallet", "whoami"]


@pytest.mark.skipif(not (NODE and JS_MODULES.is_dir()), reason="node or tests/js/node_modules missing")
def test_the_node_runs_and_the_diff(upstream, tmp_path):
    (tmp_path / "suite.test.js").write_text(JS_SUITE)
    env = environment(upstream, node_env(tmp_path))
    run_lines(block_with("node --test", "parity diff"), upstream, tmp_path, env)
    assert [e.operation for e in read_recording(tmp_path / "real.jsonl")[1]] == ["whoami"]
    assert [e.operation for e in read_recording(tmp_path / "simulated.jsonl")[1]] == ["whoami"]


def test_the_recorder_alone(upstream, tmp_path):
    env = environment(upstream, dict(os.environ))
    creds = upstream.simulator.default_credentials()
    for line in block_with("parity record"):
        command = shlex.split(line.replace(REAL, upstream.url)) + ["--port", "0", "--proxy-port", "0"]
        assert command[0] == "wallet-simulator" and shutil.which(command[0], path=env["PATH"])
        process = subprocess.Popen(
            command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            assert process.stdout is not None
            ready = json.loads(process.stdout.readline())
            key = ready.get("apiPrivateKey") or creds["apiPrivateKey"]  # the simulated run's own, else the user's
            organization = ready.get("organizationId") or creds["organizationId"]
            client = SimulatorClient(ready["url"], ApiKeyStamper(key), organization)
            assert client.query("whoami").status == 200
        finally:
            process.send_signal(signal.SIGINT)
            process.communicate(timeout=60)
        assert process.returncode == 0
        assert [e.operation for e in read_recording(Path(ready["out"]))[1]] == ["whoami"]
