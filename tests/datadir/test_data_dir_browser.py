"""A passkey made in a real browser keeps logging in across restarts of ``serve --data-dir``.

The kit's page (tests/webapp, ``@turnkey/react-wallet-kit`` unmodified) stays open in Debian's
headless Chromium with one virtual authenticator (tests/webapp/restart.js) while the test stops
and starts ``wallet-simulator serve`` under it on the same ports, as a developer's day goes: sign
up with a passkey and make a wallet; stop with SIGTERM, start again on the same directory, reload,
log in: the same organization, user and wallet; kill with SIGKILL (a crash), start again, log in
again; then start WITHOUT ``--data-dir``: the same passkey is unknown, so the directory is what
kept it. Only the user's surfaces: the command line, the page, HTTP; nothing of the directory's
format. Every wait is bounded (support.BROWSER_STEP_SECONDS, PROCESS_STOP_SECONDS).
"""

from __future__ import annotations

import json
import select
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from browser_apps import CHROMIUM, CONFIG_ID, NODE, built_and_served, missing, serve, stop
from conftest import DEFAULTS, ROOT
from support import BROWSER_RUN_SECONDS, BROWSER_STEP_SECONDS, PROCESS_STOP_SECONDS

from simulator.control.control_client import ControlClient

WEBAPP = ROOT / "tests" / "webapp"
pytestmark = pytest.mark.skipif(
    missing("playwright-core", "esbuild", "@turnkey/react-wallet-kit", "react-dom"),
    reason="the data-dir browser test needs node, Debian's chromium and tests/js/node_modules "
    "(apt-get install -y chromium; npm ci --prefix tests/js)",
)
COMMAND_SECONDS = 4 * BROWSER_STEP_SECONDS  # one command of restart.js: a reload and a few awaited steps


def free_ports(count: int) -> list[int]:
    """Ports free now, chosen before anything starts: the page's configuration names them for the whole test."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class Page:
    """tests/webapp/restart.js: one kit page and its virtual authenticator, kept open; one command, one answer."""

    def __init__(self, url: str, log: Path) -> None:
        given = {"page": url, "chromium": CHROMIUM, "stepMs": BROWSER_STEP_SECONDS * 1000}
        with log.open("w") as stderr:
            self.proc = subprocess.Popen(
                [str(NODE), str(WEBAPP / "restart.js"), json.dumps(given)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            )
        self.log = log
        assert self.answer()["ready"]

    def answer(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        if not select.select([self.proc.stdout], [], [], COMMAND_SECONDS)[0]:
            raise AssertionError(
                f"the page answered nothing within {COMMAND_SECONDS} s: {self.log.read_text()[-2000:]}"
            )
        line = self.proc.stdout.readline()
        assert line, f"the page's driver stopped: {self.log.read_text()[-3000:]}"
        seen: dict[str, Any] = json.loads(line)
        assert seen["ok"], json.dumps(seen, indent=1)[:4000]
        return seen

    def do(self, command: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.answer()

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()  # restart.js closes the browser and exits
        try:
            self.proc.wait(PROCESS_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(PROCESS_STOP_SECONDS)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Sign up; SIGTERM and start again; SIGKILL and start again; start without --data-dir: what the page saw each time."""
    work = tmp_path_factory.mktemp("data-dir-browser")
    data_dir = work / "simulator-data"
    ports = free_ports(2)
    with built_and_served(WEBAPP / "build.js", work / "app", timeout=BROWSER_RUN_SECONDS) as app:
        seen: dict[str, Any] = {"dataDir": data_dir, "ready": []}

        def start(name: str, *switches: str) -> subprocess.Popen[str]:
            proc, ready = serve(*switches, log=work / f"{name}.log", ports=(ports[0], ports[1]))
            seen["ready"].append(ready)
            return proc

        sim = start("first", "--data-dir", str(data_dir))
        page = None
        try:
            ready = seen["ready"][0]
            query = {"url": ready["url"], "proxyUrl": ready["proxyUrl"], "configId": CONFIG_ID}
            page = Page(
                f"{app}/kit.html?{urlencode({**query, 'organizationId': ready['organizationId']})}", work / "page.log"
            )
            seen["signup"] = page.do("signup")
            stop(sim, signal.SIGTERM)
            sim = start("after-sigterm", "--data-dir", str(data_dir))
            seen["afterSigterm"] = page.do("login")
            stop(sim, signal.SIGKILL)
            sim = start("after-sigkill", "--data-dir", str(data_dir))
            seen["afterSigkill"] = page.do("login")
            stop(
                sim, signal.SIGTERM
            )  # not Ctrl-C: a runner started in the background ignores SIGINT, and so would serve
            sim = start("in-memory")
            seen["withoutDataDir"] = page.do("refused")
            seen["refusedLogins"] = ControlClient(seen["ready"][-1]["url"]).journal("stamp_login")
            seen["logs"] = {path.stem: path.read_text() for path in work.glob("*.log")}
            yield seen
        finally:
            if page is not None:
                page.close()
            stop(sim, signal.SIGTERM)


def test_the_simulator_starts_again_on_the_same_ports_and_directory(day):
    first, *again = day["ready"]
    assert [(r["url"], r["proxyUrl"]) for r in again] == [(first["url"], first["proxyUrl"])] * 3
    assert [r["dataDir"] for r in day["ready"]] == [str(day["dataDir"].resolve())] * 3 + [None]
    assert not any("Traceback" in text for text in day["logs"].values()), "no request the page made crashed serve"


def test_a_passkey_sign_up_logs_in_again_after_sigterm(day):
    signup, login = day["signup"]["auth"], day["afterSigterm"]["auth"]
    assert (signup["action"], signup["method"]) == ("SIGNUP", "passkey")
    assert (login["action"], login["method"]) == ("LOGIN", "passkey")
    assert login["organizationId"] == signup["organizationId"] != DEFAULTS["organizationId"]
    assert login["userId"] == signup["userId"]
    assert login["identifier"] == signup["identifier"]  # the same credential, still in the page's authenticator
    assert day["afterSigterm"]["credentialIds"] == day["signup"]["credentialIds"]


def test_a_passkey_sign_up_logs_in_again_after_a_crash(day):
    signup, login = day["signup"]["auth"], day["afterSigkill"]["auth"]
    assert login["action"] == "LOGIN"
    assert (login["organizationId"], login["userId"], login["identifier"]) == (
        signup["organizationId"],
        signup["userId"],
        signup["identifier"],
    )


def test_the_wallet_made_before_the_restarts_is_still_listed(day):
    wallet_id = day["signup"]["walletId"]
    assert wallet_id in [w["walletId"] for w in day["signup"]["wallets"]]
    for after in ("afterSigterm", "afterSigkill"):
        assert [w["walletName"] for w in day[after]["wallets"] if w["walletId"] == wallet_id] == ["kept wallet"]


def test_without_the_data_dir_the_same_passkey_is_unknown(day):
    """The same ports, page and authenticator, serve without --data-dir: the login fails; the directory kept it."""
    refused = day["withoutDataDir"]
    assert refused["authenticated"] is False and refused["auth"] == "unauthenticated"
    assert refused["error"]["code"] == "PASSKEY_LOGIN_AUTH_ERROR", refused["error"]
    # the simulator's side: the page's passkey names a credential it has never heard of
    (login,) = day["refusedLogins"]
    assert login["status"] == 404
    assert "authenticator not found" in login["outcome"]["message"]
    assert day["signup"]["auth"]["identifier"] in login["outcome"]["message"]
