"""@turnkey/http 2.x (the pinned turnkey-http-v2 alias), unmodified, sending the older activity types
clients released before the late-2025 version bumps send (tests/js/old_versions.js): each completes
with the version's own result key (simulator/activities/versions.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest
from conftest import ROOT

JS = ROOT / "tests" / "js"
pytestmark = pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules" / "turnkey-http-v2").is_dir()),
    reason="node or tests/js/node_modules/turnkey-http-v2 missing (npm ci --prefix tests/js)",
)

EXPECTED = {  # call -> (the type it sent, the result key it reads)
    "createSubOrganizationV4": ("ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4", "createSubOrganizationResultV4"),
    "initOtpAuthV2": ("ACTIVITY_TYPE_INIT_OTP_AUTH_V2", "initOtpAuthResultV2"),
    "otpAuth": ("ACTIVITY_TYPE_OTP_AUTH", "otpAuthResult"),
    "initOtpAuthV1": ("ACTIVITY_TYPE_INIT_OTP_AUTH", "initOtpAuthResult"),
    "emailAuthV2": ("ACTIVITY_TYPE_EMAIL_AUTH_V2", "emailAuthResult"),
    "initUserEmailRecoveryV1": ("ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY", "initUserEmailRecoveryResult"),
    "createUsersV2": ("ACTIVITY_TYPE_CREATE_USERS_V2", "createUsersResult"),
    "createPolicyV3": ("ACTIVITY_TYPE_CREATE_POLICY_V3", "createPolicyResult"),
    "updatePolicyV1": ("ACTIVITY_TYPE_UPDATE_POLICY", "updatePolicyResult"),
}


@pytest.fixture
def sent(simulator: Any, simulator_credentials: dict[str, str]) -> dict[str, Any]:
    ready = {**simulator_credentials, "url": simulator.url}
    run = subprocess.run(
        ["node", str(JS / "old_versions.js"), json.dumps(ready)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)  # type: ignore[no-any-return]


def test_old_activity_types_complete_under_their_own_result_keys(sent, simulator):
    for call, (activity_type, result_key) in EXPECTED.items():
        answer = sent[call]
        assert "error" not in answer, (call, answer)
        assert (answer["type"], answer["status"]) == (activity_type, "ACTIVITY_STATUS_COMPLETED"), call
        assert answer["resultKeys"] == [result_key], call
    root = simulator.simulator.store.org(sent["subOrganizationId"]).root_user_ids[0]
    assert sent["otpAuth"]["result"]["userId"] == root
    assert sent["emailAuthV2"]["result"]["userId"] == root
    assert sent["initUserEmailRecoveryV1"]["result"] == {"userId": root}
    assert set(sent["initOtpAuthV1"]["result"]) == {"otpId"}
