"""CORS on every port a browser calls, and one command for a web app (serve --auth-proxy, the web_app scenario).

Through HTTP first (preflights and real calls with an Origin, each header the published SDKs send,
a restricted origin refused, the switch and the scenario key, the ready line), then in a real
headless Chromium: a page from another origin calls the main interface and the auth proxy, and
the browser blocks it once ``--cors-origin`` names another origin.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import DEFAULTS, ETH_ACCOUNT, ROOT, ok
from support import CHROMEDRIVER, CHROMIUM, NO_CHROMIUM, PROCESS_STOP_SECONDS, assert_error, chromium

from simulator import Config, SimulatorServer
from simulator.cli import main, ready_line
from simulator.config import WEB_APP_AUTH_PROXY_CONFIG_ID
from simulator.pytest_plugin import http_receiver
from simulator.scenario import ScenarioError
from simulator.testing import ApiKeyStamper, PasskeyStamper, SimulatorClient
from simulator.web.cors import SDK_HEADERS

APP = "http://localhost:3000"
OTHER = "http://evil.example"
PATHS = ("/public/v1/submit/create_wallet", "/public/v1/query/whoami")
SDK_PACKAGES = (
    "http",
    "core",
    "sdk-browser",
    "react-wallet-kit",
    "webauthn-stamper",
    "api-key-stamper",
    "wallet-stamper",
    "indexed-db-stamper",
)
TURNKEY_MODULES = ROOT / "tests" / "js" / "node_modules" / "@turnkey"


def preflight(server: Any, path: str, origin: str, headers: str = "content-type,x-stamp") -> Any:
    request = {"Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": headers}
    return SimulatorClient(server.url, None, "").post(path, b"", request, method="OPTIONS")


def client(server: Any, origin: str | None = None, stamper: Any = None) -> SimulatorClient:
    """A stamped client whose every request carries ``Origin`` as a browser's would."""

    class FromOrigin(SimulatorClient):
        def _send(self, method: str, path: str, raw: bytes, headers: dict[str, str]) -> Any:
            return super()._send(method, path, raw, {**headers, **({"Origin": origin} if origin else {})})

    return FromOrigin(server.url, stamper or ApiKeyStamper(DEFAULTS["apiPrivateKey"]), DEFAULTS["organizationId"])


def allowed_headers(response: Any) -> set[str]:
    return {h.strip().lower() for h in response.headers["access-control-allow-headers"].split(",")}


@pytest.fixture
def restricted() -> Iterator[SimulatorServer]:
    with SimulatorServer(config=Config(seed=5, cors_origins=(APP,))) as server:
        yield server


# --- the main interface, every origin (the default) --------------------------------------------------
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("header", SDK_HEADERS)
def test_a_preflight_allows_each_header_the_sdks_send(simulator, path, header):
    response = preflight(simulator, path, APP, f"content-type,{header.lower()}")
    assert response.status == 204
    assert response.headers["access-control-allow-origin"] == APP
    assert response.headers["vary"] == "Origin"
    assert "POST" in response.headers["access-control-allow-methods"]
    assert {"content-type", header.lower()} <= allowed_headers(response)


def test_a_page_on_a_public_address_may_reach_the_simulator_on_loopback_once_listed():
    # issue 34: a public origin needs --cors-origin now; unlisted, it gets no Private Network Access grant either
    request = {"Origin": "https://preview.example", "Access-Control-Request-Method": "POST"}
    asked = {**request, "Access-Control-Request-Private-Network": "true"}
    with SimulatorServer(config=Config(seed=5, cors_origins=("https://preview.example",))) as listed:
        answered = SimulatorClient(listed.url, None, "").post(PATHS[1], b"", asked, method="OPTIONS")
        assert answered.status == 204 and answered.headers["access-control-allow-private-network"] == "true"
        plain = SimulatorClient(listed.url, None, "").post(PATHS[1], b"", request, method="OPTIONS")
        assert "access-control-allow-private-network" not in plain.headers
    with SimulatorServer(config=Config(seed=5)) as default:
        refused = SimulatorClient(default.url, None, "").post(PATHS[1], b"", asked, method="OPTIONS")
        assert refused.status == 403 and "access-control-allow-private-network" not in refused.headers


def test_the_allowed_headers_are_every_one_the_published_sdks_send():
    """Read the installed SDKs: every X-... request header they name is allowed (case-insensitively)."""
    if not TURNKEY_MODULES.is_dir():
        pytest.skip("tests/js/node_modules is not installed")
    sent = set()
    for package in SDK_PACKAGES:
        for path in (TURNKEY_MODULES / package).rglob("*.js"):
            if "cross-fetch" not in path.parts:  # its X-Request-URL is a response header it reads
                sent.update(re.findall(r"""["'](X-[A-Za-z-]+)["']""", path.read_text(errors="ignore")))
    sent.discard("X-License-Identifier")
    assert {"X-Stamp", "X-Stamp-Webauthn", "X-Client-Version"} <= sent, sent  # the scan found the clients
    assert {h.lower() for h in sent} <= {h.lower() for h in SDK_HEADERS}


