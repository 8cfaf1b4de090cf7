"""The HTTP transport: waitress serving a WSGI app on one port, with the simulator's limits.

Waitress reads requests on one I/O thread (select/poll) and hands only complete requests to a
bounded pool of worker threads, so a client that sends half a request, or keeps an idle
connection open, costs a socket and a buffer, never a worker. On top of waitress this adds:

* timeouts that close a connection whose request line and headers are not complete within
  ``header_timeout_seconds`` of their first byte, whose body is not complete within
  ``read_timeout_seconds`` of the headers, or that sits idle (kept alive, no request) for
  ``read_timeout_seconds``; checked several times per timeout, so they hold to a fraction of it;
* a bound of ``max_connections`` open connections per port; at the bound, a new connection is
  admitted by closing the oldest idle kept-alive one (a connection that finished a request and
  sent nothing since), as nginx does, so a pool of idle clients never locks a new one out; when
  every connection is receiving or being answered, further ones wait in the listen backlog until
  a slot frees (the timeouts above free them);
* refusals in the one error shape: a body over ``max_body_bytes`` (declared or chunked) is
  answered by the application itself, which sees an over-limit Content-Length and renders
  its 413 (journal and CORS included), and waitress's own refusals (malformed request, headers
  too large) are JSON ``{code, message, details, turnkeyErrorCode}`` too;
* transport faults on chosen requests (simulator/faults.py decides which): a reset, a connection
  held unanswered, a request handed to a worker late, an answer dropped, held or sent in pieces,
  all carried out on the I/O thread (``PortServer.add_task``, ``Channel``, ``FaultTask``), so none
  holds a worker beyond the application's own time (ARCHITECTURE.md, "Faults on the wire").
"""

from __future__ import annotations

import contextlib
import heapq
import io
import itertools
import json
import logging
import math
import os
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from waitress import wasyncore  # type: ignore[import-untyped]
from waitress.adjustments import Adjustments  # type: ignore[import-untyped]
from waitress.channel import HTTPChannel  # type: ignore[import-untyped]
from waitress.parser import HTTPRequestParser  # type: ignore[import-untyped]
from waitress.server import TcpWSGIServer  # type: ignore[import-untyped]
from waitress.task import ErrorTask, ThreadedTaskDispatcher, WSGITask  # type: ignore[import-untyped]
from waitress.utilities import RequestEntityTooLarge  # type: ignore[import-untyped]

from simulator.config import Config
from simulator.errors import ApiError, InvalidArgument, Unimplemented
from simulator.faults import Hit
from simulator.http.log_entry import FAULT_KEY

WsgiApp = Callable[..., Any]
DRAIN_LIMIT_BYTES = 64 * 1024 * 1024  # a larger over-cap body is refused at once and the connection closed
log = logging.getLogger("simulator")
# waitress warns on every request that waits for a worker; under a benchmark that is each request
logging.getLogger("waitress.queue").setLevel(logging.ERROR)


def check_transport_settings(config: Config) -> None:
    """Refuse settings the transport cannot honour, before any port is opened."""
    if config.threads < 1 or config.max_connections < 1 or config.max_body_bytes < 0:
        raise ValueError("threads and max_connections must be at least 1, max_body_bytes at least 0")
    if config.header_timeout_seconds <= 0 or config.read_timeout_seconds <= 0:
        raise ValueError("header_timeout_seconds and read_timeout_seconds must be positive")


def worker_pool(config: Config) -> WorkerPools:
    """The bounded pools of threads that run the applications (shared by the ports of one server)."""
    return WorkerPools(config.threads, min(config.threads, cores()))


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


API_PATHS = ("public/", "v1/")  # the main interface's /public/..., the auth proxy's /v1/...


