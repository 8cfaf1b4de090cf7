"""parity record between the official clients and a simulator upstream: every one of the catalogue's main
operations and auth proxy endpoints goes through unchanged (the upstream's journal holds the body the client
serialized, its stamp verified: no request is refused as unauthenticated) and is written with the upstream's
status; secrets are redacted and named; the command prints a ready line and writes as it goes."""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from conftest import ROOT

from simulator.config import Config
from simulator.control.control_client import ControlClient
from simulator.operations.catalogue import OPERATIONS, Kind
from simulator.parity.exchanges import read_recording
from simulator.parity.recorder import ParityRecorder
from simulator.parity.redaction import redact
from simulator.server import SimulatorServer
from simulator.testing import ApiKeyStamper, SimulatorClient

JS = ROOT / "tests" / "js"
FIXTURES = ROOT / "fixtures" / "requests"
MAIN = [f"/public/v1/{op.kind.value}/{op.name}" for op in OPERATIONS if op.kind is not Kind.PROXY]
PROXY = [f"/v1/{op.name}" for op in OPERATIONS if op.kind is Kind.PROXY]
EMAIL = "parity@example.com"
# the auth proxy's endpoints have no fixture bodies: each a plausible request (the upstream may refuse it: what
# matters is that it arrives as sent and its answer comes back as given)
PROXY_BODIES: dict[str, Any] = {
    "/v1/otp_init": {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL},
    "/v1/otp_init_v2": {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, "appName": "Parity"},
    "/v1/otp_verify": {"otpId": "00000000-0000-4000-8000-0000000000aa", "otpCode": "123456"},
    "/v1/otp_verify_v2": {"otpId": "00000000-0000-4000-8000-0000000000aa", "encryptedOtpBundle": "00"},
    "/v1/otp_login": {"verificationToken": "a.b.c", "publicKey": "02" + "11" * 32},
    "/v1/otp_login_v2": {"verificationToken": "a.b.c", "publicKey": "02" + "11" * 32, "clientSignature": {}},
    "/v1/oauth2_authenticate": {
        "provider": "OAUTH2_PROVIDER_X",
        "authCode": "code",
        "redirectUri": "http://localhost/cb",
    },
    "/v1/oauth_login": {"oidcToken": "a.b.c", "publicKey": "02" + "11" * 32},
    "/v1/signup": {"userEmail": EMAIL},
    "/v1/signup_v2": {"userEmail": EMAIL},
    "/v1/account": {"filterType": "EMAIL", "filterValue": EMAIL},
    "/v1/wallet_kit_config": {},
    "/v1/wallet_kit_client_params": {},
}
UNAUTHENTICATED = 16


@pytest.fixture
def upstream():
    with SimulatorServer(config=Config(seed=55)) as server:
        yield server


def fixture_body(path: str, organization_id: str, timestamp_ms: int) -> dict[str, Any]:
    kind, name = path.split("/")[-2:]
    body = json.loads((FIXTURES / kind / f"{name}.json").read_text())
    body["organizationId"] = organization_id
    if kind == "submit":
        body["timestampMs"] = str(timestamp_ms)
    return body


def sent_arrived_and_recorded(sent: dict[str, str], upstream: SimulatorServer, out: Path) -> None:
    """Each body the client serialized arrived upstream as such, its stamp verified, and the recording holds
    the exchange with the status upstream answered."""
    journal = upstream.simulator.journal.entries()
    recorded = {(e.path, json.dumps(e.request["body"], sort_keys=True)): e for e in read_recording(out)[1]}
    missing, refused, unrecorded = [], [], []
    for path, body in sent.items():
        arrived = [e for e in journal if e["op"] == path.rsplit("/", 1)[1] and e["request"] == json.loads(body)]
        if not arrived:
            missing.append(path)
            continue
        if arrived[-1]["outcome"].get("code") == UNAUTHENTICATED:
            refused.append((path, arrived[-1]["outcome"]))
        exchange = recorded.get((path, json.dumps(redact(json.loads(body), "", []), sort_keys=True)))
        if exchange is None or exchange.status != arrived[-1]["status"]:
            unrecorded.append(path)
    assert not missing, f"never arrived upstream as sent: {missing}"
    assert not refused, f"stamps the upstream did not verify: {refused}"
    assert not unrecorded, f"not recorded with the upstream's status: {unrecorded}"


