"""At the connection bound, an idle kept-alive connection makes room for a new one (oldest first, as
nginx does); connections that are sending a request or being answered still hold the bound (issue 34)."""

from __future__ import annotations

import json
import resource
import socket
import statistics
import time
from collections.abc import Iterator

import pytest
from conftest import DEFAULTS

from simulator.config import Config
from simulator.server import SimulatorServer
from simulator.testing import ApiKeyStamper

IDLE = 1000


def whoami_request() -> bytes:
    raw = json.dumps({"organizationId": DEFAULTS["organizationId"]}).encode()
    name, value = ApiKeyStamper(DEFAULTS["apiPrivateKey"]).stamp(raw)
    head = (
        "POST /public/v1/query/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"{name}: {value}\r\nContent-Length: {len(raw)}\r\n\r\n"
    )
    return head.encode() + raw


def answer(sock: socket.socket) -> tuple[int, bytes]:
    """One HTTP answer read off a kept-alive connection: its status and body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before an answer")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = next(int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed in the middle of an answer")
        body += chunk
    return int(lines[0].split()[1]), body


def closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(5)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


@pytest.fixture
def enough_descriptors() -> Iterator[None]:
    """Room for the idle clients and the server's side of them (the server runs in this process)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 3 * IDLE + 512
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"the hard limit on open files ({hard}) is below {wanted}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_new_connection_is_answered_at_once_while_1000_idle_kept_alive_ones_are_open(enough_descriptors):
    request = whoami_request()
    # the default bound (256) and read timeout (30 s): before, connection 257 waited for that timeout
    with SimulatorServer(config=Config(seed=1)) as server:
        assert server.simulator.config.max_connections < IDLE
        idle: list[socket.socket] = []
        try:
            for _ in range(IDLE):
                sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
                idle.append(sock)
                sock.sendall(request)
                assert answer(sock)[0] == 200
            timings = []
            for _ in range(5):
                started = time.perf_counter()
                with socket.create_connection(("127.0.0.1", server.port), timeout=10) as new:
                    new.sendall(request)
                    assert answer(new)[0] == 200
                timings.append(time.perf_counter() - started)
            assert max(timings) < 2, timings
            assert statistics.median(timings) < 0.1, timings
            # the oldest idle ones made room; the newest are still kept alive and serve another request
            assert closed_by_server(idle[0])
            idle[-1].sendall(request)
            assert answer(idle[-1])[0] == 200
        finally:
            for sock in idle:
                sock.close()


SLOW = Config(seed=1, max_connections=8, header_timeout_seconds=60, read_timeout_seconds=60)
HALF = b"POST /public/v1/query/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\n"


def test_a_flood_of_half_sent_requests_still_holds_the_bound():
    """Connections in the middle of a request are never closed to make room: a newcomer waits until one
    goes (here its client closes it; else the header timeout would)."""
    request = whoami_request()
    with SimulatorServer(config=SLOW) as server:
        flood = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(8)]
        try:
            for sock in flood:
                sock.sendall(HALF)
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as new:
                new.sendall(request)
                new.settimeout(0.5)
                with pytest.raises(TimeoutError):
                    new.recv(1)  # not admitted: the bound holds
                new.settimeout(10)
                flood.pop(0).close()
                assert answer(new)[0] == 200
            for sock in flood:  # none of them was closed to make room
                sock.sendall(b"\r\n")
                assert answer(sock)[0] == 400  # answered (an empty body): the connection was kept
        finally:
            for sock in flood:
                sock.close()


def test_at_the_bound_only_the_idle_connection_makes_room():
    request = whoami_request()
    with SimulatorServer(config=SLOW) as server:
        idle = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        busy = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(7)]
        try:
            idle.sendall(request)
            assert answer(idle)[0] == 200
            for sock in busy:
                sock.sendall(HALF)
            started = time.perf_counter()
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as new:
                new.sendall(request)
                assert answer(new)[0] == 200
            assert time.perf_counter() - started < 5  # not the 60 s timeout
            assert closed_by_server(idle)
            for sock in busy:
                sock.sendall(b"\r\n")
                assert answer(sock)[0] == 400  # answered (an empty body): the connection was kept
        finally:
            for sock in [idle, *busy]:
                sock.close()