class WorkerPools:
    """Waitress's task dispatcher, as two pools: the API's requests run on one thread per core, the
    rest (the control API, the inspector, the frames) on ``threads`` threads of their own.

    The API's work is CPU under one interpreter lock: with eight workers running it on two cores they
    spend their time handing the lock and the store's lock around (measured at eight connections:
    sign_raw_payload and create_wallet answered fewer requests than at one, each request costing a
    third more CPU). Requests beyond the API's threads wait in its queue, as complete requests, which
    costs nothing. The control API keeps its own threads because some of its calls wait (a webhook
    drain, an OTP long-poll): they never hold up the API, nor the API them."""

    def __init__(self, threads: int, api_threads: int) -> None:
        self.api, self.other = ThreadedTaskDispatcher(), ThreadedTaskDispatcher()
        self.api.set_thread_count(api_threads)
        self.other.set_thread_count(threads)

    def add_task(self, channel: Any) -> None:
        requests = getattr(channel, "requests", None)
        path = str(getattr(requests[0], "path", "")) if requests else ""
        (self.api if path.lstrip("/").startswith(API_PATHS) else self.other).add_task(channel)

    def shutdown(self, cancel_pending: bool = True, timeout: float = 5) -> bool:
        api = self.api.shutdown(cancel_pending, timeout)
        return bool(self.other.shutdown(cancel_pending, timeout) or api)


class DroppedBytes:
    """Stands in for a request's body buffer while an over-cap chunked body is read and dropped."""

    def __init__(self) -> None:
        self.count = 0

    def append(self, data: bytes) -> None:
        self.count += len(data)

    def __len__(self) -> int:
        return 0

    def getfile(self) -> io.BytesIO:
        return io.BytesIO()

    def close(self) -> None:
        pass


class FaultPicker(Protocol):
    """Decides which fault a complete request gets (the Simulator's ``fault_gate``, a ``core.FaultGate``)."""

    @property
    def armed(self) -> bool: ...

    def pick(self, interface: str, path: str, raw: bytes) -> Hit | None: ...


class TimedParser(HTTPRequestParser):  # type: ignore[misc]
    """A request being received, with the times its first byte and the end of its headers arrived.

    A body over the cap is read and dropped (up to DRAIN_LIMIT_BYTES) before the 413: clients
    send the whole body before they read the answer, and closing on unread data makes the
    kernel reset the connection, which throws the 413 away before the client reads it.
    """

    def __init__(self, adj: Any) -> None:
        super().__init__(adj)
        self.started = time.time()  # waitress's channel clock is time.time(): compare like with like
        self.head_done: float | None = None
        self.to_drop = 0  # bytes of an over-cap body of known length still to read
        self.dropping_chunks = False
        self.drained = False  # the over-cap body was read to its end: the connection can go on
        self.fault: Hit | None = None  # the fault this request got (decided once, at dispatch)
        self.fault_decided = False

    def received(self, data: bytes) -> int:
        if self.to_drop:
            dropped = min(len(data), self.to_drop)
            self.to_drop -= dropped
            self.completed = self.drained = self.to_drop == 0
            return dropped
        if self.dropping_chunks:
            return self.drop_chunks(data)
        consumed = int(super().received(data))
        if self.head_done is None and self.headers_finished:
            self.head_done = time.time()
        if isinstance(self.error, RequestEntityTooLarge) and not self.expect_continue:
            self.start_dropping()
        return consumed

    def start_dropping(self) -> None:
        """Keep reading an over-cap body the client is sending (not one awaiting 100 Continue)."""
        if not self.chunked and 0 < self.content_length <= DRAIN_LIMIT_BYTES:
            self.to_drop, self.completed = self.content_length, False
        elif self.chunked and self.body_rcv is not None:
            self.drained = bool(self.body_rcv.completed)
            if not self.drained and not self.body_rcv.error:
                self.body_rcv.buf.close()
                self.body_rcv.buf = DroppedBytes()
                self.dropping_chunks, self.completed = True, False

    def drop_chunks(self, data: bytes) -> int:
        receiver = self.body_rcv
        consumed = int(receiver.received(data))
        if receiver.completed or receiver.error or receiver.buf.count > DRAIN_LIMIT_BYTES:
            self.completed, self.dropping_chunks = True, False
            self.drained = bool(receiver.completed and not receiver.error)
        return consumed


