"""Helpers several test modules share (no tests here): the error shape, client-side keys and
bundles written from the published algorithms, and small request builders.

Test modules import from here, never from each other.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import base58
from bip_utils import Bip39SeedGenerator, Bip44, Bip44Changes, Bip44Coins  # type: ignore[import-untyped]
from conftest import ETH_ACCOUNT, ROOT, preloaded_env, result_of
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from simulator.crypto import service_keys
from simulator.testing import ApiKeyStamper, ClientKeyPair, SimulatorClient

EMAIL = "alice@example.com"
SOL_ACCOUNT = {
    "curve": "CURVE_ED25519",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/501'/0'/0'",
    "addressFormat": "ADDRESS_FORMAT_SOLANA",
}


# --- the one error shape ------------------------------------------------------------------------


def assert_error(response: Any, status: int, code: int, *phrases: str) -> dict[str, Any]:
    assert response.status == status, response.body
    body: dict[str, Any] = response.body
    assert set(body) == {"code", "message", "details", "turnkeyErrorCode"}
    assert body["code"] == code
    assert body["details"][0]["@type"] == "type.googleapis.com/errors.v1.TurnkeyErrorDetail"
    assert body["details"][0]["turnkeyErrorCode"] == body["turnkeyErrorCode"]
    for phrase in phrases:
        assert phrase in body["message"]
    return body


# --- request builders ---------------------------------------------------------------------------


def submit(client: Any, op: str, params: dict[str, Any], result_key: str, activity_type: str | None = None) -> Any:
    return result_of(client.submit(op, activity_type or f"ACTIVITY_TYPE_{op.upper()}", params), result_key)


def stamped_activity(sim: Any, kind: str, parameters: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    """An activity's body for ``sim`` (a ``Simulator``) and its headers, stamped with its default credentials (the
    first scenario's root key), ``timestampMs`` 0 (for a simulator without the time window)."""
    creds = sim.default_credentials()
    body = {"type": kind, "timestampMs": "0", "organizationId": creds["organizationId"], "parameters": parameters}
    raw = json.dumps(body).encode()
    name, value = ApiKeyStamper(creds["apiPrivateKey"]).stamp(raw)
    return raw, {"Content-Type": "application/json", name: value}


def submit_in_process(sim: Any, op: str, kind: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """An activity ``sim`` answers through its Python API, no HTTP (``stamped_activity``)."""
    answer: dict[str, Any] = sim.submit(op, *stamped_activity(sim, kind, parameters))
    return answer


def new_wallet(client: Any, name: str = "w", accounts: list[Any] | None = None) -> Any:
    params = {"walletName": name, "accounts": accounts or [ETH_ACCOUNT, SOL_ACCOUNT]}
    return submit(client, "create_wallet", params, "createWalletResult")


def sub_org(client: Any, **root_user: Any) -> tuple[str, str]:
    user = {"userName": "Alice", "userEmail": EMAIL, "apiKeys": [], "authenticators": [], "oauthProviders": []}
    params = {
        "subOrganizationName": "alice's org",
        "rootUsers": [{**user, **root_user}],
        "rootQuorumThreshold": 1,
        "wallet": {"walletName": "Default", "accounts": [ETH_ACCOUNT]},
    }
    result = result_of(
        client.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", params),
        "createSubOrganizationResultV7",
    )
    assert result["wallet"]["addresses"][0].startswith("0x")
    return result["subOrganizationId"], result["rootUserIds"][0]


def sub_org_with_key(client: Any, name: str = "sub") -> tuple[str, str, SimulatorClient]:
    """A sub-organization (V7, an Ethereum wallet) whose root user has a P-256 API key: its id, the wallet's
    address, and a client stamping with that key in it."""
    key = ClientKeyPair.generate()
    user = {
        "userName": "Sub Root",
        "apiKeys": [{"apiKeyName": "k", "publicKey": key.public_key, "curveType": "API_KEY_CURVE_P256"}],
        "authenticators": [],
        "oauthProviders": [],
    }
    params = {
        "subOrganizationName": name,
        "rootUsers": [user],
        "rootQuorumThreshold": 1,
        "wallet": {"walletName": "Default", "accounts": [ETH_ACCOUNT]},
    }
    made = submit(
        client,
        "create_sub_organization",
        params,
        "createSubOrganizationResultV7",
        "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
    )
    org_id = made["subOrganizationId"]
    return (
        org_id,
        made["wallet"]["addresses"][0],
        SimulatorClient(client.base_url, ApiKeyStamper(key.private_key), org_id),
    )


# --- the client's side, from the published algorithms -------------------------------------------


def eth_address_of(mnemonic: str) -> str:
    seed = Bip39SeedGenerator(mnemonic).Generate()
    account = Bip44.FromSeed(seed, Bip44Coins.ETHEREUM).Purpose().Coin().Account(0).Change(Bip44Changes.CHAIN_EXT)
    return str(account.AddressIndex(0).PublicKey().ToAddress())


class ClientKey:
    """A key pair as a browser client makes one for a session or a bundle."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.public = self.key.public_key().public_bytes(Encoding.X962, PublicFormat.CompressedPoint).hex()
        self.uncompressed = self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint).hex()
        self.private = f"{self.key.private_numbers().private_value:064x}"

    def raw_signature(self, message: str) -> str:
        r, s = decode_dss_signature(self.key.sign(message.encode(), ec.ECDSA(hashes.SHA256())))
        return (r.to_bytes(32, "big") + s.to_bytes(32, "big")).hex()


def client_signature(token: str, key: ClientKey, usage: dict[str, Any], kind: str) -> dict[str, str]:
    """clientSignature as @turnkey/core 1.x builds it: raw r‖s over the usage message naming the token."""
    claims = json.loads(base64.b64decode(token.split(".")[1] + "=="))
    message = json.dumps({**usage, "tokenId": claims["id"], "type": kind})
    return {
        "publicKey": key.public,
        "scheme": "CLIENT_SIGNATURE_SCHEME_API_P256",
        "message": message,
        "signature": key.raw_signature(message),
    }


def atob_json(segment: str) -> Any:
    assert "-" not in segment and "_" not in segment  # atob in the JS clients rejects them
    return json.loads(base64.b64decode(segment + "=" * (-len(segment) % 4)))


def verify_session(jwt: str) -> Any:
    """verifySessionJwtSignature: raw r‖s over SHA-256(SHA-256(header.payload)), notarizer key."""
    header, payload, signature = jwt.split(".")
    raw = base64.urlsafe_b64decode(signature + "==")
    key = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), bytes.fromhex(service_keys.public_hex("notarizer"))
    )
    digest = hashlib.sha256(f"{header}.{payload}".encode()).digest()
    key.verify(
        encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
        digest,
        ec.ECDSA(hashes.SHA256()),
    )
    return atob_json(payload)


def open_bundle(bundle: str, client: ClientKey) -> str:
    """decryptCredentialBundle: bs58check(enc ‖ ct), HPKE with info turnkey_hpke, AAD enc ‖ receiver,
    opened by OpenSSL's HPKE (the server seals with pyhpke, so this check is independent)."""
    from bundle_checks import independent_open

    raw = base58.b58decode_check(bundle)
    enc = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw[:33]).public_bytes(
        Encoding.X962, PublicFormat.UncompressedPoint
    )
    return independent_open(enc, raw[33:], client.key).hex()


