"""``wallet-simulator parity record``: a forwarding proxy between a suite's clients and an upstream (the real
service, or a simulator), writing every exchange of the main interface and the auth proxy to a file.

Requests go upstream as the client sent them: the method, the path and query, the body's bytes and every
header but the connection's own (``Host`` names the upstream; stamps sign the body, which is unchanged), so a
stamp verifies upstream; ``Accept-Encoding`` keeps only the encodings the recorder can read (gzip, deflate). Answers come back as the upstream sent them (status, headers, undecoded bytes). What
is written is redacted (``simulator.parity.redaction``); the recorder holds no key: it never stamps.

Forwarding uses urllib3: its pool is thread-safe, it sends the body and headers it is given without rewriting
them, and with ``retries=False, redirect=False`` it never sends a request twice (a retried submit would be a
second activity upstream) nor follows the upstream elsewhere.
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import urllib3

from simulator import __version__
from simulator.config import Config
from simulator.parity.exchanges import Exchange, RecordingWriter, operation_of
from simulator.parity.redaction import redact, request_headers
from simulator.server.host_check import HostCheck
from simulator.server.wsgi import PortServer, WorkerPools

HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
}
# the recorder's server writes its own Server and Date, and the Content-Length of the bytes it passes on
ANSWER_HEADERS_DROPPED = HOP_BY_HOP | {"server", "date"}
READABLE = {"gzip", "deflate", "identity", "*"}
UPSTREAM_TIMEOUT_SECONDS = 120.0
STOP_GRACE_SECONDS = 5.0
REAL_API = "api.turnkey.com"
REAL_AUTH_PROXY = "https://authproxy.turnkey.com"

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


class RecorderError(ValueError):
    """The recorder cannot start with these settings."""


def default_proxy_upstream(upstream: str) -> str | None:
    """The auth proxy that goes with an upstream: Turnkey's for Turnkey's API, else none (give --proxy-upstream)."""
    return REAL_AUTH_PROXY if urlsplit(upstream).hostname == REAL_API else None


def check_loopback(host: str) -> None:
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise RecorderError(f"the recorder listens on loopback only (127.0.0.1, ::1 or localhost), not {host}")


def check_upstream(url: str, what: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RecorderError(f"{what} must be an http(s) URL, got {url!r}")
    return url.rstrip("/")


class Forwarder:
    """The WSGI application of one port: forwards to ``upstream`` and records what the catalogue names."""

    def __init__(self, interface: str, upstream: str | None, pool: urllib3.PoolManager, writer: RecordingWriter):
        self.interface, self.upstream, self.pool, self.writer = interface, upstream, pool, writer

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        method = environ["REQUEST_METHOD"]
        target = quote(environ.get("PATH_INFO", "")) + (
            "?" + environ["QUERY_STRING"] if environ.get("QUERY_STRING") else ""
        )
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        headers = incoming_headers(environ)
        operation, kind = operation_of(self.interface, target)
        recorded = method == "POST" and kind != "other"
        index = self.writer.next_index() if recorded else 0
        if self.upstream is None:
            status, answer_headers, data, ms = unreachable(
                f"no upstream for the {self.interface} port (--proxy-upstream)"
            )
        else:
            status, answer_headers, data, ms = self.forward(method, target, headers, body)
        if recorded:
            self.writer.write(
                exchange(
                    index, self.interface, operation, kind, target, headers, body, status, answer_headers, data, ms
                )
            )
        start_response(f"{status} {reason(status)}", answer_headers + [("Content-Length", str(len(data)))])
        return [data]

    def forward(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, list[tuple[str, str]], bytes, float]:
        sent = {k: v for k, v in headers.items() if k.lower() not in HOP_BY_HOP}
        for name, value in list(sent.items()):
            if name.lower() == "accept-encoding":
                sent[name] = readable_encodings(value)
        started = time.perf_counter()
        try:
            reply = self.pool.request(
                method,
                str(self.upstream) + target,
                body=body or None,
                headers=sent,
                redirect=False,
                retries=False,
                decode_content=False,
                timeout=urllib3.Timeout(total=UPSTREAM_TIMEOUT_SECONDS),
            )
        except urllib3.exceptions.HTTPError as exc:
            return unreachable(f"cannot reach the upstream {self.upstream}: {exc}")
        ms = round((time.perf_counter() - started) * 1000, 1)
        kept = [(k, v) for k, v in reply.headers.items() if k.lower() not in ANSWER_HEADERS_DROPPED]
        return reply.status, kept, reply.data, ms


def readable_encodings(accepted: str) -> str:
    """What the client accepts that the recorder can also read to write the answer down (gzip, deflate): node's
    fetch offers br and zstd too. Stamps sign the body only, so this header may change; the answer the client
    gets is still one it asked for."""
    kept = [part.strip() for part in accepted.split(",") if part.split(";")[0].strip().lower() in READABLE]
    return ", ".join(kept) or "identity"


def incoming_headers(environ: dict[str, Any]) -> dict[str, str]:
    headers = {k[5:].replace("_", "-").title(): str(v) for k, v in environ.items() if k.startswith("HTTP_")}
    if environ.get("CONTENT_TYPE"):
        headers["Content-Type"] = environ["CONTENT_TYPE"]
    return headers


def unreachable(why: str) -> tuple[int, list[tuple[str, str]], bytes, float]:
    """The recorder's own answer when the upstream cannot answer: 502 in the service's error shape."""
    body = json.dumps({"code": 14, "message": f"wallet-simulator parity record: {why}", "details": []}).encode()
    return 502, [("Content-Type", "application/json")], body, 0.0


def reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Status"


def exchange(
    index: int,
    interface: str,
    operation: str,
    kind: str,
    target: str,
    headers: dict[str, str],
    body: bytes,
    status: int,
    answer_headers: list[tuple[str, str]],
    data: bytes,
    ms: float,
) -> Exchange:
    found: list[dict[str, str]] = []
    request = {
        "headers": request_headers(headers, found),
        "body": redact(parsed(body), "request.body", found),
    }
    encoding = next((v for k, v in answer_headers if k.lower() == "content-encoding"), "")
    answer = redact(parsed(decoded(data, encoding)), "answer", found)
    return Exchange(index, interface, operation, kind, "POST", target, request, status, answer, ms, found)


def parsed(data: bytes) -> Any:
    try:
        return json.loads(data) if data else None
    except (ValueError, UnicodeDecodeError):
        return {"text": data[:2000].decode("utf-8", "replace")}


def decoded(data: bytes, encoding: str) -> bytes:
    if encoding.lower() in ("gzip", "deflate"):
        try:
            return zlib.decompress(data, 47)  # 32 + 15: a gzip or zlib header, detected
        except zlib.error:
            return data
    return data


class ParityRecorder:
    """Two loopback ports forwarding to the upstream's main interface and auth proxy, recording to ``out``.

    >>> with ParityRecorder("https://api.turnkey.com", Path("real.jsonl")) as recorder:
    ...     recorder.url    # doctest: +SKIP
    """

    def __init__(
        self,
        upstream: str,
        out: Path,
        *,
        proxy_upstream: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        proxy_port: int = 0,
    ) -> None:
        check_loopback(host)
        self.upstream = check_upstream(upstream, "the upstream")
        given = proxy_upstream or default_proxy_upstream(self.upstream)
        self.proxy_upstream = check_upstream(given, "the proxy upstream") if given else None
        self.out = out
        self.writer = RecordingWriter(
            out, {"upstream": self.upstream, "proxyUpstream": self.proxy_upstream, "recorder": __version__}
        )
        self._http = urllib3.PoolManager(num_pools=4, maxsize=8)
        config = Config()
        self._pool = WorkerPools(config.threads, config.threads)
        opened: list[PortServer] = []
        try:
            for interface, target, wanted in (
                ("api", self.upstream, port),
                ("authProxy", self.proxy_upstream, proxy_port),
            ):
                # the same Host check as the simulator's ports: a DNS-rebinding page reaches nothing through it
                app = HostCheck(Forwarder(interface, target, self._http, self.writer), host, tuple)
                opened.append(PortServer(app, host, wanted, config, self._pool, None, interface))
        except OSError:
            for server in opened:
                server.stop_serving(0)
                server.close_connections()
            self._pool.shutdown(timeout=0)
            raise
        self._main, self._proxy = opened
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        return f"http://{self._main.host}:{self._main.port}"

    @property
    def proxy_url(self) -> str:
        return f"http://{self._proxy.host}:{self._proxy.port}"

    @property
    def count(self) -> int:
        """Exchanges recorded so far."""
        return self.writer.count

    def ready_line(self) -> dict[str, Any]:
        """What ``parity record`` prints first: where to point the clients, where they go, where it writes."""
        return {
            "url": self.url,
            "proxyUrl": self.proxy_url,
            "upstream": self.upstream,
            "proxyUpstream": self.proxy_upstream,
            "out": str(self.out.resolve()),
            "version": __version__,
        }

    def start(self) -> ParityRecorder:
        for server in (self._main, self._proxy):
            thread = threading.Thread(target=server.serve_forever, name=f"parity-{server.port}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def serve_forever(self) -> None:
        """Serve in the foreground until interrupted (the auth proxy's port in a thread)."""
        thread = threading.Thread(target=self._proxy.serve_forever, name="parity-proxy", daemon=True)
        thread.start()
        self._threads.append(thread)
        self._main.serve_forever()

    def stop(self) -> None:
        for server in (self._main, self._proxy):
            server.stop_serving(STOP_GRACE_SECONDS)
        self._pool.shutdown(timeout=STOP_GRACE_SECONDS)
        for server in (self._main, self._proxy):
            server.close_connections()
        for thread in self._threads:
            thread.join(timeout=STOP_GRACE_SECONDS)
        self._http.clear()

    def __enter__(self) -> ParityRecorder:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
