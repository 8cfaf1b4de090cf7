"""The optional HTTP transport: granian (a Rust HTTP server with a WSGI interface) on one port, in this process.

``serve --server granian`` (``Config.server``) runs both ports on it, sharing the one Simulator as the
waitress transport (simulator/server/wsgi.py) does. Granian's own servers cannot: on a GIL build its default
(``MPServer``) runs the application in worker processes, and its thread server (``MTServer``) refuses to
start unless the interpreter is a free-threaded one; both also take over the process's signals. So each
port here drives granian's worker (``granian._granian.WSGIWorker``) itself, as ``MTServer`` does for one
thread: its Rust runtime accepts and parses on threads of its own, runs the application on
``Config.threads`` Python threads of its own, and calls back once it has stopped. It starts from any
thread, takes no signal, and listens on a socket bound here (no SO_REUSEPORT: a second simulator on the
same port fails to start, as with waitress). ARCHITECTURE.md, "Transports", says what it carries and why.

What granian carries of the simulator's limits: ``max_body_bytes`` (``Admission``: a declared body over
it is read and dropped, up to DRAIN_LIMIT_BYTES, before the application answers its 413; a chunked one
is read up to the cap), ``header_timeout_seconds`` (hyper's header read timeout, which also closes a
kept-alive connection idle that long), ``max_connections`` (granian's backpressure: further connections
wait in the listen backlog) and headers over 256 KiB (hyper's read buffer; a head somewhat larger may
still be read, one much larger never). What it does not (NOT_CARRIED, logged at start): a body read
timeout, admitting a newcomer at the bound by closing an idle connection, the JSON shape of the
server's own refusals, and the faults that act on the connection (refused by simulator/faults.py).
"""

from __future__ import annotations

import importlib
import io
import logging
import os
import socket
import sys
import threading
from typing import Any

from simulator.config import Config
from simulator.http.log_entry import FAULT_KEY
from simulator.server.wsgi import DRAIN_LIMIT_BYTES, FaultPicker, WsgiApp

log = logging.getLogger("simulator")
# granian's Rust side logs through Python's logging as _granian.*: a worker's start and stop, twice per serve
logging.getLogger("_granian").setLevel(logging.WARNING)
INSTALL_HINT = "pip install 'wallet-simulator[granian]'"
HEADER_LIMIT_BYTES = 256 * 1024  # waitress's max_request_header_size, which the waitress transport keeps
BACKLOG = 1024  # waitress's listen backlog
READ_BYTES = 64 * 1024  # a body is read in pieces of this
IDLE_THREAD_SECONDS = 30  # an application thread idle this long ends (granian's default; 5 to 600)
NOT_CARRIED = (
    "--server granian does not carry: the body read timeout (--read-timeout: a client sending its body slowly "
    "holds an application thread until it finishes or leaves; a kept-alive connection idle for --header-timeout "
    "is closed), admitting a new connection at --max-connections by closing an idle one, the JSON error shape of "
    "the server's own refusals (a malformed request, headers too large: hyper's bare 400 or 431), and the faults "
    "that act on the connection (latency, lostAnswer, reset, timeout, slow: refused; unavailable works); "
    "--server waitress (the default) carries them all"
)


class GranianMissing(ImportError):
    """``--server granian`` without the granian package."""


def granian_module() -> Any:
    """granian's native module (its API is pinned by the ``granian`` extra), or GranianMissing naming the install."""
    try:
        return importlib.import_module("granian._granian")
    except ImportError as exc:
        raise GranianMissing(
            f"--server granian needs the granian package, which is not installed: {INSTALL_HINT}"
        ) from exc


def warn_what_is_not_carried() -> None:
    log.warning(NOT_CARRIED)


