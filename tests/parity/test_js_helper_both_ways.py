"""A suite written for the JS helper (tests/js/parity_suite.test.js, node's test runner), run both ways with one
switch: against the simulator by default; with WALLET_SIMULATOR_UPSTREAM against an upstream (a second
simulator standing in for Turnkey, its key in the TURNKEY_* variables) through `parity record`, the
simulator-only test skipped; the simulated run recorded with WALLET_SIMULATOR_PARITY_OUT; no difference."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from simulator.cli import main
from simulator.config import Config
from simulator.parity.exchanges import read_recording
from simulator.server import SimulatorServer

JS = ROOT / "tests" / "js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    not (NODE and (JS / "node_modules").is_dir()),
    reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)",
)
PARITY = ("WALLET_SIMULATOR_UPSTREAM", "WALLET_SIMULATOR_PROXY_UPSTREAM", "WALLET_SIMULATOR_PARITY_OUT")


def run_suite(**env: str) -> dict[str, int]:
    base = {k: v for k, v in os.environ.items() if k not in PARITY and not k.startswith("TURNKEY_")}
    base.update(
        HELPER=str(ROOT / "js" / "lib" / "helper" / "index.js"),
        WALLET_SIMULATOR_COMMAND=json.dumps([sys.executable, "-m", "simulator"]),
        PYTHONPATH=str(ROOT),
        **env,
    )
    run = subprocess.run(
        [str(NODE), "--test", str(JS / "parity_suite.test.js")], capture_output=True, text=True, timeout=300, env=base
    )
    counts = {k: int(v) for k, v in re.findall(r"^# (pass|fail|skipped) (\d+)$", run.stdout, re.M)}
    assert counts.get("fail") == 0, run.stdout[-4000:] + run.stderr[-2000:]
    return counts


def test_the_js_suite_runs_both_ways_and_the_diff_finds_nothing(tmp_path: Path):
    assert run_suite() == {"pass": 3, "fail": 0, "skipped": 0}
    real, simulated = tmp_path / "real.jsonl", tmp_path / "simulated.jsonl"
    with SimulatorServer(config=Config(seed=99)) as upstream:
        creds = upstream.simulator.default_credentials()
        counts = run_suite(
            WALLET_SIMULATOR_UPSTREAM=upstream.url,
            WALLET_SIMULATOR_PROXY_UPSTREAM=upstream.proxy_url,
            WALLET_SIMULATOR_PARITY_OUT=str(real),
            TURNKEY_ORGANIZATION_ID=creds["organizationId"],
            TURNKEY_API_PUBLIC_KEY=creds["apiPublicKey"],
            TURNKEY_API_PRIVATE_KEY=creds["apiPrivateKey"],
        )
        arrived = {e["op"] for e in upstream.simulator.journal.entries()}
    assert counts == {"pass": 2, "fail": 0, "skipped": 1}
    assert {"create_wallet", "list_wallets", "whoami"} <= arrived
    assert run_suite(WALLET_SIMULATOR_PARITY_OUT=str(simulated)) == {"pass": 2, "fail": 0, "skipped": 1}
    operations = [e.operation for e in read_recording(real)[1]]
    assert operations == [e.operation for e in read_recording(simulated)[1]] and "create_wallet" in operations
    assert main(["parity", "diff", str(real), str(simulated)]) == 0
