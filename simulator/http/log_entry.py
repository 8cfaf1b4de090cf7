"""One request's entry in the request log, as every reader of it sees it: the log line, the journal, the
recorder and the inspector (``RequestLogEntry``; ``RequestRecord`` in 0.3, still an alias that warns).

The transport begins an entry when a request reaches the app (``begin``, from the WSGI environ):
its path is parsed here, once, into the operation's kind and name, and its start is taken here,
once. The pipeline fills in what it parsed and answered (the body, the status, the answer), so no
reader parses the body or the answer a second time; the transport ends it (``finish``), which
fixes the duration every reader reports. A request made in process (the Python API, replay) has an
entry too, made by the pipeline, untimed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from simulator.wire import Json

ENVIRON_KEY = "simulator.request"  # where the transport keeps the request's log entry
FAULT_KEY = "simulator.fault"  # where the transport puts the fault a request got (simulator/faults.py's Hit)
PUBLIC_KINDS = ("submit", "query")
UNREAD: Any = object()  # the body before the pipeline has read it


@dataclass(slots=True, eq=False)
class RequestLogEntry:
    method: str
    path: str
    kind: str | None  # submit, query, proxy, control (a change made through the control API), or None
    op: str  # create_wallet; otp_init; reset; "" when the request is not an operation
    started: float | None = None  # time.perf_counter() when the transport received it
    size: int = 0  # the body's length in bytes, once read
    body: Any = UNREAD  # the parsed JSON body (None: not JSON), once the pipeline has read it
    status: int | None = None
    answer: Json | None = None  # the JSON the request was answered with, error bodies included
    duration_ms: float | None = None
    fault: Any = None  # the transport fault the request got (simulator/faults.py's Hit), if any
    warnings: list[str] | None = (
        None  # what it was warned about without being refused (handler_support/request_warnings.py)
    )

    @classmethod
    def begin(cls, method: str, path: str, proxy: bool = False, fault: Any = None) -> RequestLogEntry:
        kind, op = classify(method, path, proxy)
        return cls(method, path, kind, op, time.perf_counter(), fault=fault)

    @classmethod
    def of_environ(cls, environ: dict[str, Any], proxy: bool = False) -> RequestLogEntry:
        """The environ's entry, begun now if the transport has not begun one."""
        found: RequestLogEntry | None = environ.get(ENVIRON_KEY)
        if found is None:
            found = environ[ENVIRON_KEY] = cls.begin(environ.get("REQUEST_METHOD", ""), environ.get("PATH_INFO", ""))
        return found

    @property
    def operation(self) -> str:
        """``submit/create_wallet`` for the public API, the path (``/_simulator/reset``, ``/v1/otp_init``) otherwise."""
        return f"{self.kind}/{self.op}" if self.kind in PUBLIC_KINDS else self.path

    def answered(self, status: int, answer: Json, body: Any = UNREAD) -> None:
        self.status, self.answer = status, answer
        if body is not UNREAD:
            self.body = body

    def finish(self, status: int) -> float | None:
        """Fix the status and the duration (milliseconds, two decimals), once."""
        self.status = status
        if self.duration_ms is None and self.started is not None:
            self.duration_ms = round((time.perf_counter() - self.started) * 1000, 2)
        return self.duration_ms

    @property
    def error(self) -> tuple[Any, Any] | None:
        """(code, message) of a refusal's answer, None for a success or an answer that is not the error shape."""
        if self.status is None or self.status < 400 or not isinstance(self.answer, dict):
            return None
        return self.answer.get("turnkeyErrorCode") or self.answer.get("code"), self.answer.get("message")


def classify(method: str, path: str, proxy: bool = False) -> tuple[str | None, str]:
    """(kind, op) of a path: the public API's operations, the auth proxy's endpoints, and control
    calls that change things; (None, "") for pages, assets and the control API's reads."""
    parts = path.strip("/").split("/")
    if len(parts) == 4 and parts[0] == "public" and parts[1] == "v1" and parts[2] in PUBLIC_KINDS:
        return parts[2], parts[3]
    if proxy and len(parts) == 2 and parts[0] == "v1":
        return "proxy", parts[1]
    if parts[0] == "_simulator" and method not in ("GET", "HEAD", "OPTIONS") and parts[1:2] != ["ui"]:
        return "control", "/".join(parts[1:])
    return None, ""


def __getattr__(name: str) -> object:
    if name == "RequestRecord":  # its name in 0.3: "record" is a stored row of the state (ARCHITECTURE.md)
        import warnings

        warnings.warn(
            "simulator.http.log_entry.RequestRecord is now RequestLogEntry; the old name goes in a later release",
            DeprecationWarning,
            stacklevel=2,
        )
        return RequestLogEntry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