class Admission:
    """WSGI middleware: what waitress's parser does before a request reaches a worker, done in granian's
    application thread, which reads the body from the connection as the application asks for it.

    A declared body over the cap is read and dropped (up to DRAIN_LIMIT_BYTES, not one awaiting
    100 Continue) and the application answers its 413 with an empty body: clients send the whole body
    before reading the answer, and a connection closed on unread data is reset, which throws the 413
    away. A chunked body is read up to the cap, then given to the application with its length (over
    the cap: the rest dropped, and a length that makes the application answer 413). While a fault is
    active, the body is read first and the Simulator's FaultGate asked which fault the request gets.
    """

    def __init__(self, app: WsgiApp, max_body_bytes: int, faults: FaultPicker | None, interface: str) -> None:
        self.app, self.cap, self.faults, self.interface = app, max_body_bytes, faults, interface

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        stream = environ["wsgi.input"]
        declared = environ.get("CONTENT_LENGTH")
        raw: bytes | None = None
        if declared and declared.isdigit():  # hyper refuses an invalid Content-Length itself
            length = int(declared)
            if length > self.cap:
                if length <= DRAIN_LIMIT_BYTES and "100-continue" not in environ.get("HTTP_EXPECT", "").lower():
                    drop(stream, length)
                environ["wsgi.input"] = io.BytesIO()
                return self.app(environ, start_response)  # the application's own 413
        elif "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
            raw = read_capped(stream, self.cap)
            del environ[
                "HTTP_TRANSFER_ENCODING"
            ]  # read whole, as waitress hands it over: werkzeug then reads the length
            environ["CONTENT_LENGTH"] = str(self.cap + 1 if raw is None else len(raw))
            environ["wsgi.input"] = io.BytesIO(raw or b"")
            if raw is None:
                return self.app(environ, start_response)
        gate = self.faults
        if gate is not None and gate.armed:
            if raw is None:
                raw = read_capped(environ["wsgi.input"], self.cap) or b""
                environ["wsgi.input"] = io.BytesIO(raw)
            hit = gate.pick(self.interface, str(environ.get("PATH_INFO", "")), raw)
            if hit is not None:
                environ[FAULT_KEY] = hit  # only the application's kinds can be active (faults.Faults.carried)
        return self.app(environ, start_response)


def drop(stream: Any, length: int) -> None:
    left = length
    while left > 0 and (piece := stream.read(min(READ_BYTES, left))):
        left -= len(piece)


def read_capped(stream: Any, cap: int) -> bytes | None:
    """The body, or None when it is over ``cap`` (the rest read and dropped, up to DRAIN_LIMIT_BYTES)."""
    pieces, size = [], 0
    while piece := stream.read(READ_BYTES):
        size += len(piece)
        if size > cap:
            while size <= DRAIN_LIMIT_BYTES and (piece := stream.read(READ_BYTES)):
                size += len(piece)
            return None
        pieces.append(piece)
    return b"".join(pieces)


def wsgi_runner(app: WsgiApp) -> Any:
    """granian's call of the application for one request (``proto``: its answer; ``scope``: the environ it
    built). As granian.wsgi's wrapper, without copying this process's environment variables into every
    environ, where an ``HTTP_*`` one would pass for a header the client sent."""
    granian_wsgi: Any = importlib.import_module("granian.wsgi")
    Response, ResponseIterWrap = granian_wsgi.Response, granian_wsgi.ResponseIterWrap
    base = {
        "GATEWAY_INTERFACE": "CGI/1.1",
        "SCRIPT_NAME": "",
        "SERVER_SOFTWARE": "wallet-simulator",
        "wsgi.errors": sys.stderr,
        "wsgi.input_terminated": True,
        "wsgi.multiprocess": False,
        "wsgi.multithread": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }

    def run(proto: Any, scope: dict[str, Any]) -> int:
        answer = Response()
        body = app(base | scope, answer)
        if isinstance(body, list):
            proto.response_bytes(answer.status, answer.headers, b"".join(body))
        else:
            proto.response_iter(answer.status, answer.headers, ResponseIterWrap(body))
        return int(answer.status)

    return run


