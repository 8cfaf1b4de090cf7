"""The HTTP transport on every port: body cap, keep-alive, read timeouts, connection bound, clean stop.

Each test starts its own server with small limits through Config, so it stays within a few
seconds; raw sockets play the slow and idle clients.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from importlib.util import find_spec

import pytest
from conftest import DEFAULTS

from simulator.cli import config_from, parser
from simulator.config import Config
from simulator.server import SimulatorServer
from simulator.testing import ApiKeyStamper

CAP = 4096
# the tests wait for these timeouts in real time: short, yet well above a request's time on a busy machine and
# the trickling test's 0.1 s between bytes
TIMEOUT = 0.3
FAST = Config(seed=1, max_body_bytes=CAP, header_timeout_seconds=TIMEOUT, read_timeout_seconds=TIMEOUT)


# the tests of what both transports carry run on each (simulator/server/granian_server.py says what granian does not)
GRANIAN = pytest.param(
    "granian",
    marks=pytest.mark.skipif(
        find_spec("granian") is None, reason="granian is not installed: pip install 'wallet-simulator[granian]'"
    ),
)
TRANSPORTS = ["waitress", GRANIAN]


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with SimulatorServer(config=FAST) as running:
        yield running


@pytest.fixture(params=TRANSPORTS)
def any_server(request: pytest.FixtureRequest) -> Iterator[SimulatorServer]:
    """FAST's server on each transport."""
    with SimulatorServer(config=dataclasses.replace(FAST, server=request.param)) as running:
        yield running


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def post(conn: http.client.HTTPConnection, path: str, body: bytes) -> tuple[int, http.client.HTTPMessage, dict]:
    conn.request(
        "POST", path, body=body, headers={"Content-Type": "application/json", "Origin": "http://localhost:3000"}
    )
    reply = conn.getresponse()
    return reply.status, reply.headers, json.loads(reply.read())  # names in any case: granian sends them lower-cased


def whoami(conn: http.client.HTTPConnection) -> int:
    raw = json.dumps({"organizationId": DEFAULTS["organizationId"]}).encode()
    name, value = ApiKeyStamper(DEFAULTS["apiPrivateKey"]).stamp(raw)
    conn.request("POST", "/public/v1/query/whoami", body=raw, headers={"Content-Type": "application/json", name: value})
    reply = conn.getresponse()
    reply.read()
    return reply.status


def assert_too_large(status: int, body: dict) -> None:
    assert status == 413
    assert body["turnkeyErrorCode"] == "REQUEST_INVALID" and f"limit is {CAP} bytes" in body["message"]
    assert body["details"][0]["@type"].endswith("errors.v1.TurnkeyErrorDetail")


@pytest.mark.parametrize(
    ("which", "path"),
    [("main", "/public/v1/query/whoami"), ("proxy", "/v1/otp_init"), ("control", "/_simulator/reset")],
)
def test_a_body_over_the_cap_is_refused_413_in_the_error_shape_on_every_port(any_server, which, path):
    url = any_server.proxy_url if which == "proxy" else any_server.url
    conn = http.client.HTTPConnection("127.0.0.1", port_of(url), timeout=5)
    status, headers, body = post(conn, path, b"x" * (CAP + 1))
    assert_too_large(status, body)
    if which == "proxy":
        assert headers["Access-Control-Allow-Origin"] == "http://localhost:3000"
    # the refused body was read and dropped, so the same connection serves the next request
    status, _, _ = post(conn, path, b"{}")
    assert status != 413
    conn.close()


def test_a_body_at_the_cap_is_accepted_and_a_refusal_is_journaled(any_server):
    conn = http.client.HTTPConnection("127.0.0.1", any_server.port, timeout=5)
    status, _, body = post(conn, "/public/v1/query/whoami", b" " * (CAP - 2) + b"{}")
    assert status == 401, body  # read and parsed: refused only for its missing stamp
    status, _, _ = post(conn, "/public/v1/query/whoami", b"x" * (CAP + 1))
    assert status == 413
    assert [entry["status"] for entry in any_server.journal.entries()][-1:] == [413]
    conn.close()


def test_a_chunked_body_over_the_cap_is_refused_too(any_server):
    with socket.create_connection(("127.0.0.1", any_server.port), timeout=5) as sock:
        head = b"POST /public/v1/query/whoami HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
        chunk = b"%x\r\n%s\r\n" % (CAP, b"x" * CAP)
        sock.sendall(head + chunk + chunk + b"0\r\n\r\n")
        answer = read_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 413") and b'"turnkeyErrorCode":"REQUEST_INVALID"' in answer


