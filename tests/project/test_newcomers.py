"""What newcomers of every stack tripped on (issue 40), shown gone through the real surfaces: the
outbox's long poll (HTTP, the Python and JS clients), quiet control reads in the request log,
reason phrases in their usual case, otp_login refusals that name the problem, turnkey_client
without turnkey-http, the frames' test ids and the JS Playwright entry point without
@playwright/test. The tutorials themselves run in test_webapp_tutorial.py and test_pytest_tutorial.py."""

from __future__ import annotations

import http.client
import json
import logging
import shutil
import subprocess
import threading
import time
from urllib.parse import urlsplit

import pytest
from conftest import DEFAULTS, ROOT, result_of
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from support import assert_error

from simulator import Config, SimulatorServer, testing
from simulator.control.control_client import ControlClient
from simulator.crypto import keys
from simulator.http import logs

NODE = shutil.which("node")
EMAIL = "ada@example.com"
INIT_OTP = {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, "appName": "Payouts"}


def send_otp_later(client, delay: float) -> threading.Thread:
    def send() -> None:
        time.sleep(delay)  # the app "sends" the code while the test is already waiting for it
        client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", INIT_OTP)

    thread = threading.Thread(target=send)
    thread.start()
    return thread


# waiting without noise ---------------------------------------------------------------------------
def test_the_outbox_long_poll_answers_when_the_code_arrives(simulator, client):
    control = ControlClient(simulator.url)
    sender = send_otp_later(client, 0.3)
    started = time.monotonic()
    sent = control.outbox_waiting(EMAIL, wait=20)
    sender.join()
    assert len(sent) == 1 and sent[0]["contact"] == EMAIL
    assert time.monotonic() - started < 10  # answered when the code came, not at the end of the wait


def test_a_long_poll_answers_what_there_is_when_the_wait_ends(simulator, client):
    control = ControlClient(simulator.url)
    started = time.monotonic()
    assert control.outbox_waiting(EMAIL, wait=0.2) == []
    assert time.monotonic() - started >= 0.2
    client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", INIT_OTP)
    assert len(control.outbox_waiting(EMAIL, wait=0.2, after=1)) == 1  # after: wait for a second one


@pytest.mark.parametrize("query", ["wait=soon", "wait=31", "wait=-1", "wait=nan", "wait=1&after=-2", "wait=1&after=x"])
def test_a_bad_wait_is_a_400_in_the_error_shape(simulator, query):
    reply = testing.SimulatorClient(simulator.url, None, "").post(f"/_simulator/outbox?{query}", b"", method="GET")
    assert_error(reply, 400, 3)
    assert "outbox:" in reply.body["message"]


def test_the_python_helpers_wait_with_one_request(client):
    with SimulatorServer(config=Config(seed=3)) as server:
        seen: list[str] = []
        logs.add_reader(server.app, lambda record, _: seen.append(record.path))
        sender = send_otp_later(
            testing.SimulatorClient(
                server.url, testing.ApiKeyStamper(DEFAULTS["apiPrivateKey"]), DEFAULTS["organizationId"]
            ),
            0.5,
        )
        code = ControlClient(server.url).wait_for_otp(EMAIL, timeout=20)
        sender.join()
        assert code == server.simulator.otp_code(EMAIL)
        assert seen.count("/_simulator/outbox") == 1  # not one request every 20 ms


@pytest.mark.skipif(NODE is None, reason="node missing")
def test_the_js_helper_waits_with_one_request():
    with SimulatorServer(config=Config(seed=3)) as server:
        seen: list[str] = []
        logs.add_reader(server.app, lambda record, _: seen.append(record.path))
        client = testing.SimulatorClient(
            server.url, testing.ApiKeyStamper(DEFAULTS["apiPrivateKey"]), DEFAULTS["organizationId"]
        )
        sender = send_otp_later(client, 0.5)
        script = (
            f"const {{ ControlClient }} = require({json.dumps(str(ROOT / 'js' / 'lib' / 'helper' / 'index.js'))});"
            f"new ControlClient({json.dumps(server.url)}).waitForOtp({json.dumps(EMAIL)}, {{ timeoutMs: 20000 }})"
            ".then((code) => console.log(code), (e) => { console.error(e); process.exit(1); });"
        )
        run = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60)
        sender.join()
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == server.simulator.otp_code(EMAIL)
        assert seen.count("/_simulator/outbox") == 1


