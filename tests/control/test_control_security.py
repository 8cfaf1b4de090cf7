"""The control API is protected when it matters: the token on every route (server, client, pytest
plugin), --no-control, the warning beyond loopback, and exports that say they hold secrets."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import urllib.request

import pytest
from conftest import DEFAULTS
from support import PROCESS_STOP_SECONDS

from simulator import Config, Simulator
from simulator.control import TOKEN_HEADER, exposure_warning, is_loopback
from simulator.control.control_client import TOKEN_ENV, ControlClient, ControlError
from simulator.server import SimulatorServer
from simulator.web.app import create_app

TOKEN = "s3cret-control-token"
PLACEHOLDER = {"activity_id": "nope", "snapshot_id": "nope", "event_id": "nope"}


@pytest.fixture(scope="module")
def guarded_app():
    return create_app(Simulator(Config(seed=5, control_token=TOKEN)))


def control_routes(app):
    """Every (method, path) the control blueprint serves, placeholders filled."""
    found = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith("control."):
            path = rule.rule
            for name, value in PLACEHOLDER.items():
                path = path.replace(f"<{name}>", value)
            found += [(method, path) for method in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return found


def call(app, method, path, headers=None):
    body = b"{}" if method in ("POST", "PUT") else b""
    return app.test_client().open(
        path, method=method, data=body, headers={"Content-Type": "application/json", **(headers or {})}
    )


def test_the_routes_are_all_found(guarded_app):
    routes = control_routes(guarded_app)
    assert len(routes) >= 23 and ("GET", "/_simulator/state") in routes and ("PUT", "/_simulator/state") in routes


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {TOKEN_HEADER: "wrong"}, {"Authorization": TOKEN}, {"Authorization": ""}],
    ids=["none", "wrong-bearer", "wrong-header", "no-scheme", "empty"],
)
def test_every_route_refuses_without_the_token(guarded_app, headers):
    before = guarded_app.extensions["simulator"].export_state()
    for method, path in control_routes(guarded_app):
        reply = call(guarded_app, method, path, headers)
        assert reply.status_code == 401, (method, path, reply.status_code)
        body = reply.get_json()
        assert body["code"] == 16 and body["turnkeyErrorCode"] == "UNAUTHENTICATED", body
        assert TOKEN not in json.dumps(body)
        assert reply.headers["WWW-Authenticate"].startswith("Bearer ")
    assert guarded_app.extensions["simulator"].export_state() == before  # nothing was changed


@pytest.mark.parametrize(
    "headers",
    [{"Authorization": f"Bearer {TOKEN}"}, {"authorization": f"bearer  {TOKEN} "}, {TOKEN_HEADER: TOKEN}],
    ids=["bearer", "bearer-any-case", "custom-header"],
)
def test_every_route_accepts_the_token(guarded_app, headers):
    for method, path in control_routes(guarded_app):
        reply = call(guarded_app, method, path, headers)
        assert reply.status_code not in (401, 500), (method, path, reply.get_json())


def test_the_public_api_needs_no_control_token(guarded_app):
    assert guarded_app.test_client().get("/public/v1/discovery/webhooks/jwks").status_code == 200


def test_without_a_token_configured_the_control_api_is_open():
    app = create_app(Simulator(Config(seed=5)))
    assert call(app, "GET", "/_simulator/keys").status_code == 200


def test_no_control_serves_none_of_the_routes():
    open_app = create_app(Simulator(Config(seed=5)))
    closed = create_app(Simulator(Config(seed=5, control=False)))
    assert not [rule for rule in closed.url_map.iter_rules() if rule.rule.startswith("/_simulator")]
    for method, path in control_routes(open_app):
        reply = call(closed, method, path)
        assert reply.status_code in (404, 405), (method, path)
        assert reply.get_json()["code"] in (5, 12)
    assert closed.test_client().get("/public/v1/discovery/webhooks/jwks").status_code == 200


def test_the_control_client_sends_the_token_over_http(monkeypatch):
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    with SimulatorServer(config=Config(seed=5, control_token=TOKEN)) as server:
        assert ControlClient(server.url, token=TOKEN).keys()["notarizer"].startswith("04")
        with pytest.raises(ControlError) as refused:
            ControlClient(server.url).state()
        assert refused.value.status == 401 and "requires its token" in str(refused.value)
        with pytest.raises(ControlError, match="token refused"):
            ControlClient(server.url, token="wrong").reset()
        monkeypatch.setenv(TOKEN_ENV, TOKEN)
        assert ControlClient(server.url).snapshot() == "snapshot-1"


def test_state_exports_say_they_hold_secrets_and_old_documents_still_import():
    sim = Simulator(Config(seed=5))
    exported = sim.export_state()
    assert exported["containsSecrets"] is True and "private" in exported["secretsNote"]
    assert DEFAULTS["apiPrivateKey"] in json.dumps(exported)  # which is why it says so
    app = create_app(sim)
    fetched = app.test_client().get("/_simulator/state")
    assert fetched.headers["Cache-Control"] == "no-store"
    first_wave = {k: v for k, v in exported.items() if k not in ("containsSecrets", "secretsNote")}
    assert first_wave["format"] == "wallet-simulator-state/1"
    reply = app.test_client().put("/_simulator/state", json=first_wave)
    assert reply.status_code == 200, reply.get_json()


@pytest.mark.parametrize(
    ("host", "config", "warns"),
    [
        ("127.0.0.1", Config(), False),
        ("localhost", Config(), False),
        ("::1", Config(), False),
        ("[::1]", Config(), False),
        ("127.0.0.2", Config(), False),
        ("0.0.0.0", Config(), True),
        ("::", Config(), True),
        ("192.168.1.20", Config(), True),
        ("sim.example", Config(), True),
        ("0.0.0.0", Config(control_token=TOKEN), False),
        ("0.0.0.0", Config(control=False), False),
    ],
)
def test_the_exposure_warning(host, config, warns):
    warning = exposure_warning(host, config)
    assert (warning is not None) == warns
    if warning:
        assert "--control-token" in warning and "--no-control" in warning and host in warning
    assert is_loopback(host) == (host in ("127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"))


class Served:
    """``wallet-simulator serve`` in a subprocess: its ready line, and its log lines as they come."""

    def __init__(self, *args: str) -> None:
        command = [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0", "--seed", "1"]
        env = {**os.environ, TOKEN_ENV: ""}
        self.proc = subprocess.Popen(
            [*command, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stderr], daemon=True)
        self.reader.start()
        line = self.proc.stdout.readline()
        if not line:
            self.proc.kill()
            raise AssertionError(self.proc.stderr.read())
        self.ready = json.loads(line)

    def log_until(self, text: str, timeout: float = 10) -> str:
        """The log up to the first line containing ``text``."""
        seen = ""
        while text not in seen:
            seen += self.lines.get(timeout=timeout)
        return seen

    def stop(self) -> None:
        # an answer means the server loop runs, inside the part of serve that handles Ctrl-C
        urllib.request.urlopen(self.ready["url"] + "/public/v1/discovery/webhooks/jwks", timeout=10).close()
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=PROCESS_STOP_SECONDS)
        self.reader.join(timeout=5)
        self.proc.stdout.close()
        self.proc.stderr.close()
        assert code == 0


def test_serve_warns_when_listening_beyond_loopback_without_a_token():
    quiet = Served("--host", "0.0.0.0", "--no-control")  # no control: nothing is exposed while testing
    try:
        assert "beyond loopback" not in quiet.log_until("serving on")
    finally:
        quiet.stop()
    exposed = Served("--host", "0.0.0.0")  # issue 34: no longer open; a token is generated and printed
    try:
        line = exposed.log_until("beyond loopback").splitlines()[-1]
        assert "WARNING" in line and "requires a token" in line and "--control-token" in line
        token = exposed.ready["controlToken"]
        assert isinstance(token, str) and len(token) >= 32
        url = exposed.ready["url"].replace("0.0.0.0", "127.0.0.1")
        with pytest.raises(ControlError) as refused:
            ControlClient(url, token="").state()
        assert refused.value.status == 401
        assert ControlClient(url, token=token).journal() == []
    finally:
        exposed.stop()


def test_serve_takes_the_token_and_no_control_switches():
    guarded = Served("--control-token", TOKEN)
    try:
        with pytest.raises(ControlError) as refused:
            ControlClient(guarded.ready["url"], token="").reset()
        assert refused.value.status == 401
        ControlClient(guarded.ready["url"], token=TOKEN).reset()
    finally:
        guarded.stop()
    closed = Served("--no-control")
    try:
        with pytest.raises(ControlError) as missing:
            ControlClient(closed.ready["url"], token="").keys()
        assert missing.value.status == 404
    finally:
        closed.stop()


PLUGIN_SUITE = """
import pytest
from simulator.control.control_client import ControlClient, ControlError


