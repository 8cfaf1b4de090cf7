"""Issue 34 in a real Chromium: a web page is the attacker, the simulator runs as a developer leaves it.

Three pages, all on loopback (the network here is closed): Chromium's ``--host-resolver-rules`` maps the
names onto 127.0.0.2, where a small server plays the attacker.

* ``http://attacker.example:<port>``: a site on the web, calling the simulator at 127.0.0.1 cross-site, with
  ``fetch`` (CORS), no-cors ``fetch``, ``navigator.sendBeacon``, a ``<form method=POST>`` and an ``<iframe>``;
  it holds a valid stamp made with the published default key, as anyone could.
* ``http://rebind.example:<port>``: DNS rebinding. The page is served by the attacker, and its later same-origin
  requests reach the simulator unchanged (the server forwards them, as a name re-pointed to 127.0.0.1 would),
  so the browser treats them as same-origin and only the simulator's Host check stands in the way.
* ``http://127.0.0.2:<port>``: the same page on a loopback origin, which the main interface answers by default:
  it shows the attempts above would have been seen to succeed (the checks are not vacuous), while the control
  API still refuses it.

After each page, the simulator's state, snapshots, outbox, journal of control calls and webhook receiver are
as they were.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from conftest import DEFAULTS
from support import CHROMEDRIVER, CHROMIUM, NO_CHROMIUM, chromium

from simulator import Config, SimulatorServer
from simulator.config import WEB_APP_AUTH_PROXY_CONFIG_ID
from simulator.testing import ApiKeyStamper

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason=NO_CHROMIUM)
ATTACKER = "127.0.0.2"
RECEIVER = "http://127.0.0.1:9/receiver"

ATTACK_PAGE = """<!doctype html><meta charset=utf-8><title>attack</title>
<iframe name=sink></iframe>
<script>
const given = JSON.parse(decodeURIComponent(location.hash.slice(1)));
async function attempt(url, init) {
  try {
    const response = await fetch(url, init);
    const text = init && init.mode === "no-cors" ? "" : await response.text();
    return { read: init && init.mode === "no-cors" ? "opaque" : "read", status: response.status, text };
  } catch (error) {
    return { read: "blocked", error: String(error) };
  }
}
function form(action) {
  return new Promise((done) => {
    const frame = document.querySelector("iframe[name=sink]");
    frame.onload = () => done("sent");
    const f = document.createElement("form");
    f.method = "POST"; f.action = action; f.target = "sink"; f.enctype = "text/plain";
    const field = document.createElement("input");
    field.name = '{"paths":["default"],"x":"'; field.value = '"}';
    f.append(field); document.body.append(f); f.submit();
  });
}
window.attack = async () => {
  const sim = given.sim, proxy = given.proxy, out = {};
  for (const path of ["/_simulator/state", "/_simulator/outbox", "/_simulator/journal", "/_simulator/webhooks/deliveries",
                      "/_simulator/ui/api/organizations", "/_simulator/ui/static/index.html"]) {
    out["read " + path] = await attempt(sim + path);
  }
  const plain = { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" }, body: "{}" };
  out["no-cors snapshot"] = await attempt(sim + "/_simulator/snapshots", plain);
  out["no-cors scenarios"] = await attempt(sim + "/_simulator/scenarios", { ...plain, body: '{"paths":["two_of_three_quorum"]}' });
  out["no-cors receiver"] = await attempt(sim + "/_simulator/webhooks/receiver", plain);
  out["no-cors restore"] = await attempt(sim + "/_simulator/snapshots/snapshot-1/restore", plain);
  out["beacon snapshot"] = navigator.sendBeacon(sim + "/_simulator/snapshots", "");
  out["beacon reset"] = navigator.sendBeacon(sim + "/_simulator/reset");
  out["json reset"] = await attempt(sim + "/_simulator/reset", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  out["form reset"] = await form(sim + "/_simulator/reset");
  out["form scenarios"] = await form(sim + "/_simulator/scenarios");
  out["api list_wallets"] = await attempt(sim + "/public/v1/query/list_wallets", {
    method: "POST", headers: { "Content-Type": "application/json", "X-Stamp": given.stamp }, body: given.body });
  out["api create_wallet no-cors"] = await attempt(sim + "/public/v1/submit/create_wallet", { ...plain, body: given.wallet });
  out["proxy otp_init"] = await attempt(proxy + "/v1/otp_init", {
    method: "POST", headers: { "Content-Type": "application/json", "X-Auth-Proxy-Config-Id": given.configId },
    body: JSON.stringify({ otpType: "OTP_TYPE_EMAIL", contact: "victim@example.com" }) });
  out["proxy otp_init no-cors"] = await attempt(proxy + "/v1/otp_init", {
    ...plain, body: JSON.stringify({ otpType: "OTP_TYPE_EMAIL", contact: "victim@example.com" }) });
  await new Promise((r) => setTimeout(r, 200));  // beacons are sent after the call returns
  return out;
};
</script>"""


class Attacker(BaseHTTPRequestHandler):
    """Serves the attack page; with ``forward`` set (the rebinding name), passes every other request to the
    simulator with its headers, Host included, as a rebound name delivers it (``/proxy/...`` to the proxy)."""

    main: str = ""
    proxy: str = ""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.split("#")[0] == "/attack.html":
            page = ATTACK_PAGE.encode()
            self.send_response(200)
            for name, value in (
                ("Content-Type", "text/html"),
                ("Content-Length", str(len(page))),
                ("Connection", "close"),
            ):
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(page)
            return
        self.forward()

    def do_POST(self) -> None:
        self.forward()

    def do_OPTIONS(self) -> None:
        self.forward()

    def forward(self) -> None:
        target, path = (
            (self.proxy, self.path[len("/proxy") :]) if self.path.startswith("/proxy/") else (self.main, self.path)
        )
        host, port = target.removeprefix("http://").split(":")
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        connection.putrequest(self.command, path, skip_host=True, skip_accept_encoding=True)
        for name, value in self.headers.items():
            if name.lower() not in ("connection", "content-length"):
                connection.putheader(name, value)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        answer = connection.getresponse()
        data = answer.read()
        connection.close()
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("connection", "content-length", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)


@contextlib.contextmanager
def attacker(server: SimulatorServer) -> Iterator[int]:
    handler = type("Bound", (Attacker,), {"main": server.url, "proxy": server.proxy_url})
    httpd = ThreadingHTTPServer((ATTACKER, 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    rules = f"MAP attacker.example {ATTACKER}, MAP rebind.example {ATTACKER}"
    flags = (f"--host-resolver-rules={rules}", "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable")
    with chromium(script_timeout=60, flags=flags) as driver:
        yield driver


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with SimulatorServer(config=Config(seed=34, inspector=True, auth_proxy=True)) as running:
        sim = running.simulator
        sim.saved_snapshots["snapshot-1"] = sim.snapshot()
        sim.store.org(DEFAULTS["organizationId"]).features["FEATURE_NAME_WEBHOOK"] = RECEIVER
        yield running


def given(server: SimulatorServer, sim: str, proxy: str) -> str:
    stamper = ApiKeyStamper(DEFAULTS["apiPrivateKey"])
    body = json.dumps({"organizationId": DEFAULTS["organizationId"]})
    wallet = json.dumps(
        {
            "type": "ACTIVITY_TYPE_CREATE_WALLET",
            "timestampMs": str(int(time.time() * 1000)),
            "organizationId": DEFAULTS["organizationId"],
            "parameters": {"walletName": "stolen", "accounts": []},
        }
    )
    values = {
        "sim": sim,
        "proxy": proxy,
        "stamp": stamper.stamp(body.encode())[1],
        "body": body,
        "wallet": wallet,
        "configId": WEB_APP_AUTH_PROXY_CONFIG_ID,
    }
    from urllib.parse import quote

    return quote(json.dumps(values))


def run_attack(browser: Any, page: str) -> dict[str, Any]:
    browser.get(page)
    result: dict[str, Any] = browser.execute_async_script("const done = arguments[0]; window.attack().then(done);")
    return result


def snapshot_of(server: SimulatorServer) -> tuple[Any, ...]:
    """The state, the saved snapshots, the OTP outbox and the webhook receiver."""
    sim = server.simulator
    return (
        json.dumps(sim.export_state()["store"], sort_keys=True),
        sorted(sim.saved_snapshots),
        sim.outbox(),
        sim.store.org(DEFAULTS["organizationId"]).features.get("FEATURE_NAME_WEBHOOK"),
    )


def assert_nothing_read(result: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        assert result[name]["read"] == "blocked", (name, result[name])


READS = tuple(
    "read " + p
    for p in (
        "/_simulator/state",
        "/_simulator/outbox",
        "/_simulator/journal",
        "/_simulator/webhooks/deliveries",
        "/_simulator/ui/api/organizations",
        "/_simulator/ui/static/index.html",
    )
)


def test_a_site_on_the_web_can_neither_read_nor_change_anything(browser, server):
    before = snapshot_of(server)
    with attacker(server) as port:
        page = f"http://attacker.example:{port}/attack.html#{given(server, server.url, server.proxy_url)}"
        result = run_attack(browser, page)
    assert_nothing_read(result, (*READS, "json reset", "api list_wallets", "proxy otp_init"))
    assert snapshot_of(server) == before, result
    assert DEFAULTS["apiPrivateKey"] not in json.dumps(result)
    assert not server.store.org(DEFAULTS["organizationId"]).wallets


def test_a_page_through_a_rebinding_name_gets_only_refusals(browser, server):
    before = snapshot_of(server)
    with attacker(server) as port:
        origin = f"http://rebind.example:{port}"
        result = run_attack(browser, f"{origin}/attack.html#{given(server, origin, origin + '/proxy')}")
    for name in (*READS, "json reset", "api list_wallets", "proxy otp_init"):
        assert result[name]["read"] == "read" and result[name]["status"] == 403, (name, result[name])  # same-origin
        assert "is not allowed" in result[name]["text"] and "--allowed-host" in result[name]["text"]
    assert DEFAULTS["apiPrivateKey"] not in json.dumps(result)
    assert snapshot_of(server) == before, result


def test_a_loopback_page_may_use_the_api_but_not_the_control_api(browser, server):
    """The same page on a loopback origin: the main interface answers it by default (the web-app tutorials work
    unchanged), which shows the attempts above are real; the control API still answers only its own pages."""
    before = snapshot_of(server)
    organizations = sorted(server.store.orgs)
    with attacker(server) as port:
        page = f"http://{ATTACKER}:{port}/attack.html#{given(server, server.url, server.proxy_url)}"
        result = run_attack(browser, page)
    listed = result["api list_wallets"]
    assert listed["read"] == "read" and listed["status"] == 200 and "wallets" in json.loads(listed["text"])
    assert result["proxy otp_init"]["status"] == 200  # the auth proxy answers loopback origins by default
    assert_nothing_read(result, (*READS, "json reset"))
    # its OTP changed the store; no control call did: no reset (the receiver stays), no scenario, no snapshot
    after = snapshot_of(server)
    assert after[1] == before[1] and after[3] == RECEIVER and sorted(server.store.orgs) == organizations


def test_the_inspector_cannot_be_framed_by_another_site(browser, server):
    with attacker(server) as port:
        browser.get(f"http://attacker.example:{port}/attack.html#{given(server, server.url, server.proxy_url)}")
        for i, path in enumerate(("/_simulator/ui", "/_simulator/ui/static/index.html")):
            browser.execute_script(
                "const f = document.createElement('iframe'); f.id = arguments[0]; f.src = arguments[1];"
                "document.body.append(f);",
                f"frame{i}",
                server.url + path,
            )
            browser.switch_to.frame(browser.find_element("id", f"frame{i}"))
            try:
                deadline = time.monotonic() + 20
                href = ""
                while time.monotonic() < deadline and not href.startswith("chrome-error://"):
                    href = browser.execute_script("return location.href")
                    time.sleep(0.05)
                assert href.startswith("chrome-error://"), href  # blocked: the Reset button never shows
                assert not browser.find_elements("css selector", "button")
            finally:
                browser.switch_to.default_content()
