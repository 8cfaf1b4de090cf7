"""The JS test helper (js/): under node's test runner, and packed and installed as a team would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

JS = ROOT / "tests" / "js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    not (NODE and (JS / "node_modules").is_dir()),
    reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)",
)
COMMAND = json.dumps([sys.executable, "-m", "simulator"])


def test_the_helper_under_node_test():
    env = {**os.environ, "WALLET_SIMULATOR_COMMAND": COMMAND}
    run = subprocess.run(
        [NODE, "--test", str(JS / "helper.test.js")], capture_output=True, text=True, timeout=120, env=env
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout


@pytest.mark.skipif(not shutil.which("npm"), reason="npm missing")
def test_the_packed_helper_installs_offline_and_loads_from_esm_and_commonjs(tmp_path):
    subprocess.run(
        ["npm", "pack", str(ROOT / "js"), "--pack-destination", str(tmp_path), "--silent"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    tarball = next(tmp_path.glob("wallet-simulator-testing-*.tgz"))
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text('{"name": "downstream", "private": true}')
    subprocess.run(
        ["npm", "install", "--offline", "--no-audit", "--no-fund", str(tarball)],
        cwd=project,
        check=True,
        capture_output=True,
        timeout=120,
    )
    (project / "check.mjs").write_text(
        'import { startSimulator, ControlClient } from "wallet-simulator-testing";\n'
        'const sim = await startSimulator({ scenarios: ["two_of_three_quorum"], seed: 1 });\n'
        "const users = (await sim.control.journal()).length;\n"
        "const code = await sim.stop();\n"
        "console.log(JSON.stringify({ users, code, org: sim.credentials.organizationId, "
        "control: typeof ControlClient }));\n"
    )
    env = {**os.environ, "WALLET_SIMULATOR_COMMAND": COMMAND}
    run = subprocess.run([NODE, "check.mjs"], cwd=project, capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {
        "users": 0,
        "code": 0,
        "org": "5f1c0c5e-0000-4000-8000-00000000a001",
        "control": "function",
    }