def test_control_reads_log_at_debug_and_api_requests_at_info(simulator, client, caplog):
    caplog.set_level(logging.DEBUG, logger="simulator.requests")
    client.query("whoami")
    ControlClient(simulator.url).outbox(EMAIL)
    ControlClient(simulator.url).reset()
    levels = {r.getMessage().split(" ")[1]: r.levelno for r in caplog.records if r.name == "simulator.requests"}
    assert levels["query/whoami"] == logging.INFO
    assert levels["/_simulator/outbox"] == logging.DEBUG
    assert levels["/_simulator/reset"] == logging.INFO  # a change made through the control API stays visible


def test_status_lines_carry_reason_phrases_in_their_usual_case(simulator):
    url = urlsplit(simulator.url)
    for path, body, expected in [
        ("/public/v1/query/whoami", b"{}", (401, "Unauthorized")),
        ("/no/such/page", None, (404, "Not Found")),
        ("/_simulator/outbox", None, (200, "OK")),
    ]:
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        try:
            conn.request(
                "POST" if body is not None else "GET", path, body=body, headers={"Content-Type": "application/json"}
            )
            reply = conn.getresponse()
            reply.read()
            assert (reply.status, reply.reason) == expected
        finally:
            conn.close()


# otp_login's client signature ----------------------------------------------------------------------
def verified_token(client, simulator_outbox) -> tuple[str, str, testing.ClientKeyPair]:
    user = {"userName": "Ada", "userEmail": EMAIL, "apiKeys": [], "authenticators": [], "oauthProviders": []}
    made = result_of(
        client.submit(
            "create_sub_organization",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
            {"subOrganizationName": "ada", "rootUsers": [user], "rootQuorumThreshold": 1},
        ),
        "createSubOrganizationResultV7",
    )
    otp = result_of(client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", INIT_OTP), "initOtpResultV2")
    key = testing.ClientKeyPair.generate()
    sealed = testing.encrypt_otp_code_to_bundle(
        simulator_outbox.wait_for(EMAIL), otp["otpEncryptionTargetBundle"], key.public_key
    )
    verified = result_of(
        client.submit(
            "verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2", {"otpId": otp["otpId"], "encryptedOtpBundle": sealed}
        ),
        "verifyOtpResult",
    )
    return made["subOrganizationId"], verified["verificationToken"], key


def login(client, sub_org_id: str, token: str, key: testing.ClientKeyPair, signature: dict):
    params = {"verificationToken": token, "publicKey": key.public_key, "clientSignature": signature}
    return client.submit("otp_login", "ACTIVITY_TYPE_OTP_LOGIN_V2", params, organizationId=sub_org_id)


def test_a_der_client_signature_is_refused_saying_it_is_der(client, simulator_outbox):
    sub_org_id, token, key = verified_token(client, simulator_outbox)
    signature = testing.login_client_signature(token, key.public_key, key.private_key)
    der = keys.ec_key_from_hex("p256", key.private_key).sign(signature["message"].encode(), ec.ECDSA(hashes.SHA256()))
    reply = login(client, sub_org_id, token, key, {**signature, "signature": der.hex()})
    assert_error(reply, 400, 3)
    assert "DER-encoded" in reply.body["message"] and "raw r‖s" in reply.body["message"]
    assert "key named in the verification token" not in reply.body["message"]
    # the raw form of the same signature logs in
    assert login(client, sub_org_id, token, key, signature).body["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_another_key_and_a_bad_signature_are_named_as_such(client, simulator_outbox):
    sub_org_id, token, key = verified_token(client, simulator_outbox)
    good = testing.login_client_signature(token, key.public_key, key.private_key)
    other = testing.ClientKeyPair.generate()
    reply = login(client, sub_org_id, token, key, {**good, "publicKey": other.public_key})
    assert "must be signed with the key named in the verification token" in reply.body["message"]
    flipped = good["signature"][:-2] + ("00" if good["signature"][-2:] != "00" else "01")
    reply = login(client, sub_org_id, token, key, {**good, "signature": flipped})
    assert_error(reply, 400, 3)
    assert "does not verify" in reply.body["message"]


# turnkey_client without turnkey-http ----------------------------------------------------------------
BLOCKED = "import sys\nsys.modules['turnkey_http'] = None  # as if turnkey-http were not installed\n"
USES_IT = "def test_uses_the_official_client(turnkey_client):\n    assert turnkey_client\n"


def test_turnkey_client_fails_saying_what_to_install(pytester):
    pytester.makeconftest(BLOCKED)
    pytester.makepyfile(test_downstream=USES_IT)
    result = pytester.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*pip install turnkey-http turnkey-api-key-stamper*"])


def test_the_ini_option_keeps_the_old_skip(pytester):
    pytester.makeconftest(BLOCKED)
    pytester.makeini("[pytest]\nsimulator_skip_without_turnkey_http = true\n")
    pytester.makepyfile(test_downstream=USES_IT)
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(skipped=1)


# the frames and the JS entry point -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("page", "test_ids"),
    [
        ("export", ["export-key", "frame-error", "frame-note"]),
        ("import", ["import-secret", "import-passphrase", "frame-error", "frame-note"]),
        ("auth", ["auth-status", "frame-error", "frame-note"]),
    ],
)
def test_the_frames_carry_the_documented_test_ids(simulator, page, test_ids):
    html = testing.SimulatorClient(simulator.url, None, "").post(f"/frames/{page}", b"", method="GET").body
    text = html.decode() if isinstance(html, bytes) else str(html)
    tutorial = (ROOT / "docs" / "tutorials" / "web-app.md").read_text()
    for test_id in test_ids:
        assert f'data-testid="{test_id}"' in text
        assert f'getByTestId("{test_id}")' in tutorial  # listed in the Selectors section


@pytest.mark.skipif(NODE is None, reason="node missing")
def test_the_playwright_entry_keeps_its_helpers_without_playwright_test(tmp_path):
    script = (
        f"const p = require({json.dumps(str(ROOT / 'js' / 'lib' / 'helper' / 'playwright.js'))});"
        "console.log(JSON.stringify([typeof p.addVirtualAuthenticator, typeof p.waitForOtp, typeof p.simulatorConfig]));"
        "try { p.test; console.log('loaded'); } catch (e) { console.log(e.message); }"
    )
    run = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    first, *rest = run.stdout.strip().splitlines()
    assert json.loads(first) == ["function", "function", "function"]
    assert "npm install --save-dev @playwright/test" in "\n".join(rest)


@pytest.mark.skipif(
    NODE is None or not (ROOT / "tests" / "js" / "node_modules" / "turnkey-core-v2").is_dir(),
    reason="node or core 2.x missing",
)
def test_the_login_message_is_the_one_core_signs(simulator, client, simulator_outbox):
    """simulator.testing.login_client_signature signs the very string @turnkey/core 2.x's
    getClientSignatureMessageForLogin builds for the same token and key."""
    _, token, key = verified_token(client, simulator_outbox)
    ours = testing.login_client_signature(token, key.public_key, key.private_key)
    core = ROOT / "tests" / "js" / "node_modules" / "turnkey-core-v2"
    script = (
        f"const core = require({json.dumps(str(core))});"
        f"const m = core.getClientSignatureMessageForLogin({{ verificationToken: {json.dumps(token)},"
        f" sessionPublicKey: {json.dumps(key.public_key)} }});"
        "console.log(JSON.stringify(m));"
    )
    run = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    theirs = json.loads(run.stdout)
    assert ours["message"] == theirs["message"] and ours["publicKey"] == theirs["publicKey"]
    assert len(ours["signature"]) == 128  # raw r‖s, as core's signWithApiKey (SignatureFormat.Raw)


def test_turnkey_client_waits_out_a_scripted_wait_of_n_polls_in_n_short_polls(turnkey_client, simulator, tmp_path):
    """The fixture's client polls every 50 ms (the official default is a second): ten polls are not ten seconds.
    Checked as the client's own setting, not as elapsed time, which a loaded machine stretches."""
    import turnkey_sdk_types as T

    scenario = tmp_path / "slow.yaml"
    scenario.write_text(
        "include: [default]\nrules:\n"
        "  - {name: slow wallets, match: {type: CREATE_WALLET}, outcome: allow, after: {polls: 10}}\n"
    )
    simulator.simulator.use_scenarios((scenario,))
    assert turnkey_client.polling_interval_ms == 50
    made = turnkey_client.create_wallet(T.CreateWalletBody(walletName="slow", accounts=[]))
    assert made.activity.status == "ACTIVITY_STATUS_COMPLETED"
    assert len(simulator.journal.calls("get_activity")) >= 10  # it did wait for the polls