def test_the_fixture_server_requires_the_token(simulator):
    with pytest.raises(ControlError) as refused:
        ControlClient(simulator.url, token="").state()
    assert refused.value.status == 401


def test_the_control_fixture_carries_it(simulator_control, simulator_client):
    simulator_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []})
    assert [e["op"] for e in simulator_control.journal()] == ["create_wallet"]
    simulator_control.reset()
"""


def test_the_pytest_plugin_passes_the_token_from_its_ini_option(pytester, monkeypatch):
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    pytester.makeini(f"[pytest]\nsimulator_control_token = {TOKEN}\n")
    pytester.makepyfile(test_guarded=PLUGIN_SUITE)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_the_pytest_plugin_passes_the_token_from_the_environment(pytester, monkeypatch):
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    pytester.makepyfile(test_guarded=PLUGIN_SUITE)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_the_cli_client_commands_pass_the_token(capsys, monkeypatch):
    from simulator.cli import main

    monkeypatch.delenv(TOKEN_ENV, raising=False)
    with SimulatorServer(config=Config(seed=3, control_token="sesame")) as server:
        assert main(["outbox", "--url", server.url]) == 1
        assert "token" in capsys.readouterr().err
        assert main(["outbox", "--url", server.url, "--control-token", "sesame"]) == 0
        assert main(["control", "reset", "--url", server.url, "--control-token", "sesame"]) == 0
        assert main(["webhooks", "list", "--url", server.url, "--control-token", "sesame"]) == 0
        assert main(["control", "reset", "--url", server.url, "--control-token", "wrong"]) == 1