def test_real_calls_from_an_origin_carry_the_allow_origin(simulator):
    by_key = client(simulator, APP).query("whoami")
    assert ok(by_key)["userId"] == DEFAULTS["userId"]
    assert by_key.headers["access-control-allow-origin"] == APP and by_key.headers["vary"] == "Origin"
    passkey = PasskeyStamper(DEFAULTS["passkeyCredentialId"], DEFAULTS["passkeyPrivateKey"])
    by_passkey = client(simulator, APP, passkey).query("whoami")
    assert ok(by_passkey)["userId"] == DEFAULTS["userId"]
    assert by_passkey.headers["access-control-allow-origin"] == APP
    refused = SimulatorClient(simulator.url, None, "").post(
        "/public/v1/query/whoami", b"{}", {"Origin": APP, "X-Client-Version": "@turnkey/http@6.6.0"}
    )
    assert refused.status == 401 and refused.headers["access-control-allow-origin"] == APP  # the SDK reads the error


def test_a_call_without_an_origin_gets_no_cors_headers(simulator):
    answer = client(simulator).query("whoami")
    assert ok(answer) and "access-control-allow-origin" not in answer.headers


def test_an_unknown_operation_answers_the_browser_too(simulator):
    answer = SimulatorClient(simulator.url, None, "").post("/public/v1/whoami", b"{}", {"Origin": APP})
    assert answer.status == 404 and answer.headers["access-control-allow-origin"] == APP


# --- a restricted origin --------------------------------------------------------------------------
def test_a_listed_origin_is_answered_and_another_refused(restricted):
    assert preflight(restricted, PATHS[0], APP).headers["access-control-allow-origin"] == APP
    assert ok(client(restricted, APP).query("whoami"))
    refused = preflight(restricted, PATHS[0], OTHER)
    body = assert_error(refused, 403, 7, f"origin {OTHER} is not allowed", f"allows {APP}", "--cors-origin ORIGIN")
    assert body["turnkeyErrorCode"] == "FORBIDDEN" and "access-control-allow-origin" not in refused.headers


def test_a_refused_origin_changes_nothing_and_is_journaled(restricted):
    answer = client(restricted, OTHER).submit(
        "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "never", "accounts": [ETH_ACCOUNT]}
    )
    assert_error(answer, 403, 7, f"origin {OTHER} is not allowed")
    assert "access-control-allow-origin" not in answer.headers
    assert not restricted.store.org(DEFAULTS["organizationId"]).wallets
    entry = restricted.journal.entries()[-1]
    assert entry["status"] == 403 and entry["request"]["parameters"]["walletName"] == "never"
    assert f"origin {OTHER}" in entry["outcome"]["message"]


def test_callers_that_are_no_browser_and_the_simulators_own_pages_are_never_refused(restricted):
    assert ok(client(restricted).query("whoami"))  # no Origin: curl, node, python
    assert ok(client(restricted, restricted.url).query("whoami"))  # same origin: the inspector's


def test_the_control_api_answers_only_origins_listed_by_name(simulator, restricted):
    request = {"Origin": APP, "Access-Control-Request-Method": "GET"}
    listed = SimulatorClient(restricted.url, None, "").post("/_simulator/outbox", b"", request, method="OPTIONS")
    assert listed.status == 204 and listed.headers["access-control-allow-origin"] == APP
    assert "x-simulator-control-token" in allowed_headers(listed)
    read = SimulatorClient(restricted.url, None, "").post("/_simulator/outbox", b"", {"Origin": APP}, method="GET")
    assert read.status == 200 and read.headers["access-control-allow-origin"] == APP
    # the main interface's loopback origins are not the control API's: it reads private keys; an unlisted origin
    # is refused outright since issue 34 (it used to be answered, unreadable to the page)
    unlisted = SimulatorClient(simulator.url, None, "").post("/_simulator/state", b"", {"Origin": APP}, method="GET")
    assert unlisted.status == 403 and "access-control-allow-origin" not in unlisted.headers


def test_the_scenario_key_restricts_and_adds_to_the_switch(tmp_path):
    scenario = tmp_path / "cors.yaml"
    scenario.write_text(
        (ROOT / "scenarios" / "default.yaml").read_text().split("\nsteps:")[0]
        + '\ncors: {origins: ["http://localhost:5173/"]}\n'
    )
    config = Config(seed=1, scenarios=(scenario,), cors_origins=(APP,))
    with SimulatorServer(config=config) as server:
        for origin in ("http://localhost:5173", APP):
            assert preflight(server, PATHS[1], origin).status == 204
        assert preflight(server, PATHS[1], OTHER).status == 403
        server.reset()  # the scenario's origins are part of the state it returns to
        assert preflight(server, PATHS[1], "http://localhost:5173").status == 204
        server.simulator.use_scenarios(())  # the default scenario lists none, the switch still does
        assert preflight(server, PATHS[1], "http://localhost:5173").status == 403
        assert preflight(server, PATHS[1], APP).status == 204


