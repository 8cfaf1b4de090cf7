"""The official JS clients (@turnkey/sdk-server, @turnkey/http), pinned in tests/js, unmodified.

Runs when node and tests/js/node_modules are present (`npm ci --prefix tests/js`; .ci/run does it).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import ROOT

JS = ROOT / "tests" / "js"
pytestmark = pytest.mark.skipif(not (shutil.which("node") and (JS / "node_modules").is_dir()),
                                reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)")


def test_sdk_server_and_http_clients_work_unmodified(simulator, simulator_credentials):
    ready = {**simulator_credentials, "url": simulator.url}
    run = subprocess.run(["node", str(JS / "compat.js"), json.dumps(ready)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["createWallet"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert out["getWalletAccounts"] == out["createWallet"]["addresses"]
    assert out["getWhoami"]["userId"] == simulator_credentials["userId"]
    assert len(out["createUsers"]) == 1 and out["listUserTags"] == ["js"]
    assert out["getOrganizationConfigs"]["quorum"]["threshold"] == 1
    assert out["httpPoller"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert out["error"]["message"].startswith("Turnkey error 5: policies not found") and out["error"]["code"] == 5