class OversizedBodyTask(WSGITask):  # type: ignore[misc]
    """Answers a request whose body is over the cap through the application, without its body.

    The environ claims a Content-Length over the limit (a chunked body has none), so the
    application refuses it in its own error shape; the connection stays open only if the
    body was read and dropped (see TimedParser).
    """

    def get_environment(self) -> dict[str, Any]:
        environ: dict[str, Any] = super().get_environment()
        declared = int(environ.get("CONTENT_LENGTH") or 0)
        environ["CONTENT_LENGTH"] = str(max(declared, self.channel.server.max_body_bytes + 1))
        return environ

    def execute(self) -> None:
        if not self.request.drained:
            self.set_close_on_finish()  # the rest of the body is still on its way: this connection is spent
        super().execute()


class ShapedErrorTask(ErrorTask):  # type: ignore[misc]
    """Waitress's own refusals (malformed request line, headers too large, ...) in the one error shape."""

    def execute(self) -> None:
        error = self.request.error
        api = transport_error(int(error.code), str(error.body))
        body = json.dumps(api.to_body(), separators=(",", ":")).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.append(("Content-Type", "application/json"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


def transport_error(status: int, detail: str) -> ApiError:
    if status == 501:
        return Unimplemented(f"request not supported by the server: {detail}")
    if status < 500:
        api: ApiError = InvalidArgument(f"malformed HTTP request: {detail}")
    else:
        api = ApiError(f"internal server error while reading the request: {detail}")
    api.status = status
    return api


def error_task(channel: Any, request: Any) -> Any:
    if isinstance(request.error, RequestEntityTooLarge):
        return OversizedBodyTask(channel, request)
    return ShapedErrorTask(channel, request)


class Pace:
    """How a faulted answer leaves the channel: held (``next_at`` is infinite while the worker makes
    it), then sent at ``next_at`` whole (a late answer) or in pieces ``interval`` seconds apart (slow: the
    first one interval after the answer is made, the last ``seconds`` after it)."""

    def __init__(self, hit: Hit) -> None:
        self.hit = hit
        self.next_at = math.inf
        self.ready = False  # the worker has written the whole answer
        self.piece: int | None = None  # bytes per piece, once the answer's size is known
        self.interval = 0.0

    def answer_written(self, size: int, now: float) -> float:
        """The worker is done; returns when the first bytes may go."""
        self.ready = True
        if self.hit.kind == "slow":
            # a piece every seconds/pieces, the first after one interval: the last arrives at `seconds`, as
            # documented (sending the first at once made it arrive one interval early)
            pieces = max(1, min(self.hit.pieces, size))
            self.piece = max(1, math.ceil(size / pieces))
            self.interval = self.hit.delay_s / pieces
            self.next_at = now + self.interval
        else:  # latency after the work: the whole answer, late
            self.next_at = now + self.hit.delay_s
        return self.next_at


class FaultTask(WSGITask):  # type: ignore[misc]
    """Runs the application for a request, carrying out the fault it got around the answer:
    ``lostAnswer`` runs it and drops every byte, then closes; a late or slow answer is written
    whole into the channel, which holds or paces it on the I/O thread, so the worker is free at once."""

    def get_environment(self) -> dict[str, Any]:
        environ: dict[str, Any] = super().get_environment()
        if self.request.fault is not None:
            environ[FAULT_KEY] = self.request.fault
        return environ

    def execute(self) -> None:
        hit: Hit | None = self.request.fault
        if hit is not None and (hit.kind == "slow" or (hit.kind == "latency" and hit.when == "after")):
            self.channel.pace = Pace(hit)
        try:
            super().execute()
        except BaseException:
            self.channel.pace = None  # waitress answers the failure itself: let that answer out, unpaced
            raise

    def finish(self) -> None:
        super().finish()
        hit: Hit | None = self.request.fault
        if hit is not None and hit.kind == "lostAnswer":
            self.close_on_finish = True  # nothing was sent: close, and the client sees no answer
        pace: Pace | None = self.channel.pace
        if pace is not None and not pace.ready:
            with self.channel.outbuf_lock:
                due = pace.answer_written(self.channel.total_outbufs_len, time.time())
            self.channel.server.wake_at(due)

    def write(self, data: bytes) -> None:
        hit: Hit | None = self.request.fault
        if hit is not None and hit.kind == "lostAnswer":
            self.wrote_header = True  # the answer is made and dropped: the work is done, nothing is sent
            self.content_bytes_written += len(data)
            return
        super().write(data)


class Channel(HTTPChannel):  # type: ignore[misc]
    """One client connection, which knows when it has kept the server waiting too long, and carries
    out the transport faults (simulator/faults.py) its requests get."""

    parser_class = TimedParser
    task_class = FaultTask
    error_task_class = staticmethod(error_task)
    pace: Pace | None = None  # a faulted answer being held or paced
    held_until: float | None = None  # a timeout fault: the connection is closed then, unanswered
    delayed = False  # a latency fault before the work: the request waits for its timer, not a worker

    def readable(self) -> bool:
        if self.held_until is not None:
            return True  # a held connection: read, so that the client giving up (EOF) is seen
        return bool(super().readable())

    def writable(self) -> bool:
        pace = self.pace
        if pace is not None and not self.will_close and time.time() < pace.next_at:
            return False
        if self.requests and not self.will_close and not self.close_when_flushed and self._worker_writing():
            return False
        return bool(super().writable())

    def _worker_writing(self) -> bool:
        """Whether the worker holds the answer's buffers (in ``write_soon``, which sends what it writes).

        Polled for writing meanwhile, the socket is always ready and ``handle_write`` cannot take the buffers,
        so the loop spun: 25-55 turns a request at one connection. Worse, each turn took the interpreter back
        from the worker whose ``send`` had just returned, which then waited for it up to the switch interval
        (5 ms), the buffers still held. The worker wakes the loop itself when it leaves bytes unsent
        (``write_soon``) and when its task ends (``service``)."""
        if self.outbuf_lock.acquire(False):
            self.outbuf_lock.release()
            return False
        return True

    def _flush_some(self, do_close: bool = True) -> bool:
        pace = self.pace
        if pace is None:
            return bool(super()._flush_some(do_close=do_close))
        now = time.time()
        if now < pace.next_at:
            return False
        if pace.piece is None:
            sent = bool(super()._flush_some(do_close=do_close))
        else:
            sent = self._send_piece(pace.piece, do_close)
            pace.next_at = now + pace.interval
            if self.total_outbufs_len:
                self.server.wake_at(pace.next_at)
        if pace.ready and not self.total_outbufs_len:
            self.pace = None
        return sent

    def _send_piece(self, size: int, do_close: bool) -> bool:
        """Send at most ``size`` bytes of the answer (a slow fault's one piece)."""
        while len(self.outbufs) > 1 and not self.outbufs[0].__len__():
            self.outbufs.pop(0).close()
        outbuf = self.outbufs[0]
        chunk = outbuf.get(size)[:size]  # a small buffer hands back all it holds, whatever is asked
        if not chunk:
            return False
        sent = self.send(chunk, do_close=do_close)
        if sent:
            outbuf.skip(sent, True)
            self.total_outbufs_len -= sent
            self.last_activity = time.time()
        return bool(sent)

    def reset(self) -> None:
        """Close with a TCP reset (SO_LINGER 0): the client's read fails with ECONNRESET."""
        with contextlib.suppress(OSError):  # already closed by the client: nothing to reset
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.will_close = True

    served = False  # a request was read whole: the connection is a kept-alive one between requests

    def received(self, data: bytes) -> bool:
        result = bool(super().received(data))
        if self.requests:
            self.served = True
        return result

    def idle(self) -> bool:
        """Kept alive after an answer, with nothing received or being answered since."""
        return (
            bool(self.served and self.request is None and not self.requests and not self.total_outbufs_len)
            and not self.will_close
        )

    def overdue(self, now: float, header_timeout: float, read_timeout: float) -> bool:
        if self.held_until is not None:  # a timeout fault: held unanswered until the client leaves or its bound
            return not self.connected or now >= self.held_until
        if self.requests or self.pace is not None:
            return False  # the application is answering: its time is not the client's
        request = self.request
        if request is None:
            return bool(now - self.last_activity > read_timeout)  # idle between requests
        if request.head_done is None:
            return bool(now - request.started > header_timeout)
        return bool(now - request.head_done > read_timeout)


class PortServer(TcpWSGIServer):  # type: ignore[misc]
    """One listening port: waitress's server with the simulator's timeouts and a clean stop.

    ``serve_forever`` runs the I/O loop on the calling thread until ``stop_serving``, which
    closes the listening socket and lets answers in progress finish; ``close_connections``
    then closes the rest, once the caller's worker pool is shut down.
    """

    channel_class = Channel
    FIXED_ENTRIES = 2  # the listening socket and waitress's wake-up trigger share the connection map

    def __init__(
        self,
        app: WsgiApp,
        host: str,
        port: int,
        config: Config,
        pool: Any,
        faults: FaultPicker | None = None,
        interface: str = "api",
    ) -> None:
        self.faults, self.interface = faults, interface
        self._timers: list[tuple[float, int, Callable[[], None] | None]] = []
        self._timers_lock = threading.Lock()
        self._timer_seq = itertools.count()
        adj = Adjustments(
            host=host,
            port=port,
            threads=config.threads,
            connection_limit=config.max_connections + self.FIXED_ENTRIES,
            max_request_body_size=config.max_body_bytes + 1,  # waitress refuses at >=, the cap is inclusive
            asyncore_use_poll=True,  # select() cannot watch file descriptors above 1023
            clear_untrusted_proxy_headers=False,  # a simulator shows the application what the client sent
            ident="wallet-simulator",
        )
        super().__init__(app, map={}, dispatcher=pool, adj=adj)
        self.max_body_bytes = config.max_body_bytes
        self.header_timeout = config.header_timeout_seconds
        self.read_timeout = config.read_timeout_seconds
        self.check_interval = min(1.0, max(0.02, min(self.header_timeout, self.read_timeout) / 5))
        adj.cleanup_interval = self.check_interval  # waitress only adds it to time.time(): a float is fine
        self._stopping = threading.Event()
        self._loop_exited = threading.Event()
        self._loop_exited.set()

    @property
    def port(self) -> int:
        return int(self.effective_port)

    @property
    def host(self) -> str:
        return str(self.effective_host)

    def add_task(self, channel: Any) -> None:
        """Hand a complete request to a worker, unless a fault says otherwise (decided once per request):
        ``reset`` closes the connection and ``timeout`` holds it, neither runs the request; ``latency``
        before the work hands it over later, from the I/O loop, holding no worker meanwhile."""
        request = channel.requests[0]
        gate = self.faults
        if gate is not None and gate.armed and not request.fault_decided and not request.error:
            request.fault_decided = True
            body = request.get_body_stream()
            at = body.tell()
            raw = body.read()
            body.seek(at)  # the application reads it again from where it starts
            hit = request.fault = gate.pick(self.interface, str(request.path), raw)
            if hit is not None and self._faulted(channel, hit):
                return
        self.task_dispatcher.add_task(channel)

    def _faulted(self, channel: Any, hit: Hit) -> bool:
        """Carry out a fault that stops the request reaching a worker now; True when it did."""
        if hit.kind == "reset":
            channel.reset()
        elif hit.kind == "timeout":
            channel.held_until = time.time() + hit.delay_s
        elif hit.kind == "latency" and hit.when == "before":
            channel.delayed = True
            self.later(time.time() + hit.delay_s, lambda: self._dispatch_late(channel))
        else:
            return False
        self.pull_trigger()
        return True

    def _dispatch_late(self, channel: Any) -> None:
        channel.delayed = False
        if not self._stopping.is_set():
            self.task_dispatcher.add_task(channel)

    def wake_at(self, when: float) -> None:
        """Have the I/O loop look at the connections again at ``when`` (a held answer's time)."""
        self.later(when, None)

    def later(self, when: float, then: Callable[[], None] | None) -> None:
        with self._timers_lock:
            heapq.heappush(self._timers, (when, next(self._timer_seq), then))
        self.pull_trigger()

    def _run_due(self) -> float:
        """Run the callbacks whose time has come; returns how long the loop may sleep."""
        now = time.time()
        due = []
        with self._timers_lock:
            while self._timers and self._timers[0][0] <= now:
                due.append(heapq.heappop(self._timers)[2])
            wait = self._timers[0][0] - now if self._timers else self.check_interval
        for then in due:
            if then is not None:
                then()
        return max(0.0, min(self.check_interval, wait))

    def readable(self) -> bool:
        """Also at the connection bound while an idle kept-alive connection can make room."""
        return bool(super().readable()) or (self.accepting and self.oldest_idle() is not None)

    def handle_accept(self) -> None:
        if len(self._map) >= self.adj.connection_limit:
            idle = self.oldest_idle()
            if idle is None:
                return  # every connection is busy: the newcomer waits in the backlog
            idle.handle_close()
        super().handle_accept()

    def oldest_idle(self) -> Channel | None:
        if len(self._map) < self.adj.connection_limit:
            return None
        idle = [c for c in list(self.active_channels.values()) if c.idle()]
        return min(idle, key=lambda c: c.last_activity, default=None)

    def maintenance(self, now: float) -> None:
        for channel in list(self.active_channels.values()):
            if channel.overdue(now, self.header_timeout, self.read_timeout):
                channel.will_close = True

    def serve_forever(self) -> None:
        self._loop_exited.clear()
        try:
            while not self._stopping.is_set():
                wasyncore.loop(timeout=self._run_due(), map=self._map, use_poll=True, count=1)
        finally:
            self._loop_exited.set()

    def stop_serving(self, grace: float) -> None:
        """Stop accepting and let the answers under way reach their clients (up to ``grace`` s).

        The connections stay registered until ``close_connections``: a worker finishing an answer
        wakes the loop through them, so the worker pool must be shut down in between.
        """
        if self._stopping.is_set():
            return
        self._stopping.set()
        self.pull_trigger()
        if not self._loop_exited.wait(grace + self.check_interval + 1):
            log.warning("port %d: the I/O loop did not stop; closing its connections anyway", self.port)
        self.accepting = False
        wasyncore.dispatcher.close(self)  # the listening socket only: waitress's close() also shuts the trigger
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and self._flush_or_close_each():
            wasyncore.loop(timeout=0.02, map=self._map, use_poll=True, count=1)

    def _flush_or_close_each(self) -> bool:
        """Mark idle and half-received connections to close; True while some answer is still under way."""
        busy = False
        for channel in list(self.active_channels.values()):
            if channel.held_until is not None or channel.delayed:
                channel.will_close = True  # a request a fault keeps waiting is not an answer under way
            elif channel.requests or channel.total_outbufs_len:
                busy = True
            else:
                channel.will_close = True
        return busy

    def close_connections(self) -> None:
        wasyncore.close_all(self._map, ignore_all=True)
