"""The simulator's export, import and auth frames, in headless Chromium, through Turnkey's code unmodified.

``wallet-simulator serve`` serves the frames (simulator/frames) and prints their URLs in the ready
line. tests/frames/ holds two pages, bundled once with esbuild: a plain page with
``@turnkey/sdk-browser`` whose ``iframeClient``s (``@turnkey/iframe-stamper``) load the three
frames, and a React page with ``@turnkey/react-wallet-kit`` configured with ``exportIframeUrl`` and
``importIframeUrl``. ``tests/frames/drive.js`` runs every flow through playwright-core and reports
what it saw; each test here checks one flow. The page is served on ``http://localhost:<port>``,
the frames on the simulator's ``127.0.0.1`` port: another origin, as in production. Skipped, with
the reason, when node, tests/js/node_modules or chromium are missing. Every wait is for a condition
under a generous bound (support.BROWSER_STEP_SECONDS a step, BROWSER_RUN_SECONDS the node run), so
a loaded machine only slows them.
"""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request
from collections.abc import Iterator
from typing import Any

import base58
import pytest
from browser_apps import CHROMIUM, NODE, built_and_served, missing, serve, stop
from conftest import DEFAULTS, ROOT
from support import BROWSER_RUN_SECONDS, BROWSER_STEP_SECONDS

from simulator.cli import ready_line
from simulator.config import Config
from simulator.core import Simulator
from simulator.crypto import service_keys
from simulator.web.app import create_app

FRAMES = ROOT / "tests" / "frames"
NEEDED = (
    "playwright-core",
    "esbuild",
    "@turnkey/sdk-browser",
    "@turnkey/react-wallet-kit",
    "@turnkey/sdk-server",
    "viem",
    "bs58",
)
MISSING = missing(*NEEDED)
UNABLE_TO_DECRYPT = "Error: unable to decrypt bundle using embedded key. the bundle may be incorrect."


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The two pages, built once and served on loopback under ``localhost`` (another origin than the frames)."""
    if MISSING:
        pytest.skip(
            "the frames' browser tests need node, Debian's chromium and tests/js/node_modules "
            "(apt-get install -y chromium; npm ci --prefix tests/js)"
        )
    with built_and_served(
        FRAMES / "build.js", tmp_path_factory.mktemp("frames"), timeout=BROWSER_RUN_SECONDS
    ) as origin:
        yield origin


@pytest.fixture(scope="module")
def run(pages: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Every flow, run once in one browser against one ``serve``: the report (flow name → what it saw)."""
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    proc, ready = serve(log=log)
    try:
        given = {
            "page": f"{pages}/page.html",
            "chromium": CHROMIUM,
            "ready": ready,
            "stepMs": BROWSER_STEP_SECONDS * 1000,
        }
        driven = subprocess.run(
            [str(NODE), str(FRAMES / "drive.js"), json.dumps(given)],
            capture_output=True,
            text=True,
            timeout=BROWSER_RUN_SECONDS,
        )
        assert driven.returncode == 0, driven.stderr[-3000:]
        yield {"report": json.loads(driven.stdout), "ready": ready, "log": log}
    finally:
        stop(proc)


# without a browser ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["export", "import", "auth"])
def test_the_pages_are_served_without_the_control_api_and_fetch_nothing(kind):
    """An app needs the frames as much as the API: they do not depend on the control API or the inspector."""
    client = create_app(Simulator(Config(seed=3, control=False))).test_client()
    with client.get(f"/frames/{kind}") as page:
        assert page.status_code == 200 and page.mimetype == "text/html"
        html = page.get_data(as_text=True)
        assert "default-src 'none'; script-src 'self'" in page.headers["Content-Security-Policy"]
    assert f'content="{service_keys.public_hex("signer")}"' in html
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets and all(a.startswith("/frames/static/") or a == "data:," for a in assets)
    for asset in assets[1:]:
        with client.get(asset) as served:
            assert served.status_code == 200
            assert not re.search(rb"https?://", served.get_data()), f"{asset} reaches beyond the simulator"