def test_malformed_requests_are_answered_in_the_error_shape(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(b"GARBAGE\r\n\r\n")
        answer = read_until_closed(sock)
    status_line, _, rest = answer.partition(b"\r\n")
    assert b" 400 " in status_line
    body = json.loads(rest.split(b"\r\n\r\n", 1)[1])
    assert body["turnkeyErrorCode"] == "REQUEST_INVALID" and "malformed HTTP request" in body["message"]


def test_keep_alive_serves_two_requests_on_one_connection(any_server):
    conn = http.client.HTTPConnection("127.0.0.1", any_server.port, timeout=5)
    assert whoami(conn) == 200
    first = conn.sock
    assert whoami(conn) == 200
    assert conn.sock is first  # http.client reconnects silently if the server had closed it
    conn.close()


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (socket timeout: the test's bound)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def assert_dropped(port: int, sent: bytes) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(sent)
        opened = time.monotonic()
        assert read_until_closed(sock) == b""
        assert time.monotonic() - opened < 3  # closed by the server's timeout, not by the test's own bound


@pytest.mark.parametrize(
    "sent",
    [
        b"",  # connected, never spoke
        b"POST /public/v1/query/whoami HTTP/1.1\r\nHost: localhost\r\n",  # half the headers
    ],
    ids=["silent", "half-headers"],
)
def test_a_slow_client_is_dropped_after_the_timeout(any_server, sent):
    assert_dropped(any_server.port, sent)


def test_a_client_stalling_in_its_body_is_dropped_after_the_read_timeout(server):
    # waitress only: granian has no body read timeout (granian_server.NOT_CARRIED)
    assert_dropped(
        server.port, b"POST /public/v1/query/whoami HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{"
    )


def test_a_client_trickling_its_headers_is_dropped_at_the_header_deadline(any_server):
    with socket.create_connection(("127.0.0.1", any_server.port), timeout=5) as sock:
        sock.sendall(b"POST /public/v1/query/whoami HTTP/1.1\r\n")
        opened = time.monotonic()
        closed = False
        while time.monotonic() - opened < 3 and not closed:
            time.sleep(0.1)  # a byte every 0.1 s: never idle for the read timeout
            try:
                sock.sendall(b"X")
            except OSError:
                closed = True
        assert closed or read_until_closed(sock) == b""


def test_an_idle_kept_alive_connection_is_closed_after_the_read_timeout(any_server):
    conn = http.client.HTTPConnection("127.0.0.1", any_server.port, timeout=5)
    assert whoami(conn) == 200
    assert conn.sock is not None
    assert read_until_closed(conn.sock) == b""
    conn.close()


def test_slow_clients_hold_no_worker_thread():
    config = Config(seed=1, threads=2, header_timeout_seconds=5, read_timeout_seconds=5)
    with SimulatorServer(config=config) as server:
        stalled = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(20)]
        for sock in stalled:
            sock.sendall(b"POST /public/v1/query/whoami HTTP/1.1\r\nContent-Length: 50\r\n\r\n{")
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=2)  # well inside the 5 s timeout
        assert whoami(conn) == 200
        conn.close()
        for sock in stalled:
            sock.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_beyond_the_connection_bound_clients_wait_until_slow_ones_are_dropped(transport):
    config = Config(
        seed=1, max_connections=3, header_timeout_seconds=TIMEOUT, read_timeout_seconds=TIMEOUT, server=transport
    )
    with SimulatorServer(config=config) as server:
        stalled = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(3)]
        for sock in stalled:
            sock.sendall(b"POST /public/v1/query/whoami HTTP/1.1\r\n")
        time.sleep(0.1)  # let the server accept them and reach its bound
        waiting = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        assert whoami(waiting) == 200  # answered once the stalled ones timed out
        assert all(read_until_closed(sock) == b"" for sock in stalled)
        waiting.close()
        for sock in stalled:
            sock.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_stop_finishes_answers_under_way_and_closes_open_connections(transport):
    server = SimulatorServer(config=dataclasses.replace(FAST, server=transport))
    release = threading.Event()

    def slow() -> str:
        release.wait(5)
        return "done"

    server.app.add_url_rule("/slow", "slow", slow)
    server.start()
    idle = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    assert whoami(idle) == 200
    half = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    half.sendall(b"POST /public/v1/query/whoami HTTP/1.1\r\n")
    busy = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    busy.request("GET", "/slow")
    time.sleep(0.1)
    stopper = threading.Thread(target=server.stop)
    stopper.start()
    time.sleep(0.1)
    release.set()
    reply = busy.getresponse()
    assert (reply.status, reply.read()) == (200, b"done")
    stopper.join(5)
    assert not stopper.is_alive()
    assert idle.sock is not None and read_until_closed(idle.sock) == b""
    assert read_until_closed(half) == b""
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1)
    for connection in (idle, busy, half):
        connection.close()
    server.stop()  # a second stop is harmless


def test_serve_switches_set_the_transport_limits():
    args = parser().parse_args(
        ["serve", "--threads", "3", "--max-connections", "7", "--max-body-bytes", "1000"]
        + ["--header-timeout", "1.5", "--read-timeout", "2"]
    )
    config = config_from(args)
    assert (config.threads, config.max_connections, config.max_body_bytes) == (3, 7, 1000)
    assert (config.header_timeout_seconds, config.read_timeout_seconds) == (1.5, 2.0)
    with pytest.raises(SystemExit):
        parser().parse_args(["serve", "--threads", "0"])


def test_impossible_transport_settings_are_refused_before_listening():
    with pytest.raises(ValueError, match="threads"):
        SimulatorServer(config=Config(threads=0))
