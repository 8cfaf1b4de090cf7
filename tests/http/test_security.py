"""Issue 34, over plain HTTP: what a web page could send to a simulator left running on a laptop.

Requests with forged ``Host``, ``Origin`` and ``Sec-Fetch-Site`` headers, as a page reached through a DNS
rebinding name, a page on another site, a form or a beacon would send them, on every port: the main interface,
the control API, the inspector, the frames and the auth proxy. docs/reference/security-model.md says what each
check protects; tests/browser/test_security_browser.py makes the same attempts from a real Chromium.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from conftest import DEFAULTS, ETH_ACCOUNT, ok

from simulator import Config, SimulatorServer
from simulator.cli import main
from simulator.config import WEB_APP_AUTH_PROXY_CONFIG_ID
from simulator.control.control_client import ControlClient, ControlError
from simulator.local_hosts import host_allowed, is_loopback_origin
from simulator.testing import ApiKeyStamper, SimulatorClient

EVIL = "http://attacker.example"
CONTROL_JSON = {"Content-Type": "application/json"}


class Answer:
    def __init__(self, status: int, headers: dict[str, str], raw: bytes) -> None:
        self.status, self.headers, self.raw = status, headers, raw
        try:
            self.body: Any = json.loads(raw or b"null")
        except ValueError:
            self.body = None


def send(base: str, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b"") -> Answer:
    """One request with exactly these headers (``Host`` included when given: http.client then sends no other)."""
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    given = dict(headers or {})
    try:
        connection.putrequest(method, path, skip_host="Host" in given, skip_accept_encoding=True)
        for name, value in given.items():
            connection.putheader(name, value)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with SimulatorServer(config=Config(seed=34, inspector=True, auth_proxy=True)) as running:
        yield running


def state_text(server: SimulatorServer) -> str:
    return json.dumps(server.simulator.export_state(), sort_keys=True)


# --- the Host check, every port ---------------------------------------------------------------------------
EVERY_PORT_PATHS = (  # (port, method, path): the main interface, the control API, the inspector, the frames, proxy
    ("main", "POST", "/public/v1/query/whoami"),
    ("main", "GET", "/_simulator/state"),
    ("main", "GET", "/_simulator/outbox"),
    ("main", "GET", "/_simulator/ui"),
    ("main", "GET", "/_simulator/ui/static/index.html"),
    ("main", "GET", "/_simulator/ui/api/organizations"),
    ("main", "GET", "/frames/export"),
    ("main", "POST", "/_simulator/reset"),
    ("proxy", "POST", "/v1/otp_init"),
)


@pytest.mark.parametrize(("port", "method", "path"), EVERY_PORT_PATHS)
@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8080", "localhost.attacker.example", ""])
def test_a_rebinding_host_is_refused_on_every_port_before_anything_runs(server, port, method, path, host):
    before = state_text(server)
    base = server.url if port == "main" else server.proxy_url
    answer = send(base, method, path, {"Host": host, **CONTROL_JSON}, b"{}")
    assert answer.status == 403, answer.raw
    assert set(answer.body) == {"code", "message", "details", "turnkeyErrorCode"}
    assert answer.body["code"] == 7 and answer.body["turnkeyErrorCode"] == "FORBIDDEN"
    assert "--allowed-host" in answer.body["message"] and "rebinding" in answer.body["message"]
    if host:
        assert repr(host) in answer.body["message"]
    assert "access-control-allow-origin" not in answer.headers
    assert state_text(server) == before and server.simulator.journal.entries() == []


@pytest.mark.parametrize(
    "host",
    ["localhost", "LOCALHOST:1", "app.localhost:3000", "127.0.0.1", "127.9.8.7:80", "[::1]:8080", "[::1]", "10.1.2.3"],
)
def test_loopback_names_and_addresses_are_answered(server, host):
    answer = send(server.url, "GET", "/_simulator/outbox", {"Host": host})
    assert answer.status == 200 and answer.body == {"messages": []}


def test_the_allowed_host_switch_and_scenario_key_add_names(tmp_path):
    scenario = tmp_path / "hosts.yaml"
    scenario.write_text("version: 1\norganizations: [{name: o}]\nallowedHosts: [sim.test, .dev.example]\n")
    config = Config(seed=1, scenarios=(scenario,), allowed_hosts=("Docker-Host",))
    with SimulatorServer(config=config) as server:
        for host in ("docker-host:8080", "sim.test", "a.dev.example:1", "dev.example"):
            assert send(server.url, "GET", "/_simulator/outbox", {"Host": host}).status == 200, host
        for host in ("other.test", "sim.test.evil", "xdev.example"):
            assert send(server.url, "GET", "/_simulator/outbox", {"Host": host}).status == 403, host
        assert send(server.proxy_url, "POST", "/v1/x", {"Host": "sim.test"}).status == 404  # past the check


def test_the_host_it_listens_on_is_answered():
    assert host_allowed("sim.lan:8080", "sim.lan", ())
    assert not host_allowed("sim.lan:8080", "127.0.0.1", ())
    assert host_allowed("anything", "127.0.0.1", ("*",))
    with pytest.raises(SystemExit):
        main(["serve", "--allowed-host", "http://x.test/"])
    with pytest.raises(ValueError, match="not a host name"):
        Config(allowed_hosts=("x.test:80",))


# --- CORS: loopback origins by default ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        ("http://localhost:3000", True),
        ("https://localhost", True),
        ("http://app.localhost:5173", True),
        ("http://127.0.0.1:8080", True),
        ("http://127.0.0.2", True),
        ("http://[::1]:3000", True),
        (EVIL, False),
        ("http://localhost.attacker.example", False),
        ("null", False),
        ("file://", False),
        ("http://192.168.1.20:3000", False),
    ],
)
def test_the_main_interface_answers_loopback_origins_by_default(server, origin, allowed):
    assert is_loopback_origin(origin) == allowed
    asked = {
        "Origin": origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Private-Network": "true",
    }
    preflight = send(server.url, "OPTIONS", "/public/v1/query/whoami", asked)
    proxy = send(server.proxy_url, "OPTIONS", "/v1/otp_init", asked)
    if allowed:
        assert preflight.status == 204 and preflight.headers["access-control-allow-origin"] == origin
        assert preflight.headers["access-control-allow-private-network"] == "true"
        assert proxy.status == 204 and proxy.headers["access-control-allow-origin"] == origin
    else:
        for refused in (preflight, proxy):
            assert refused.status == 403
            assert "access-control-allow-origin" not in refused.headers
            assert "access-control-allow-private-network" not in refused.headers
        assert "--cors-origin" in preflight.body["message"]


def test_a_page_elsewhere_cannot_use_the_default_key_nor_the_auth_proxy(server):
    before = state_text(server)
    stamped = SimulatorClient(server.url, ApiKeyStamper(DEFAULTS["apiPrivateKey"]), DEFAULTS["organizationId"])

    class FromEvil(SimulatorClient):
        def _send(self, method: str, path: str, raw: bytes, headers: dict[str, str]) -> Any:
            return super()._send(method, path, raw, {**headers, "Origin": EVIL})

    evil = FromEvil(server.url, ApiKeyStamper(DEFAULTS["apiPrivateKey"]), DEFAULTS["organizationId"])
    wallet = evil.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH_ACCOUNT]})
    assert wallet.status == 403 and "access-control-allow-origin" not in wallet.headers
    assert evil.query("list_wallets").status == 403
    otp = send(
        server.proxy_url,
        "POST",
        "/v1/otp_init",
        {"Origin": EVIL, "X-Auth-Proxy-Config-Id": WEB_APP_AUTH_PROXY_CONFIG_ID, "Content-Type": "application/json"},
        json.dumps({"otpType": "OTP_TYPE_EMAIL", "contact": "victim@example.com"}).encode(),
    )
    assert otp.status == 403 and "access-control-allow-origin" not in otp.headers
    assert server.simulator.outbox() == []
    assert ok(stamped.query("whoami"))  # a caller that is no browser is answered as ever
    assert json.loads(state_text(server))["store"] == json.loads(before)["store"]


def test_every_origin_is_still_one_switch_away_and_warns(caplog):
    with SimulatorServer(config=Config(seed=1, cors_origins=("*",))) as server:
        answer = send(
            server.url, "OPTIONS", "/public/v1/query/whoami", {"Origin": EVIL, "Access-Control-Request-Method": "POST"}
        )
        assert answer.status == 204 and answer.headers["access-control-allow-origin"] == EVIL
        # "*" is not a name: the control API still refuses the page
        assert send(server.url, "GET", "/_simulator/state", {"Origin": EVIL}).status == 403
    assert any("every origin" in r.getMessage() and r.levelname == "WARNING" for r in caplog.records)


# --- the control API refuses cross-site requests -----------------------------------------------------------
CONTROL_CALLS = (  # everything a page might try, with the header a form, a beacon or a no-cors fetch sends
    ("GET", "/_simulator/state", {}),
    ("GET", "/_simulator/outbox", {}),
    ("GET", "/_simulator/journal", {}),
    ("GET", "/_simulator/webhooks/deliveries", {}),
    ("POST", "/_simulator/reset", {"Content-Type": "application/x-www-form-urlencoded"}),
    ("POST", "/_simulator/reset", CONTROL_JSON),
    ("POST", "/_simulator/snapshots", {"Content-Type": "text/plain;charset=UTF-8"}),
    ("POST", "/_simulator/snapshots/snapshot-1/restore", {}),
    ("POST", "/_simulator/scenarios", {"Content-Type": "text/plain"}),
    ("POST", "/_simulator/webhooks/receiver", CONTROL_JSON),
    ("PUT", "/_simulator/state", CONTROL_JSON),
    ("GET", "/_simulator/ui", {}),
)


@pytest.mark.parametrize(("method", "path", "typed"), CONTROL_CALLS)
@pytest.mark.parametrize(
    "sent",
    [{"Origin": EVIL}, {"Origin": "null"}, {"Origin": "http://localhost:3000"}, {"Sec-Fetch-Site": "cross-site"}],
)
def test_a_cross_site_control_request_is_refused_whatever_its_method_and_body(server, method, path, typed, sent):
    server.simulator.saved_snapshots["snapshot-1"] = server.simulator.snapshot()
    server.simulator.store.org(DEFAULTS["organizationId"]).features["FEATURE_NAME_WEBHOOK"] = "http://127.0.0.1:9/h"
    before = state_text(server)
    answer = send(server.url, method, path, {**sent, **typed}, b"{}" if method != "GET" else b"")
    assert answer.status == 403, answer.raw
    assert "may not use the control API" in answer.body["message"]
    assert "access-control-allow-origin" not in answer.headers
    assert state_text(server) == before and list(server.simulator.saved_snapshots) == ["snapshot-1"]


@pytest.mark.parametrize(
    ("method", "path", "typed"),
    [
        ("POST", "/_simulator/faults", {"Content-Type": "text/plain"}),
        ("POST", "/_simulator/faults", CONTROL_JSON),
        ("DELETE", "/_simulator/faults", {}),
        ("DELETE", "/_simulator/faults/kept", CONTROL_JSON),
    ],
)
@pytest.mark.parametrize("sent", [{"Origin": EVIL}, {"Sec-Fetch-Site": "cross-site"}])
def test_a_cross_site_page_can_neither_add_nor_remove_a_fault(server, method, path, typed, sent):
    """The faults routes came after the refusal: the same gate covers them (a fault added from a page would
    break the developer's next requests)."""
    server.simulator.add_fault({"name": "kept", "kind": "unavailable", "match": {"operation": "create_wallet"}})
    body = json.dumps({"kind": "reset"}).encode() if method == "POST" else b""
    answer = send(server.url, method, path, {**sent, **typed}, body)
    assert answer.status == 403, answer.raw
    assert [f["name"] for f in server.simulator.fault_listing()] == ["kept"]


def test_the_simulators_own_pages_listed_origins_and_non_browsers_pass(server):
    own = send(
        server.url,
        "POST",
        "/_simulator/snapshots",
        {"Origin": server.url, "Sec-Fetch-Site": "same-origin", **CONTROL_JSON},
        b"{}",
    )
    assert own.status == 200  # the inspector
    same_site = send(server.url, "GET", "/_simulator/outbox", {"Sec-Fetch-Site": "same-site"})
    assert same_site.status == 200
    typed = send(server.url, "POST", "/_simulator/reset", CONTROL_JSON)
    assert typed.status == 200  # curl, the clients and the CLI send no Origin
    with SimulatorServer(config=Config(seed=1, cors_origins=(EVIL,))) as listed:
        named = send(listed.url, "GET", "/_simulator/outbox", {"Origin": EVIL, "Sec-Fetch-Site": "cross-site"})
        assert named.status == 200 and named.headers["access-control-allow-origin"] == EVIL


@pytest.mark.parametrize(
    "content_type", [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
)
@pytest.mark.parametrize("path", ["/_simulator/reset", "/_simulator/snapshots", "/_simulator/webhooks/drain"])
def test_a_state_changing_control_call_requires_json_even_when_empty(server, path, content_type):
    before = state_text(server)
    headers = {} if content_type is None else {"Content-Type": content_type}
    answer = send(server.url, "POST", path, headers)
    assert answer.status == 400 and "Content-Type: application/json" in answer.body["message"]
    assert state_text(server) == before and server.simulator.saved_snapshots == {}


def test_the_control_clients_and_the_cli_send_json(server, capsys):
    control = ControlClient(server.url)
    control.reset()
    snapshot = control.snapshot()
    control.restore(snapshot)
    assert main(["control", "reset", "--url", server.url]) == 0
    capsys.readouterr()


# --- scenario paths from the control API -------------------------------------------------------------------
SECRET = "ghp_NotARealTokenButSecret0123456789"


@pytest.fixture
def secret_files(tmp_path: Path) -> dict[str, Path]:
    """Files a developer keeps: a CLI tool's stored token (YAML-shaped), and a scenario-like one with a value."""
    outside = tmp_path / "home"
    outside.mkdir()
    hosts = outside / "hosts.yml"
    hosts.write_text(f"github.com:\n    oauth_token: {SECRET}\n    user: someone\n")
    told = tmp_path / "told"
    told.mkdir()
    inside = told / "creds.yaml"
    inside.write_text(f"token: {SECRET}\norganizations: [{{name: {SECRET}, users: 5}}]\n")
    shaped = told / "shaped.yaml"
    shaped.write_text(f"version: 1\norganizations: [{{name: o, users: [{{name: {SECRET}, apiKeys: 3}}]}}]\n")
    return {"outside": hosts, "inside": inside, "shaped": shaped, "told": told, "missing": outside / "nothing.yaml"}


BROWSER = {"Sec-Fetch-Site": "same-origin", **CONTROL_JSON}  # the inspector's request, or a listed page's


def test_a_browser_request_loads_no_file_outside_the_told_directories(secret_files):
    with SimulatorServer(config=Config(seed=1, inspector=True)) as server:
        before = state_text(server)
        answers = [
            send(
                server.url,
                "POST",
                "/_simulator/scenarios",
                {**BROWSER, "Origin": server.url},
                json.dumps({"paths": [str(p)]}).encode(),
            )
            for p in (secret_files["outside"], secret_files["missing"], "../" * 12 + "etc/hostname")
        ]
        for answer in answers:
            assert answer.status == 400 and SECRET not in answer.raw.decode()
            assert "--scenario-dir" in answer.body["message"]
        # the same answer whether a file is there or not: no probing the disk either
        assert answers[0].body["message"].split("'")[2] == answers[1].body["message"].split("'")[2]
        shipped = send(server.url, "POST", "/_simulator/scenarios", BROWSER, b'{"paths": ["two_of_three_quorum"]}')
        assert shipped.status == 200
        server.simulator.use_scenarios(())
        assert state_text(server) == before


def test_a_program_on_this_machine_loads_any_path_and_still_reads_no_value_back(secret_files):
    """The CLI's replay --url and control load, and the clients, send no browser header: a file they name is
    theirs to read anyway; the refusal still repeats no value."""
    with SimulatorServer(config=Config(seed=1)) as server:
        with pytest.raises(ControlError) as refused:
            ControlClient(server.url).load_scenarios([secret_files["outside"]])
        assert refused.value.status == 400 and SECRET not in str(refused.value)
        assert "unknown field 'github.com'" in str(refused.value)


def test_a_file_in_a_told_directory_is_described_without_its_values(secret_files):
    with SimulatorServer(config=Config(seed=1, scenario_dirs=(secret_files["told"],))) as server:
        for name in ("inside", "shaped"):
            answer = send(
                server.url,
                "POST",
                "/_simulator/scenarios",
                CONTROL_JSON,
                json.dumps({"paths": [str(secret_files[name])]}).encode(),
            )
            assert answer.status == 400, answer.raw
            assert SECRET not in answer.raw.decode() and "wallet-simulator check" in answer.body["message"]
        unknown = send(
            server.url,
            "POST",
            "/_simulator/scenarios",
            CONTROL_JSON,
            json.dumps({"paths": [str(secret_files["inside"])]}).encode(),
        ).body["message"]
        assert "unknown field 'token'" in unknown  # the unknown keys are named, their values never
        assert ControlClient(server.url).load_scenarios(["two_of_three_quorum"])  # shipped names load as ever


def test_the_scenario_dir_switch_reaches_the_config():
    from simulator.cli import config_from, parser

    args = parser().parse_args(["serve", "--scenario-dir", "/srv/scenarios", "--allowed-host", "sim.test"])
    config = config_from(args)
    assert config.scenario_dirs == (Path("/srv/scenarios"),) and config.allowed_hosts == ("sim.test",)


# --- the inspector: every answer carries its CSP and X-Frame-Options ---------------------------------------
@pytest.mark.parametrize(
    "path",
    [
        "/_simulator/ui",
        "/_simulator/ui/static/index.html",
        "/_simulator/ui/static/inspector.css",
        "/_simulator/ui/static/js/main.js",
        "/_simulator/ui/api/organizations",
    ],
)
def test_every_inspector_answer_forbids_framing(server, path):
    answer = send(server.url, "GET", path)
    assert answer.status == 200
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    assert answer.headers["x-frame-options"] == "DENY"


# --- beyond loopback ---------------------------------------------------------------------------------------
def test_listening_beyond_loopback_generates_a_control_token():
    with SimulatorServer(host="0.0.0.0", config=Config(seed=1)) as server:
        token = server.generated_control_token
        assert token and server.config.control_token == token
        url = server.url.replace("0.0.0.0", "127.0.0.1")
        with pytest.raises(ControlError) as refused:
            ControlClient(url, token="").state()
        assert refused.value.status == 401
        assert ControlClient(url, token=token).journal() == []
    for kept in (Config(seed=1, control_token="mine"), Config(seed=1, control=False)):
        with SimulatorServer(host="0.0.0.0", config=kept) as server:
            assert server.generated_control_token is None and server.config.control_token == kept.control_token
    with SimulatorServer(config=Config(seed=1)) as loopback:
        assert loopback.generated_control_token is None and loopback.config.control_token is None