def test_the_ready_line_names_the_frames_on_the_main_port(simulator):
    line = ready_line(simulator)
    assert {k: v for k, v in line.items() if k.endswith("IframeUrl")} == {
        "exportIframeUrl": f"{simulator.url}/frames/export",
        "importIframeUrl": f"{simulator.url}/frames/import",
        "authIframeUrl": f"{simulator.url}/frames/auth",
    }


# in the browser ---------------------------------------------------------------------------------------
def flow(run: dict[str, Any], name: str) -> dict[str, Any]:
    seen: dict[str, Any] = run["report"][name]
    assert seen["ok"], json.dumps(seen, indent=1)[:4000]
    return seen


def refusal(run: dict[str, Any], name: str) -> dict[str, Any]:
    """A refusal: the SDK's promise rejected with the frame's message, and the frame shows that message."""
    seen: dict[str, Any] = flow(run, "refusals")[name]
    assert seen["error"], f"{name} was not refused: {seen}"
    assert seen["shown"] == seen["error"], "the frame shows the error it sent up, never a blank"
    return seen


def test_the_ready_line_names_the_three_frames_and_serve_serves_them(run):
    ready = run["ready"]
    assert [ready[f"{kind}IframeUrl"] for kind in ("export", "import", "auth")] == [
        f"{ready['url']}/frames/{kind}" for kind in ("export", "import", "auth")
    ]
    with urllib.request.urlopen(ready["exportIframeUrl"], timeout=10) as reply:
        page = reply.read().decode()
        assert "connect-src 'none'" in reply.headers["Content-Security-Policy"]
    assert ready["signerPublicKey"] in page, "the page trusts the simulator's signer key"
    assert "Traceback" not in run["log"].read_text(), "no request the pages made crashed serve"


def test_email_auth_credential_injected_into_the_auth_frame_stamps_requests(run):
    seen = flow(run, "sdkBrowser")
    login = seen["login"]
    assert login["injected"] is True
    assert login["embedded"].startswith("04") and len(login["embedded"]) == 130
    assert login["whoami"]["organizationId"] == seen["subOrg"] != DEFAULTS["organizationId"]
    assert login["whoami"]["userId"] == seen["userId"], "the frame's stamp authenticated as the e-mailed user"
    assert login["status"].startswith("Credential 0") and login["status"].endswith(" injected.")


def test_a_wallet_exported_through_the_frame_shows_its_mnemonic(run):
    exported = flow(run, "sdkBrowser")["exportWallet"]
    assert exported["injected"] is True and exported["words"] == 12
    assert exported["derived"] == exported["address"]


def test_a_wallet_account_and_a_private_key_exported_through_the_frame(run):
    seen = flow(run, "sdkBrowser")
    assert seen["exportAccount"]["key0x"] is True
    assert seen["exportAccount"]["derived"] == seen["exportAccount"]["address"]
    assert seen["exportKey"]["derived"] == seen["exportKey"]["address"]
    # the same key in Bitcoin's wallet import format: version 0x80, the key, the compressed flag
    assert (
        base58.b58decode_check(seen["exportKey"]["wif"])
        == b"\x80" + bytes.fromhex(seen["exportKey"]["hex"][2:]) + b"\x01"
    )


def test_a_solana_account_exported_as_a_base58_keypair(run):
    solana = flow(run, "sdkBrowser")["exportSolana"]
    assert solana["length"] == 64
    assert solana["publicHalf"] == solana["address"]


def test_a_mnemonic_typed_into_the_import_frame_makes_a_wallet_that_signs(run):
    imported = flow(run, "sdkBrowser")["importWallet"]
    assert imported["injected"] is True
    assert imported["sealed"] == ["ciphertext", "encappedPublic"]
    assert imported["address"] == imported["derived"]
    assert imported["verified"] is True


