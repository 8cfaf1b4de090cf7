"""A web app against `wallet-simulator serve`, in headless Chromium: the kit and core 2.x unmodified.

tests/webapp/ holds a React page with ``@turnkey/react-wallet-kit`` and a plain page with
``@turnkey/core`` 2.x. They are bundled once (esbuild, with the JS helper's trust plugin) into a
temporary directory, served on ``http://localhost:<port>`` (an origin of its own), and call the
simulator's two ports directly: no dev-server proxy. ``tests/webapp/drive.js`` runs every flow in
Debian's Chromium through playwright-core and reports what it saw; each test here checks one flow.
Skipped, with the reason, when node, tests/js/node_modules or chromium are missing. Every wait is
for a condition under a generous bound (support.BROWSER_STEP_SECONDS a step, BROWSER_RUN_SECONDS the
build and the node run), so a loaded machine only slows them.
"""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from browser_apps import CHROMIUM, CONFIG_ID, NODE, built_and_served, missing, serve, stop
from conftest import DEFAULTS, ROOT
from support import BROWSER_RUN_SECONDS, BROWSER_STEP_SECONDS

from simulator.control.control_client import ControlClient

WEBAPP = ROOT / "tests" / "webapp"
NEEDED = ("playwright-core", "esbuild", "@turnkey/react-wallet-kit", "turnkey-core-v2", "react-dom", "viem")
pytestmark = pytest.mark.skipif(
    missing(*NEEDED),
    reason="the web-app browser tests need node, Debian's chromium and tests/js/node_modules "
    "(apt-get install -y chromium; npm ci --prefix tests/js)",
)
ELSEWHERE = "http://elsewhere.example"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The bundled web app, built once (60 s at most), served on loopback under ``localhost``."""
    with built_and_served(
        WEBAPP / "build.js", tmp_path_factory.mktemp("webapp"), timeout=BROWSER_RUN_SECONDS
    ) as origin:
        yield origin


@pytest.fixture(scope="module")
def run(app: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Every flow, run once in one browser: ``report`` (flow name → what it saw) and the ready lines."""
    logs = tmp_path_factory.mktemp("serve")
    main, ready = serve(log=logs / "main.log")
    try:
        refusing, refusing_ready = serve("--cors-origin", ELSEWHERE, log=logs / "refusing.log")
        try:
            given = {
                "app": app,
                "chromium": CHROMIUM,
                "sim": site(ready),
                "refused": site(refusing_ready),
                "stepMs": BROWSER_STEP_SECONDS * 1000,
            }
            driven = subprocess.run(
                [str(NODE), str(WEBAPP / "drive.js"), json.dumps(given)],
                capture_output=True,
                text=True,
                timeout=BROWSER_RUN_SECONDS,
            )
            assert driven.returncode == 0, driven.stderr[-3000:]
            yield {
                "report": json.loads(driven.stdout),
                "ready": ready,
                "control": ControlClient(ready["url"]),
                "log": logs / "main.log",
            }
        finally:
            stop(refusing)
    finally:
        stop(main)


def site(ready: dict[str, Any]) -> dict[str, str]:
    """What a page needs, straight from the ready line: the SDKs' apiBaseUrl, authProxyUrl, config id, org."""
    return {
        "url": ready["url"],
        "proxyUrl": ready["proxyUrl"],
        "configId": ready["authProxyConfigId"],
        "organizationId": ready["organizationId"],
    }


def flow(run: dict[str, Any], name: str) -> dict[str, Any]:
    seen: dict[str, Any] = run["report"][name]
    assert seen["ok"], json.dumps(seen, indent=1)[:4000]
    return seen


def test_the_ready_line_names_the_auth_proxy_the_pages_use(run):
    assert run["ready"]["authProxyConfigId"] == CONFIG_ID
    assert run["ready"]["organizationId"] == DEFAULTS["organizationId"]
    assert "Traceback" not in run["log"].read_text(), "no request the pages made crashed serve"


def test_email_otp_sign_up_then_login_through_the_kits_modal(run):
    seen = flow(run, "kitOtp")
    signup, login = seen["signup"], seen["login"]
    assert (signup["action"], login["action"]) == ("SIGNUP", "LOGIN")
    assert signup["method"] == login["method"] == "otp"
    assert signup["organizationId"] == login["organizationId"] != DEFAULTS["organizationId"]
    assert signup["userId"] == login["userId"]
    # the sub-organization the kit's sign-up made, with the e-mail it verified
    assert [m["contact"] for m in run["control"].outbox("kit-otp@example.com")] == ["kit-otp@example.com"] * 2


def test_passkey_sign_up_and_login_with_the_virtual_authenticator(run):
    seen = flow(run, "kitPasskey")
    signup, login = seen["signup"], seen["login"]
    assert (signup["action"], login["action"]) == ("SIGNUP", "LOGIN")
    assert signup["method"] == login["method"] == "passkey"
    assert signup["organizationId"] == login["organizationId"] != DEFAULTS["organizationId"]
    assert signup["userId"] == login["userId"]
    # the one credential Chrome's virtual authenticator made, for the page's host, is the one that logged in
    (credential_id,) = seen["credentialIds"]
    assert seen["rpId"] == "localhost"
    assert signup["identifier"] == login["identifier"] == base64url(credential_id)


def base64url(standard: str) -> str:
    """DevTools gives credential ids in standard base64; WebAuthn and the SDKs in base64url, unpadded."""
    return base64.urlsafe_b64encode(base64.b64decode(standard)).decode().rstrip("=")


def test_a_wallet_made_in_the_page_signs_a_message_viem_verifies(run):
    kit = flow(run, "kitOtp")["wallet"]
    assert kit["address"].startswith("0x") and kit["verified"] is True
    core = flow(run, "coreWallet")
    assert core["login"]["action"] == "SIGNUP"
    assert core["verified"] is True


def test_export_without_the_iframe_decrypts_to_the_wallets_mnemonic(run):
    """decryptExportBundle with no signer override: the bundle's trust plugin makes it accept the simulator's key."""
    seen = flow(run, "coreWallet")
    assert seen["words"] == 12
    assert seen["derived"] == seen["address"]
    assert seen["trustBanner"], "the trusted bundle says so in the console"


def test_a_forged_passkey_is_refused(run):
    """The registered credential id and user handle, signed with a key the simulator never saw."""
    forged = flow(run, "kitPasskey")["forged"]
    assert forged["authenticated"] is False and forged["auth"] == "unauthenticated"
    assert forged["error"]["code"] == "PASSKEY_LOGIN_AUTH_ERROR"
    refused = [e for e in run["control"].journal("stamp_login") if e["status"] != 200]
    assert refused, "the simulator saw and refused the forged assertion"
    assert refused[-1]["status"] == 401
    assert "does not verify with the passkey's registered key" in refused[-1]["outcome"]["message"]


def test_a_disallowed_origin_is_refused(run):
    """serve --cors-origin another origin: the browser blocks the page's calls; the allowed simulator answers."""
    seen = flow(run, "refusedOrigin")
    assert seen["refused"]["main"]["error"] == seen["refused"]["proxy"]["error"] == "TypeError: Failed to fetch"
    assert seen["allowed"]["main"] == {"status": 401}  # reached the simulator (an unverifiable stamp)
    assert seen["allowed"]["proxy"] == {"status": 200}
    assert "error" in seen["sdk"]
    assert any("CORS policy" in line for line in seen["console"])
