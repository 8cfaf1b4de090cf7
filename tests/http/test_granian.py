"""``serve --server granian`` over real sockets: the limits it carries, and what it refuses or says it does not.

One serve process for the module, with small limits (tests/http/test_transport.py runs the limits both
transports share in process, on each); simulator/server/granian_server.py says what granian carries.
"""

from __future__ import annotations

import http.client
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import PROCESS_STOP_SECONDS

pytest.importorskip("granian", reason="granian is not installed: pip install 'wallet-simulator[granian]'")

from simulator.datadir.directory import DataDir
from simulator.faults import APPLICATION_KINDS, KINDS
from simulator.server.granian_server import NOT_CARRIED
from simulator.testing import ApiKeyStamper, SimulatorClient

CAP = 4096
HEADER_TIMEOUT = 0.5
BOUND = 4
LIMITS = ["--max-body-bytes", str(CAP), "--header-timeout", str(HEADER_TIMEOUT), "--max-connections", str(BOUND)]


def serve(log: Path, *args: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    command = [sys.executable, "-m", "simulator", "serve", "--server", "granian", "--port", "0", "--proxy-port", "0"]
    with log.open("w") as stderr:
        proc = subprocess.Popen([*command, "--seed", "1", *args], stdout=subprocess.PIPE, stderr=stderr, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.kill()
        raise AssertionError(log.read_text())
    return proc, json.loads(line)


def stop(proc: subprocess.Popen[str], how: signal.Signals = signal.SIGTERM) -> int:
    proc.send_signal(how)
    code = proc.wait(timeout=PROCESS_STOP_SECONDS)
    assert proc.stdout is not None
    proc.stdout.close()
    return code


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    log = tmp_path_factory.mktemp("granian") / "stderr.txt"
    proc, ready = serve(log, *LIMITS)
    try:
        yield {**ready, "log": log}
    finally:
        code = stop(proc)
    assert code == 0, log.read_text()


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def exchange(port: int, raw: bytes) -> bytes:
    """Send ``raw``, read until the server closes (the socket's timeout bounds it)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(raw)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return data


def control(url: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port_of(url), timeout=5)
    conn.request(
        method,
        "/_simulator" + path,
        json.dumps(body) if body is not None else None,
        {"Content-Type": "application/json"},
    )
    reply = conn.getresponse()
    answer = reply.status, json.loads(reply.read() or b"null")
    conn.close()
    return answer


def logged(log: Path, text: str) -> bool:
    """Whether serve's log holds ``text`` (written by a background thread: looked for for a while)."""
    deadline = time.monotonic() + 10
    while text not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    return text in log.read_text()


def test_serve_granian_says_at_start_what_it_does_not_carry(served):
    assert logged(served["log"], NOT_CARRIED)
    assert "--server waitress" in NOT_CARRIED and "read timeout" in NOT_CARRIED


@pytest.mark.parametrize(("which", "path"), [("url", "/public/v1/query/whoami"), ("proxyUrl", "/v1/otp_init")])
def test_a_declared_body_over_the_cap_is_answered_the_json_413_on_every_port(served, which, path):
    conn = http.client.HTTPConnection("127.0.0.1", port_of(served[which]), timeout=5)
    conn.request("POST", path, b"x" * (CAP + 1), {"Content-Type": "application/json"})
    reply = conn.getresponse()
    body = json.loads(reply.read())
    assert reply.status == 413 and f"limit is {CAP} bytes" in body["message"]
    assert body["turnkeyErrorCode"] == "REQUEST_INVALID"
    conn.request("POST", path, b"{}", {"Content-Type": "application/json"})  # the body was read: the connection goes on
    assert conn.getresponse().status != 413
    conn.close()


@pytest.mark.parametrize(("which", "path"), [("url", "/public/v1/query/whoami"), ("proxyUrl", "/v1/otp_init")])
def test_a_foreign_host_is_refused_on_every_port(served, which, path):
    """The Host check stands above the transport: granian's ports refuse a DNS-rebinding name as waitress's do."""
    conn = http.client.HTTPConnection("127.0.0.1", port_of(served[which]), timeout=5)
    conn.request("POST", path, b"{}", {"Host": "evil.example", "Content-Type": "application/json"})
    reply = conn.getresponse()
    body = json.loads(reply.read())
    conn.close()
    assert reply.status == 403 and "host 'evil.example' is not allowed" in body["message"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example", "Content-Type": "text/plain"},
        {"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"},
    ],
)
def test_a_cross_site_write_to_the_control_api_is_refused(served, headers):
    unstamped = http.client.HTTPConnection("127.0.0.1", port_of(served["url"]), timeout=5)
    unstamped.request("POST", "/public/v1/query/whoami", b"{}", {"Content-Type": "application/json"})
    assert unstamped.getresponse().status == 401  # journaled: a reset would empty the journal
    unstamped.close()
    before = control(served["url"], "GET", "/journal")
    assert before[0] == 200 and before[1]["entries"]
    conn = http.client.HTTPConnection("127.0.0.1", port_of(served["url"]), timeout=5)
    conn.request("POST", "/_simulator/reset", b"", headers)
    reply = conn.getresponse()
    body = json.loads(reply.read())
    conn.close()
    assert reply.status == 403 and "may not use the control API" in body["message"]
    assert control(served["url"], "GET", "/journal") == before  # nothing was reset


def test_a_chunked_body_over_the_cap_is_not_read_beyond_it_and_answered_413(served):
    head = b"POST /public/v1/query/whoami HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
    chunk = b"%x\r\n%s\r\n" % (CAP, b"x" * CAP)
    answer = exchange(port_of(served["url"]), head + b"Transfer-Encoding: chunked\r\n\r\n" + chunk * 3 + b"0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 413") and b'"turnkeyErrorCode":"REQUEST_INVALID"' in answer


def test_headers_over_the_limit_are_refused(served):
    answer = exchange(
        port_of(served["url"]), b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 1_000_000 + b"\r\n\r\n"
    )
    assert answer.startswith(b"HTTP/1.1 431")


@pytest.mark.parametrize("sent", [b"", b"POST /public/v1/query/whoami HTTP/1.1\r\nHost: loc"], ids=["silent", "half"])
def test_a_half_sent_request_is_closed_within_the_header_timeout(served, sent):
    opened = time.monotonic()
    assert exchange(port_of(served["url"]), sent) == b""
    assert time.monotonic() - opened < HEADER_TIMEOUT + 2


def test_beyond_the_connection_bound_a_client_waits_until_a_slot_frees(served):
    stalled = [socket.create_connection(("127.0.0.1", port_of(served["url"])), timeout=5) for _ in range(BOUND)]
    for sock in stalled:
        sock.sendall(b"GET /_simulator/faults HTTP/1.1\r\n")  # half the head: held until the header timeout
    time.sleep(0.1)
    opened = time.monotonic()
    status, _ = control(served["url"], "GET", "/faults")
    waited = time.monotonic() - opened
    assert status == 200 and waited > HEADER_TIMEOUT / 2  # answered once the stalled ones were dropped
    for sock in stalled:
        sock.close()


def test_malformed_requests_get_no_server_error(served):
    for raw in (b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n"):
        answer = exchange(port_of(served["url"]), raw)
        assert answer.startswith(b"HTTP/1.1 4"), (raw, answer[:200])


@pytest.mark.parametrize("kind", [k for k in KINDS if k not in APPLICATION_KINDS])
def test_a_fault_on_the_connection_is_refused_naming_waitress(served, kind):
    status, body = control(
        served["url"], "POST", "/faults", {"kind": kind, "ms": 10} if kind == "latency" else {"kind": kind}
    )
    assert status == 400 and set(body) == {"code", "message", "details", "turnkeyErrorCode"}
    assert f"a {kind} fault" in body["message"] and "--server waitress" in body["message"]
    assert control(served["url"], "GET", "/faults") == (200, {"faults": []})


def test_an_application_fault_still_answers_over_granian(served):
    fault = {"kind": "unavailable", "code": 14, "match": {"operation": "whoami"}, "times": 1}
    assert control(served["url"], "POST", "/faults", fault)[0] == 200
    client = SimulatorClient(served["url"], ApiKeyStamper(served["apiPrivateKey"]), served["organizationId"])
    assert client.query("whoami").status == 503
    assert client.query("whoami").status == 200  # times: 1
    assert control(served["url"], "DELETE", "/faults")[0] == 200


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stop_closes_the_data_directory_as_on_waitress(tmp_path, how):
    proc, ready = serve(tmp_path / "stderr.txt", "--data-dir", str(tmp_path / "data"))
    client = SimulatorClient(ready["url"], ApiKeyStamper(ready["apiPrivateKey"]), ready["organizationId"])
    assert client.query("whoami").status == 200
    assert stop(proc, how) == 0, (tmp_path / "stderr.txt").read_text()
    assert "INFO simulator stopped" in (tmp_path / "stderr.txt").read_text()  # flushed by the stop
    kept = DataDir(tmp_path / "data", "everysec")
    assert kept.open().document is not None  # unlocked, and holding the state
    kept.close()


def test_the_listening_socket_sends_small_answers_at_once() -> None:
    """Accepted connections inherit TCP_NODELAY from the listener granian is handed (granian sets none on a
    socket it did not make): without it a client on one connection waited on Nagle and the delayed ACK,
    about 20 ms an answer (47 requests/s where waitress answers 1,100)."""
    from simulator import Config, Simulator, create_app
    from simulator.server.granian_server import GranianPort

    port = GranianPort(create_app(Simulator(Config(seed=1))), "127.0.0.1", 0, Config(seed=1))
    try:
        assert port._socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        port.stop_serving(0)
