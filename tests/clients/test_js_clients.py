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
pytestmark = pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules").is_dir()),
    reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)",
)


def test_sdk_server_and_http_clients_work_unmodified(simulator, simulator_credentials):
    ready = {**simulator_credentials, "url": simulator.url}
    run = subprocess.run(
        ["node", str(JS / "compat.js"), json.dumps(ready)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["createWallet"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert out["getWalletAccounts"] == out["createWallet"]["addresses"]
    assert out["getWhoami"]["userId"] == simulator_credentials["userId"]
    assert len(out["createUsers"]) == 1 and out["listUserTags"] == ["js"]
    assert out["getOrganizationConfigs"]["quorum"]["threshold"] == 1
    assert out["httpPoller"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert out["error"]["message"].startswith("Turnkey error 5: policies not found") and out["error"]["code"] == 5


def test_turnkey_crypto_opens_bundles_and_verifies_sessions(simulator, client):
    """An otp_auth bundle and a stamp_login session, checked by the official @turnkey/crypto."""
    from conftest import result_of
    from support import EMAIL, ClientKey, sub_org

    from simulator.crypto import service_keys

    org_id, user_id = sub_org(client)
    otp_id = result_of(
        client.submit(
            "init_otp_auth",
            "ACTIVITY_TYPE_INIT_OTP_AUTH_V3",
            {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, "appName": "Demo"},
            organizationId=org_id,
        ),
        "initOtpAuthResultV2",
    )["otpId"]
    target, session_key = ClientKey(), ClientKey()
    bundle = result_of(
        client.submit(
            "otp_auth",
            "ACTIVITY_TYPE_OTP_AUTH",
            {
                "otpId": otp_id,
                "otpCode": simulator.simulator.store.outbox[-1]["code"],
                "targetPublicKey": target.uncompressed,
            },
            organizationId=org_id,
        ),
        "otpAuthResult",
    )["credentialBundle"]
    session = result_of(
        client.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": session_key.public}), "stampLoginResult"
    )["session"]
    given = {
        "bundle": bundle,
        "receiverPrivateKey": target.private,
        "session": session,
        "notarizerPublicKey": service_keys.public_hex("notarizer"),
    }
    run = subprocess.run(["node", str(JS / "crypto.js"), json.dumps(given)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["sessionValid"] is True and out["claims"]["public_key"] == session_key.public
    keys = simulator.simulator.store.org(org_id).users[user_id].api_keys.values()
    from simulator.testing import ApiKeyStamper

    assert ApiKeyStamper(out["privateKey"]).public_key in {k.public_key for k in keys}


def test_turnkey_core_1x_flows_run_unmodified(tmp_path):
    """@turnkey/core 1.14.1: OTP sign-up then login, and OAuth sign-up then login, through the proxy."""
    from conftest import DEFAULTS, scenario_text

    from simulator import Config, SimulatorServer

    scenario = tmp_path / "proxy.yaml"
    scenario.write_text(scenario_text("default.yaml") + "    authProxy: {configId: cfg-1}\n")
    with SimulatorServer(config=Config(scenarios=(scenario,))) as server:
        given = {
            "url": server.url,
            "proxyUrl": server.proxy_url,
            "configId": "cfg-1",
            "organizationId": DEFAULTS["organizationId"],
            "email": "core@example.com",
        }
        run = subprocess.run(
            ["node", str(JS / "core1x.js"), json.dumps(given)], capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, run.stderr
        out = json.loads(run.stdout)
        assert server.simulator.crashes == []
    assert (out["signup"]["action"], out["login"]["action"]) == ("SIGNUP", "LOGIN")
    assert (
        out["whoami"]["username"] == "core@example.com"
        and out["whoami"]["organizationId"] == out["session"]["organizationId"]
    )
    assert out["secondSession"] == out["session"]["organizationId"]
    assert (out["oauthSignup"]["action"], out["oauthLogin"]["action"]) == ("SIGNUP", "LOGIN")
    assert out["oauthLoginOrg"] == out["oauthSignupOrg"] != out["session"]["organizationId"]
    assert out["error"]["code"] == "VERIFY_OTP_ERROR"


def test_turnkey_crypto_seals_otp_codes_for_verify_otp_v2(simulator, client):
    from conftest import result_of
    from support import EMAIL, ClientKey, atob_json, sub_org

    from simulator.crypto import service_keys

    sub_org(client)
    started = result_of(
        client.submit(
            "init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, "appName": "Demo"}
        ),
        "initOtpResultV2",
    )
    key = ClientKey()
    given = {
        "bundle": started["otpEncryptionTargetBundle"],
        "code": simulator.simulator.otp_code(EMAIL),
        "publicKey": key.public,
        "signer": service_keys.public_hex("enclave"),
    }
    run = subprocess.run(["node", str(JS / "otp_v2.js"), json.dumps(given)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    token = result_of(
        client.submit(
            "verify_otp",
            "ACTIVITY_TYPE_VERIFY_OTP_V2",
            {"otpId": started["otpId"], "encryptedOtpBundle": run.stdout.strip()},
        ),
        "verifyOtpResult",
    )["verificationToken"]
    assert atob_json(token.split(".")[1])["public_key"] == key.public