class GranianPort:
    """One listening port served by granian; the interface SimulatorServer uses of simulator.server.wsgi.PortServer.

    The socket is bound and listening from construction (connections wait in its backlog until
    ``serve_forever`` starts granian on it). ``stop_serving`` stops accepting and lets the answers under
    way finish: granian's graceful stop, which also waits for a connection that sent half a request,
    until its header timeout; past ``grace`` this returns and granian finishes on its own threads.
    """

    def __init__(
        self,
        app: WsgiApp,
        host: str,
        port: int,
        config: Config,
        faults: FaultPicker | None = None,
        interface: str = "api",
    ) -> None:
        self._native = granian_module()
        self.app = Admission(app, config.max_body_bytes, faults, interface)
        self.config = config
        family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        self._socket = socket.create_server(address, family=family, backlog=BACKLOG)
        # accepted connections inherit it: without it a one-connection client waits on Nagle and delayed ACKs,
        # 20 ms an answer (granian sets no TCP_NODELAY on a socket it was handed)
        self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.host, self.port = str(self._socket.getsockname()[0]), int(self._socket.getsockname()[1])
        self._signal: Any = None
        self._signalled = False
        self._stopped = threading.Event()
        self._lock = threading.Lock()

    def serve_forever(self) -> None:
        """Serve until ``stop_serving`` (granian's threads answer; this one only waits, and takes Ctrl-C)."""
        with self._lock:
            if self._signal is None and not self._stopped.is_set():
                self._start()
        while not self._stopped.wait(1.0):
            pass

    def _start(self) -> None:
        import asyncio

        native, config = self._native, self.config
        http1 = importlib.import_module("granian.http").HTTP1Settings(
            header_read_timeout=max(1, round(config.header_timeout_seconds * 1000)),
            keep_alive=True,
            max_buffer_size=HEADER_LIMIT_BYTES,
        )
        listener = native.SocketHolder(os.dup(self._socket.fileno()), False, BACKLOG)  # granian closes its copy
        worker = native.WSGIWorker(
            1,  # the worker's id, in granian's log lines
            (None, listener),
            None,  # no IPC: no parent process
            1,  # Rust threads accepting and parsing
            512,  # Rust threads for blocking work (granian's default)
            config.threads,  # Python threads running the application
            IDLE_THREAD_SECONDS,
            config.max_connections,  # backpressure: connections served at once; more wait in the backlog
            "1",  # HTTP/1.1 only, as waitress
            http1,
            None,
            None,  # no static files
            *(False, None, None, None, "tls1.3", None, [], False),  # no TLS
            (None, native.MetricsAggregator(1)),  # no metrics
        )
        futures: Any = importlib.import_module("granian._futures")
        loop = asyncio.new_event_loop()  # granian asks for one; the WSGI worker never runs it
        scheduler = futures._new_cbscheduler(loop, wsgi_runner(self.app), impl_asyncio=False)

        def stopped() -> None:  # granian calls it once it has stopped: no connection, no answer under way
            loop.close()  # first: a stop waiting on _stopped then finds this callback's Python work done
            self._stopped.set()

        self._signal = native.WorkerSignal()
        self._signal.add_cb(stopped)
        worker.serve_mtr(scheduler, loop, self._signal)

    def stop_accepting(self) -> None:
        """Tell granian to stop (it stops accepting at once); ``stop_serving`` waits for it."""
        with self._lock:
            if self._signal is None:
                self._stopped.set()  # never started
            elif not self._signalled:
                # once only: a second set() while granian ran the stop callback on its own thread hung both (seen
                # in CI: the callback waiting in loop.close, the second stop's set() never returning)
                self._signalled = True
                self._signal.set()
            self._socket.close()  # granian's copy closes once it has stopped accepting

    def stop_serving(self, grace: float) -> None:
        self.stop_accepting()
        if not self._stopped.wait(grace + 1):
            log.warning("port %d: granian did not stop within %.0f s; leaving it to finish", self.port, grace)

    def close_connections(self) -> None:
        """Nothing left to close: granian closes its connections as it stops."""
