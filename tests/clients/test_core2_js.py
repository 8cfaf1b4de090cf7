"""@turnkey/core 2.x (newest, npm alias turnkey-core-v2 in tests/js), unmodified, against the simulator
and its auth proxy: OTP sign-up and login (with js/core2-shim.js), passkey, OAuth and wallet sign-up
and login (attested and wallet-stamped stamp_login), sessions that stamp, and a read-write session
opened with @turnkey/crypto. Runs when node and tests/js/node_modules are present."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import DEFAULTS, ROOT, scenario_text

from simulator import Config, SimulatorServer
from simulator.crypto import service_keys

JS = ROOT / "tests" / "js"
SHIM = ROOT / "js" / "lib" / "trust" / "core2-shim.js"
pytestmark = pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules" / "turnkey-core-v2").is_dir()),
    reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)",
)


@pytest.fixture(scope="module")
def proxy_server(tmp_path_factory):
    scenario = tmp_path_factory.mktemp("core2") / "proxy.yaml"
    scenario.write_text(scenario_text("default.yaml") + "    authProxy: {configId: cfg-2}\n")
    with SimulatorServer(config=Config(scenarios=(scenario,))) as server:
        yield server


def run_core2(server, **extra) -> dict:
    given = {
        "url": server.url,
        "proxyUrl": server.proxy_url,
        "configId": "cfg-2",
        "organizationId": DEFAULTS["organizationId"],
        "email": "core2@example.com",
        "apiPublicKey": DEFAULTS["apiPublicKey"],
        "apiPrivateKey": DEFAULTS["apiPrivateKey"],
        **extra,
    }
    run = subprocess.run(
        ["node", str(JS / "core2x.js"), json.dumps(given)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert server.simulator.crashes == []
    return json.loads(run.stdout)  # type: ignore[no-any-return]


def test_the_shim_carries_the_simulators_published_otp_key():
    code = "console.log(require(process.argv[1]).SIMULATOR_OTP_SIGNER_PUBLIC_KEY)"
    run = subprocess.run(["node", "-e", code, str(SHIM)], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == service_keys.public_hex("enclave"), run.stderr


def test_unshimmed_core_2x_refuses_the_simulators_otp_bundle(proxy_server):
    """Why the shim exists: core 2.x checks the target bundle against the production key only."""
    error = run_core2(proxy_server)["error"]
    assert error["code"] == "VERIFY_OTP_ERROR"
    assert "does not match signer key from bundle" in error["cause"]


def test_core_2x_flows_run_unmodified(proxy_server):
    out = run_core2(proxy_server, shim=str(SHIM))
    otp_org = out["otpSignup"]["organizationId"]
    assert (out["otpSignup"]["action"], out["otpLogin"]["action"]) == ("SIGNUP", "LOGIN")
    assert out["otpLogin"]["organizationId"] == otp_org == out["otpLogin"]["whoamiOrg"]
    assert out["otpLogin"]["username"] == "core2@example.com"
    assert proxy_server.simulator.store.org(otp_org).users[out["otpLogin"]["userId"]].email_verified
    assert (out["oauthSignup"]["action"], out["oauthLogin"]["action"]) == ("SIGNUP", "LOGIN")
    assert out["oauthSignup"]["organizationId"] == out["oauthLogin"]["organizationId"] != otp_org
    passkey = out["passkey"]
    assert passkey["signedUp"] and passkey["signup"] == passkey["login"]
    assert passkey["whoamiUser"] == passkey["sessionUser"]
    wallet = out["wallet"]
    assert (wallet["signup"]["action"], wallet["login"]["action"]) == ("SIGNUP", "LOGIN")
    assert wallet["signup"]["organizationId"] == wallet["login"]["organizationId"]
    assert wallet["login"]["address"].lower() == wallet["expected"].lower()
    assert out["readWrite"]["userId"] == DEFAULTS["userId"]
    assert out["config"]["organizationId"] == DEFAULTS["organizationId"]
