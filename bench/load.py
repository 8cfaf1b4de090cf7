"""The load generator: keep-alive HTTP/1.1 clients on raw sockets, one thread per connection.

Requests are serialised before the clock starts and answers are parsed only as far as the
status line and Content-Length, so that the generator (which shares the machine's cores with
the server under test) spends as little CPU per request as it can. A server that closes the
connection after an answer (werkzeug's HTTP/1.0 default) is reconnected to transparently,
and the reconnection is part of the measured time, as it would be for any client.
"""

from __future__ import annotations

import socket
import statistics
import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: bytes
    headers: dict[str, str]

    def wire(self, host: str) -> bytes:
        lines = [f"{self.method} {self.path} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(self.body)}"]
        lines += [f"{name}: {value}" for name, value in self.headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + self.body


@dataclass(frozen=True)
class Result:
    rps: float
    p50_ms: float
    p99_ms: float
    reconnects: int
    max_ms: float = 0.0
    latencies_ms: tuple[float, ...] = ()


class Connection:
    """One client connection; ``exchange`` sends a serialised request and returns the status."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock: socket.socket | None = None
        self.buffer = b""
        self.opened = 0

    def open(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock, self.buffer, self.opened = sock, b"", self.opened + 1
        return sock

    def exchange(self, wire: bytes) -> tuple[int, bytes]:
        sock = self.sock or self.open()
        try:
            sock.sendall(wire)
            status, body, keep = self.answer(sock)
        except (ConnectionError, EOFError):
            sock.close()  # the server closed an idle kept-alive connection: one retry on a new one
            sock = self.open()
            sock.sendall(wire)
            status, body, keep = self.answer(sock)
        if not keep:
            sock.close()
            self.sock = None
        return status, body

    def answer(self, sock: socket.socket) -> tuple[int, bytes, bool]:
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.receive(sock)
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        length = int(fields.get("content-length", "0"))
        while len(rest) < length:
            rest += self.receive(sock)
        self.buffer = rest[length:]
        keep = lines[0].startswith("HTTP/1.1") and fields.get("connection", "").lower() != "close"
        return status, rest[:length], keep

    @staticmethod
    def receive(sock: socket.socket) -> bytes:
        data = sock.recv(65536)
        if not data:
            raise EOFError("connection closed by the server")
        return data

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def run(port: int, requests: list[Request], connections: int, path_override: str | None = None) -> Result:
    """Send ``requests`` over ``connections`` keep-alive connections (round-robin split)."""
    wires = [Request(r.method, path_override or r.path, r.body, r.headers).wire(f"127.0.0.1:{port}") for r in requests]
    shares = [wires[i::connections] for i in range(connections)]
    latencies: list[list[float]] = [[] for _ in range(connections)]
    failures: list[str] = []
    clients = [Connection(port) for _ in range(connections)]
    for client in clients:
        client.open()  # connect before the clock starts: keep-alive clients connect once

    def drive(index: int) -> None:
        client, out = clients[index], latencies[index]
        for wire in shares[index]:
            start = time.perf_counter()
            status, body = client.exchange(wire)
            out.append(time.perf_counter() - start)
            if status != 200 and not failures:
                failures.append(f"{status}: {body[:300]!r}")

    threads = [threading.Thread(target=drive, args=(i,)) for i in range(connections)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    for client in clients:
        client.close()
    if failures:
        raise RuntimeError(f"a request failed: {failures[0]}")
    flat = sorted(x for share in latencies for x in share)
    return Result(
        rps=len(flat) / elapsed,
        p50_ms=statistics.median(flat) * 1000,
        p99_ms=flat[max(0, int(len(flat) * 0.99) - 1)] * 1000,
        reconnects=sum(c.opened for c in clients) - connections,
        max_ms=flat[-1] * 1000,
        latencies_ms=tuple(x * 1000 for x in flat),
    )