def seal_to_target(bundle: str, plaintext: bytes) -> str:
    """encryptOtpCodeToBundle's output, made with pyhpke: enc ‖ ct sealed to the target key."""
    from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKey

    data = json.loads(bytes.fromhex(json.loads(bundle)["data"]))
    target = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(data["targetPublic"]))
    suite = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)
    enc, sender = suite.create_sender_context(KEMKey.from_pyca_cryptography_key(target), info=b"turnkey_hpke")
    ciphertext = sender.seal(plaintext, aad=enc + bytes.fromhex(data["targetPublic"]))
    return json.dumps({"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()})


# --- a real browser: Debian's chromium through its WebDriver ------------------------------------------
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
NO_CHROMIUM = "browser tests need Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)"
CHROMIUM_FLAGS = (  # headless, and nothing that reaches beyond loopback (this machine's network is closed)
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1440,900",
)


@contextmanager
def serving(server: ThreadingHTTPServer) -> Iterator[str]:
    """Serve ``server`` (bound on loopback) from a thread until the block ends; yields ``http://localhost:<port>``,
    a secure context for WebAuthn and the browser SDKs."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# A served simulator stops in well under a second; on a loaded machine (CI jobs side by side) a process
# may wait long for a core, so a test bounds the stop generously instead of failing on load (issue 34).
PROCESS_STOP_SECONDS = 120


# Browser waits are for a condition (an element, an attribute, an event) under these bounds: a loaded
# machine (CI jobs side by side) only slows them, so the bounds are generous (issue 34).
BROWSER_STEP_SECONDS = 90  # one awaited condition, page load or script
BROWSER_RUN_SECONDS = 900  # one node run of every flow, side by side in one browser


@contextmanager
def chromium(
    *, console_log: bool = False, script_timeout: int = BROWSER_STEP_SECONDS, flags: tuple[str, ...] = ()
) -> Iterator[Any]:
    """A selenium WebDriver on a headless chromium with a profile of its own, quit on exit; ``flags`` add to
    CHROMIUM_FLAGS (tests/browser/test_security_browser.py maps attacker names onto loopback with them)."""
    import pytest

    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    with tempfile.TemporaryDirectory() as profile:
        for flag in (*CHROMIUM_FLAGS, *flags, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
        driver.set_page_load_timeout(BROWSER_STEP_SECONDS)
        driver.set_script_timeout(script_timeout)
        try:
            yield driver
        finally:
            driver.quit()


# --- refusals change nothing --------------------------------------------------------------------------
def state_text(control: Any) -> str:
    """The control API's state export, as comparable text."""
    return json.dumps(control.state(), sort_keys=True)


def refused_unchanged(control: Any, send: Any, status: int, code: int, *phrases: str) -> dict[str, Any]:
    """Send a request that must be refused (``send()``); the state export is the same before and after."""
    before = state_text(control)
    body = assert_error(send(), status, code, *phrases)
    assert state_text(control) == before
    return body


# --- policies ---------------------------------------------------------------------------------------
def create_policy(root: Any, name: str, condition: str, consensus: str = "", effect: str = "EFFECT_ALLOW") -> Any:
    return root.submit(
        "create_policy",
        "ACTIVITY_TYPE_CREATE_POLICY_V3",
        {"policyName": name, "effect": effect, "condition": condition, "consensus": consensus, "notes": ""},
    )


def refused_by_an_erroring_policy(dave: Any) -> str:
    """Dave asks for something only the self-delete policy could speak to: it errors, nothing allows."""
    refused = dave.submit(
        "create_private_key_tag",
        "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
        {"privateKeyTagName": "t", "privateKeyIds": []},
    )
    body = assert_error(refused, 403, 7)
    detail = next(d for d in body["details"] if "policyEvaluations" in d)
    assert [e["outcome"] for e in detail["policyEvaluations"]] == ["OUTCOME_ERROR"]
    return str(detail["activityId"])


POLICY_DENY_DAVE = "da4e0000-0000-4000-8000-00000000d001"  # the non-root user of scenarios/policy_deny.yaml
SELF_DELETE = (  # docs: features/policies/delegated-access/agentic-wallets.mdx, verbatim but for the id
    "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 "
    f"&& '{POLICY_DENY_DAVE}' in activity.params.user_ids"
)


def packed_helper(where: Path) -> Path:
    """The tarball ``npm pack`` makes of the JS helper (js/) in ``where``: what a user installs."""
    packed = subprocess.run(
        [
            "npm",
            "pack",
            str(Path(__file__).resolve().parent.parent / "js"),
            "--pack-destination",
            str(where),
            "--silent",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return where / packed.stdout.strip().splitlines()[-1]


def project_with_the_helper(where: Path, name: str) -> Path:
    """A new npm project ``where/name`` with the JS helper installed from ``npm pack`` of js/, as a user
    following the docs installs it (offline: its dependencies come from npm's cache)."""
    tarball = packed_helper(where)
    app = where / name
    app.mkdir()
    (app / "package.json").write_text(json.dumps({"name": name, "private": True}))
    subprocess.run(
        ["npm", "install", "--offline", "--no-audit", "--no-fund", "--save-dev", str(tarball)],
        cwd=app,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return app


# Running the docs' code blocks as a reader would (tests/docs/test_readme.py for today's pages,
# tests/compat/test_release_suites.py for what earlier releases published).
NODE = shutil.which("node")
JS_MODULES = ROOT / "tests" / "js" / "node_modules"
PRELOADED_SCRIPT = "import defer_pydantic_build, runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"


def with_urls(code: str, server: Any) -> str:
    """A block written for ``serve``'s default ports, pointed at ``server``."""
    return code.replace("http://127.0.0.1:8080", server.url).replace("http://127.0.0.1:8081", server.proxy_url)


def run_python_block(code: str, server: Any, where: Path) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter runs the block as __main__ against ``server`` (after tests/preload's setting)."""
    script = where / "snippet.py"
    script.write_text(with_urls(code, server))
    command = [sys.executable, "-c", PRELOADED_SCRIPT, str(script)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=where, env=preloaded_env())


def run_pytest_block(code: str, where: Path) -> subprocess.CompletedProcess[str]:
    """The block as the test module of a downstream suite: pytest in ``where``, the plugin's fixtures."""
    (where / "test_snippet.py").write_text(code)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_snippet.py"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=where,
        env=preloaded_env(),
    )


def node_env(where: Path) -> dict[str, str]:
    """``wallet-simulator-testing`` resolves to js/, the official clients to tests/js/node_modules."""
    modules = where / "node_modules"
    modules.mkdir(exist_ok=True)
    link = modules / "wallet-simulator-testing"
    if not link.exists():
        link.symlink_to(ROOT / "js", target_is_directory=True)
    return {
        **os.environ,
        "NODE_PATH": os.pathsep.join([str(modules), str(JS_MODULES)]),
        "WALLET_SIMULATOR_COMMAND": json.dumps([sys.executable, "-m", "simulator"]),
    }


def run_js_block(code: str, server: Any, where: Path) -> subprocess.CompletedProcess[str]:
    script = where / "snippet.js"
    script.write_text(with_urls(code, server))
    return subprocess.run(
        [str(NODE), str(script)], capture_output=True, text=True, timeout=120, cwd=where, env=node_env(where)
    )