class Stand:
    """turnkey_http's stamp methods call ``input.model_dump``: the fixture's body stands in for the model."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self.fields = fields

    def model_dump(self, **_: Any) -> dict[str, Any]:
        return dict(self.fields)


def python_client_paths(tk: Any, base: str) -> dict[str, str]:
    """path -> the turnkey_http stamp method that calls it."""
    found = {}
    for name in dir(tk):
        if name.startswith("stamp_"):
            try:
                found[getattr(tk, name)(Stand({})).url[len(base) :]] = name
            except Exception:  # stamp_login reads settings this test does not give: it names no URL here
                continue
    return found


def test_the_official_python_client_goes_through_unchanged_for_every_operation_it_has(upstream, tmp_path):
    turnkey_http = pytest.importorskip("turnkey_http")
    stamper_mod = pytest.importorskip("turnkey_api_key_stamper")
    out = tmp_path / "python.jsonl"
    creds = upstream.simulator.default_credentials()
    with ParityRecorder(upstream.url, out, proxy_upstream=upstream.proxy_url) as recorder:
        tk = turnkey_http.TurnkeyClient(
            base_url=recorder.url,
            stamper=stamper_mod.ApiKeyStamper(
                stamper_mod.ApiKeyStamperConfig(
                    api_public_key=creds["apiPublicKey"], api_private_key=creds["apiPrivateKey"]
                )
            ),
            organization_id=creds["organizationId"],
            polling_interval_ms=20,
        )
        methods = python_client_paths(tk, recorder.url)
        sent: dict[str, str] = {}
        now = int(time.time() * 1000)
        for i, path in enumerate(p for p in MAIN if p in methods):
            body = fixture_body(path, creds["organizationId"], now + i)
            fields = (
                {**body.get("parameters", {}), "organizationId": body["organizationId"]} if "submit" in path else body
            )
            if "submit" in path:
                fields["timestampMs"] = body["timestampMs"]
            signed = getattr(tk, methods[path])(Stand(fields))
            sent[path] = signed.body
            # a refusal the client raises: what counts is what arrived and what was recorded
            with contextlib.suppress(Exception):
                tk.send_signed_request(signed)
    assert len(sent) >= 178, f"turnkey-http 0.2.0 calls 178 of the {len(MAIN)} operations; sent {len(sent)}"
    sent_arrived_and_recorded(sent, upstream, out)


@pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules").is_dir()),
    reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)",
)
def test_the_official_js_clients_go_through_unchanged_for_every_operation_and_proxy_endpoint(upstream, tmp_path):
    out = tmp_path / "js.jsonl"
    creds = upstream.simulator.default_credentials()
    config_id = ControlClient(upstream.url).configure_auth_proxy(creds["organizationId"])["configId"]
    now = int(time.time() * 1000)
    with ParityRecorder(upstream.url, out, proxy_upstream=upstream.proxy_url) as recorder:
        given = {
            **creds,
            "url": recorder.url,
            "proxyUrl": recorder.proxy_url,
            "authProxyConfigId": config_id,
            "bodies": {p: fixture_body(p, creds["organizationId"], now + i) for i, p in enumerate(MAIN)},
            "proxyBodies": PROXY_BODIES,
        }
        run = subprocess.run(
            ["node", str(JS / "parity_all_operations.js"), json.dumps(given)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert run.returncode == 0, run.stderr
        outcomes = json.loads(run.stdout)
        # wallet_kit_client_params has no method in these clients: sent as @turnkey/core's authProxyRequest sends
        unsent = [p for p, o in outcomes.items() if o["method"] is None]
        assert unsent == ["/v1/wallet_kit_client_params"]
        body = json.dumps(PROXY_BODIES[unsent[0]])
        requests.post(
            recorder.proxy_url + unsent[0],
            data=body,
            headers={"Content-Type": "application/json", "X-Auth-Proxy-Config-ID": config_id},
            timeout=30,
        )
    sent = {p: o["sent"] for p, o in outcomes.items() if o["method"]} | {unsent[0]: body}
    assert sorted(sent) == sorted(MAIN + PROXY)
    sent_arrived_and_recorded(sent, upstream, out)


def test_secrets_are_redacted_and_named_and_never_written(upstream, tmp_path):
    """An OTP login through the auth proxy and a session and an exported wallet through the main interface: the
    code, the verification token, the session and the bundle reach the client and never the file."""
    from support import ClientKey, client_signature

    creds = upstream.simulator.default_credentials()
    config_id = ControlClient(upstream.url).configure_auth_proxy(creds["organizationId"])["configId"]
    out = tmp_path / "secrets.jsonl"
    proxy_headers = {"Content-Type": "application/json", "X-Auth-Proxy-Config-ID": config_id}
    with ParityRecorder(upstream.url, out, proxy_upstream=upstream.proxy_url) as recorder:

        def proxy(op: str, body: dict[str, Any]) -> dict[str, Any]:
            reply = requests.post(f"{recorder.proxy_url}/v1/{op}", json=body, headers=proxy_headers, timeout=30)
            assert reply.status_code == 200, reply.text
            return reply.json()

        key = ClientKey()
        otp_id = proxy("otp_init", {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL})["otpId"]
        code = upstream.simulator.otp_code(EMAIL)
        token = proxy("otp_verify", {"otpId": otp_id, "otpCode": code, "publicKey": key.public})["verificationToken"]
        signup = client_signature(token, key, {"signup": {"email": EMAIL}}, "USAGE_TYPE_SIGNUP")
        proxy(
            "signup",
            {
                "userEmail": EMAIL,
                "verificationToken": token,
                "apiKeys": [],
                "authenticators": [],
                "oauthProviders": [],
                "clientSignature": signup,
            },
        )
        client = SimulatorClient(recorder.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
        session = client.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": key.public}).body
        session_jwt = session["activity"]["result"]["stampLoginResult"]["session"]
        wallet = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}).body
        exported = client.submit(
            "export_wallet",
            "ACTIVITY_TYPE_EXPORT_WALLET",
            {
                "walletId": wallet["activity"]["result"]["createWalletResult"]["walletId"],
                "targetPublicKey": ClientKey().uncompressed,
            },
        ).body
        bundle = exported["activity"]["result"]["exportWalletResult"]["exportBundle"]
    text = out.read_text()
    for secret in (code, token, session_jwt, bundle, creds["apiPrivateKey"]):
        assert secret not in text
    named = {(e.operation, r["where"], r["what"]) for e in read_recording(out)[1] for r in e.redactions}
    assert ("otp_verify", "request.body.otpCode", "OTP code") in named
    assert ("otp_verify", "answer.verificationToken", "OTP verification token") in named
    assert ("signup", "request.body.verificationToken", "OTP verification token") in named
    assert ("stamp_login", "answer.activity.result.stampLoginResult.session", "session token") in named
    assert ("export_wallet", "answer.activity.result.exportWalletResult.exportBundle", "exported key bundle") in named
    assert ("create_wallet", "request.headers.x-stamp.signature", "stamp signature") in named
    stamp = json.loads(read_recording(out)[1][-1].request["headers"]["x-stamp"])
    assert stamp["publicKey"] == creds["apiPublicKey"] and stamp["signature"] == "[redacted: stamp signature]"


def test_parity_record_prints_a_ready_line_records_as_it_goes_and_stops_on_ctrl_c(upstream, tmp_path):
    out = tmp_path / "cli.jsonl"
    command = [sys.executable, "-m", "simulator", "parity", "record", "--upstream", upstream.url]
    command += ["--proxy-upstream", upstream.proxy_url, "--out", str(out), "--port", "0", "--proxy-port", "0"]
    env = {"PYTHONPATH": str(ROOT), "TURNKEY_ORGANIZATION_ID": "org-from-env", "TURNKEY_API_PRIVATE_KEY": "never-read"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        ready = json.loads(process.stdout.readline())
        assert ready["upstream"] == upstream.url and ready["proxyUpstream"] == upstream.proxy_url
        assert ready["out"] == str(out.resolve()) and ready["organizationId"] == "org-from-env"
        assert "apiPrivateKey" not in ready and "never-read" not in json.dumps(ready)
        creds = upstream.simulator.default_credentials()
        client = SimulatorClient(ready["url"], ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
        assert client.query("whoami").status == 200
        assert [e.operation for e in read_recording(out)[1]] == ["whoami"]  # written before the answer went back
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0 and "recorded 1 exchanges" in err


def test_parity_record_refuses_a_host_beyond_loopback(tmp_path, capsys):
    from simulator.cli import main

    assert (
        main(
            ["parity", "record", "--upstream", "http://127.0.0.1:9", "--out", str(tmp_path / "x"), "--host", "0.0.0.0"]
        )
        == 2
    )
    assert "loopback only" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_compressed_answer_reaches_the_client_as_sent_and_is_recorded_readable(tmp_path):
    """An upstream answering gzip (as a CDN in front of an API may): the client gets the very bytes, the file the
    JSON; br and zstd, which node's fetch also offers, are not asked of the upstream."""
    import gzip
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from support import serving

    asked: list[str] = []
    packed = gzip.compress(b'{"organizationId": "o", "userId": "u"}')

    class Gzipping(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            asked.append(self.headers.get("Accept-Encoding", ""))
            self.send_response(200)
            for name, value in (("Content-Type", "application/json"), ("Content-Encoding", "gzip")):
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(packed)))
            self.end_headers()
            self.wfile.write(packed)

        def log_message(self, *args: Any) -> None:
            pass

    out = tmp_path / "gzip.jsonl"
    with serving(ThreadingHTTPServer(("127.0.0.1", 0), Gzipping)) as url, ParityRecorder(url, out) as recorder:
        reply = requests.post(
            recorder.url + "/public/v1/query/whoami",
            data=b"{}",
            headers={"Accept-Encoding": "gzip, deflate, br, zstd"},
            stream=True,
            timeout=30,
        )
        raw = reply.raw.read(decode_content=False)
    assert raw == packed and reply.headers["Content-Encoding"] == "gzip"
    assert asked == ["gzip, deflate"]
    assert read_recording(out)[1][0].answer == {"organizationId": "o", "userId": "u"}


def test_the_recorder_refuses_a_host_that_is_not_this_machine(tmp_path):
    """As every port of the simulator: a page reached through another name (DNS rebinding) gets a 403."""
    import http.client
    from urllib.parse import urlsplit

    from simulator.parity.recorder import ParityRecorder
    from simulator.server import SimulatorServer

    with SimulatorServer() as upstream:
        recorder = ParityRecorder(upstream.url, tmp_path / "out.jsonl").start()
        try:
            parts = urlsplit(recorder.url)
            connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
            connection.request("POST", "/public/v1/query/whoami", body=b"{}", headers={"Host": "evil.example"})
            answer = connection.getresponse()
            assert answer.status == 403 and b"evil.example" in answer.read()
            connection.close()
        finally:
            recorder.stop()
    assert not (tmp_path / "out.jsonl").exists() or "whoami" not in (tmp_path / "out.jsonl").read_text()