def test_a_private_key_pasted_into_the_import_frame_signs(run):
    imported = flow(run, "sdkBrowser")["importKey"]
    assert imported["address"] == imported["derived"]
    assert imported["verified"] is True


def test_a_solana_keypair_imported_through_the_frame(run):
    imported = flow(run, "sdkBrowser")["importSolana"]
    assert imported["address"] == imported["expected"]


def test_the_kits_export_and_import_modals_through_the_frames(run):
    """react-wallet-kit unmodified, with only exportIframeUrl and importIframeUrl configured."""
    seen = flow(run, "kit")
    assert seen["exportWallet"]["words"] == 12
    assert seen["exportWallet"]["derived"] == seen["exportWallet"]["address"]
    assert seen["exportWallet"]["styled"] == "16px", "the kit's APPLY_SETTINGS styles reach the frame"
    assert seen["importWallet"]["derived"] == seen["importWallet"]["address"]
    assert seen["importWallet"]["verified"] is True
    assert seen["errors"] == []


def test_an_export_bundle_for_another_organization_is_refused(run):
    seen = refusal(run, "wrongOrganization")
    assert seen["error"].startswith(
        f"Error: organization id does not match expected value. Expected: {DEFAULTS['organizationId']}. Found: "
    )


def test_an_export_bundle_sealed_to_another_frames_key_is_refused(run):
    assert refusal(run, "anotherKey")["error"].startswith(UNABLE_TO_DECRYPT)


def test_a_tampered_or_foreign_signed_export_bundle_is_refused(run):
    assert refusal(run, "tamperedSignature")["error"].startswith("Error: failed to verify enclave signature: ")
    foreign = refusal(run, "anotherSigner")["error"]
    assert foreign.startswith(
        f"Error: enclave quorum public keys from client and bundle do not match. Client: {run['ready']['signerPublicKey']}. Bundle: 04"
    )
    # a refused bundle does not use the frame's key up: the right one still opens in the same frame
    assert flow(run, "refusals")["afterRefusals"] == {"injected": True, "words": 12}


def test_import_bundles_for_another_organization_or_user_are_refused(run):
    assert refusal(run, "importWrongOrganization")["error"].startswith(
        f"Error: organization id does not match expected value. Expected: {DEFAULTS['organizationId']}. Found: "
    )
    assert refusal(run, "importWrongUser")["error"].startswith(
        f"Error: user id does not match expected value. Expected: {DEFAULTS['userId']}. Found: "
    )
    assert refusal(run, "extractWithoutBundle")["error"] == "Error: no target key found"


def test_malformed_mnemonics_and_keys_are_refused(run):
    assert refusal(run, "newlineMnemonic")["error"] == "Error: mnemonic cannot include newline characters"
    assert refusal(run, "malformedKey")["error"] == "Error: cannot create uint8array from invalid hex string"
    # words that are not BIP-39: the frame encrypts them (the real one does not check either); import_wallet refuses
    not_bip39 = flow(run, "refusals")["notBip39"]
    assert not_bip39["sealed"] == "string"
    assert "invalid mnemonic" in not_bip39["serverError"]


def test_the_auth_and_export_frames_report_clear_and_renew_their_embedded_key(run):
    for frame, seen in flow(run, "refusals")["embeddedKeys"].items():
        assert seen["announced"] is True, frame
        assert seen["cleared"] is None and not seen["afterClear"], frame
        assert re.fullmatch(r"04[0-9a-f]{128}", seen["renewed"]) and seen["stillThere"] == seen["renewed"], frame


def test_the_auth_frame_refuses_to_stamp_without_a_credential_and_a_credential_for_another_key(run):
    assert refusal(run, "stampWithoutCredential")["error"] == (
        "Error: cannot sign payload without credential. Credential bytes are null. "
        "Has a credential bundle been injected into the iframe?"
    )
    assert refusal(run, "credentialForAnotherKey")["error"].startswith(UNABLE_TO_DECRYPT)