def test_a_scenario_origin_that_could_never_match_is_refused_with_its_line(tmp_path):
    scenario = tmp_path / "bad.yaml"
    scenario.write_text("version: 1\norganizations: [{name: o}]\ncors:\n  origins: [localhost:3000]\n")
    with pytest.raises(ScenarioError, match=r"bad.yaml:4: cors.origins"):
        SimulatorServer(config=Config(scenarios=(scenario,)))


@pytest.mark.parametrize("origin", ["localhost:3000", "http://localhost:3000/app", ""])
def test_an_origin_that_could_never_match_is_refused_by_config_and_switch(origin, capsys):
    with pytest.raises(ValueError, match="not a browser origin"):
        Config(cors_origins=(origin,))
    with pytest.raises(SystemExit):
        main(["serve", "--cors-origin", origin])
    assert "not a browser origin" in capsys.readouterr().err


def test_origins_are_written_as_browsers_send_them():
    assert Config(cors_origins=("HTTP://LocalHost:3000/", "*", "null")).cors_origins == (APP, "*", "null")


# --- the auth proxy: its own origins, one mechanism ----------------------------------------------------
def test_the_auth_proxy_enabled_by_the_switch_answers_the_sdk(tmp_path):
    config = Config(seed=2, auth_proxy=True, cors_origins=(APP,), auth_proxy_otp_length=8)
    with SimulatorServer(config=config) as server:
        config_id = ready_line(server)["authProxyConfigId"]
        assert config_id == WEB_APP_AUTH_PROXY_CONFIG_ID
        proxy = SimulatorClient(server.proxy_url, None, "")
        headers = {"Origin": APP, "X-Auth-Proxy-Config-Id": config_id}
        kit = proxy.post("/v1/wallet_kit_config", b"{}", headers)
        assert ok(kit)["organizationId"] == DEFAULTS["organizationId"] and kit.body["otpLength"] == "8"
        assert kit.headers["access-control-allow-origin"] == APP
        otp = proxy.post(
            "/v1/otp_init", json.dumps({"otpType": "OTP_TYPE_EMAIL", "contact": "a@b.test"}).encode(), headers
        )
        assert ok(otp)["otpId"] and len(server.simulator.otp_code("a@b.test")) == 8
        allowed = proxy.post("/v1/otp_init", b"", {"Origin": APP, "Access-Control-Request-Method": "POST"}, "OPTIONS")
        assert allowed.status == 204 and "x-captcha-token" in allowed_headers(allowed)
        refused = proxy.post("/v1/otp_init", b"", {"Origin": OTHER, "Access-Control-Request-Method": "POST"}, "OPTIONS")
        assert_error(refused, 403, 7, f"origin {OTHER} is not allowed", config_id)
        assert "access-control-allow-origin" not in refused.headers
        server.reset()  # enabled at start: part of the state a reset returns to
        assert ready_line(server)["authProxyConfigId"] == config_id


def test_the_ready_line_names_no_configuration_when_the_proxy_is_off(simulator):
    assert ready_line(simulator)["authProxyConfigId"] is None


def test_the_web_app_scenario_turns_it_on():
    with SimulatorServer(config=Config(seed=3, scenarios=(ROOT / "scenarios" / "web_app.yaml",))) as server:
        line = ready_line(server)
        assert line["authProxyConfigId"] == WEB_APP_AUTH_PROXY_CONFIG_ID
        assert line["organizationId"] == DEFAULTS["organizationId"]
        headers = {"Origin": "http://anything.test", "X-Auth-Proxy-Config-Id": line["authProxyConfigId"]}
        assert ok(SimulatorClient(server.proxy_url, None, "").post("/v1/wallet_kit_config", b"{}", headers))


@pytest.mark.simulator_scenario("web_app")
def test_the_plugin_takes_the_web_app_scenario(simulator):
    assert simulator.simulator.auth_proxy_config_id() == WEB_APP_AUTH_PROXY_CONFIG_ID


def test_the_switch_on_a_scenario_that_made_the_configuration_sets_it():
    config = Config(
        seed=3, scenarios=(ROOT / "scenarios" / "web_app.yaml",), auth_proxy=True, auth_proxy_session_seconds=60
    )
    with SimulatorServer(config=config) as server:
        assert len(server.store.proxy_configs) == 1
        assert server.store.proxy_configs[WEB_APP_AUTH_PROXY_CONFIG_ID]["sessionExpirationSeconds"] == "60"


@pytest.mark.parametrize(
    "settings, phrase",
    [
        ({"auth_proxy_otp_length": 5}, "6 to 9"),
        ({"auth_proxy_session_seconds": 0}, "positive"),
        ({"auth_proxy_config_id": " "}, "must not be empty"),
    ],
)
def test_bad_auth_proxy_settings_are_refused(settings, phrase):
    with pytest.raises(ValueError, match=phrase):
        Config(auth_proxy=True, **settings)


def test_serve_with_the_switches_prints_the_configuration_and_answers_the_browser():
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0", "--seed", "6",
            "--cors-origin", APP, "--auth-proxy-config-id", "my-app", "--auth-proxy-session-seconds", "120",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        line = proc.stdout.readline()
        assert line, proc.stderr.read() if proc.poll() is not None else "no ready line"
        ready = json.loads(line)
        assert ready["authProxyConfigId"] == "my-app"  # an --auth-proxy-* switch turns it on
        proxy = SimulatorClient(ready["proxyUrl"], None, "")
        kit = ok(proxy.post("/v1/wallet_kit_config", b"{}", {"Origin": APP, "X-Auth-Proxy-Config-Id": "my-app"}))
        assert kit["sessionExpirationSeconds"] == "120"
        main_port = SimulatorClient(ready["url"], None, "")
        refused = main_port.post(PATHS[1], b"", {"Origin": OTHER, "Access-Control-Request-Method": "POST"}, "OPTIONS")
        assert refused.status == 403
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=PROCESS_STOP_SECONDS)
        stderr = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    assert f"origin {OTHER} is not allowed" in stderr  # the request log names the refusal and its remedy


# --- a real browser ------------------------------------------------------------------------------------
needs_chromium = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason=NO_CHROMIUM)
# What the page runs: a fetch as the SDKs make it (POST, JSON body, their headers), answered with what it sees.
FETCH = """
const [url, headers, body, done] = arguments;
fetch(url, {method: "POST", headers, body})
  .then(async (r) => done({status: r.status, body: await r.json()}))
  .catch((e) => done({error: String(e)}));
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(console_log=True) as driver:
        yield driver


@pytest.fixture(scope="module")
def app_page() -> Iterator[str]:
    """The web app's origin: a page served from another port than the simulator's."""
    server = http_receiver()
    server.expect_request("/").respond_with_data("<!doctype html><title>app</title>", content_type="text/html")
    server.start()
    try:
        yield server.url_for("/").rstrip("/")
    finally:
        server.clear()
        server.stop()


def fetch_from_page(browser: Any, page: str, url: str, headers: dict[str, str], body: bytes) -> Any:
    browser.get(page)
    return browser.execute_async_script(FETCH, url, headers, body.decode())


def whoami_from_page(browser: Any, page: str, server: Any) -> Any:
    body = json.dumps({"organizationId": DEFAULTS["organizationId"]}).encode()
    name, stamp = ApiKeyStamper(DEFAULTS["apiPrivateKey"]).stamp(body)
    headers = {"Content-Type": "application/json", name: stamp, "X-Client-Version": "@turnkey/http@6.6.0"}
    return fetch_from_page(browser, page, server.url + "/public/v1/query/whoami", headers, body)


@needs_chromium
def test_a_page_from_another_origin_calls_the_main_interface_and_the_proxy(browser, app_page):
    with SimulatorServer(config=Config(seed=7, auth_proxy=True)) as server:
        seen = whoami_from_page(browser, app_page, server)
        assert seen == {"status": 200, "body": ok(client(server).query("whoami"))}, seen
        headers = {
            "Content-Type": "application/json",
            "X-Auth-Proxy-Config-Id": ready_line(server)["authProxyConfigId"],
        }
        kit = fetch_from_page(browser, app_page, server.proxy_url + "/v1/wallet_kit_config", headers, b"{}")
        assert kit["status"] == 200 and kit["body"]["organizationId"] == DEFAULTS["organizationId"], kit
        assert server.journal.entries()[-2]["op"] == "whoami"


@needs_chromium
def test_the_browser_blocks_a_page_whose_origin_is_not_allowed(browser, app_page):
    with SimulatorServer(config=Config(seed=8, cors_origins=("http://elsewhere.test",))) as server:
        browser.get_log("browser")  # drop what earlier tests logged
        seen = whoami_from_page(browser, app_page, server)
        assert seen == {"error": "TypeError: Failed to fetch"}, seen
        console = " ".join(entry["message"] for entry in browser.get_log("browser"))
        assert "blocked by CORS policy" in console, console
        assert not [e for e in server.journal.entries() if e["op"] == "whoami"]  # the call itself never came
