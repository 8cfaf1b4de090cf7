"""Request logs: one line per request with its operation, status, duration and, on failure, the
error code and message; colour only on a terminal; ``--log-format json`` for machines.

``install(app)`` hooks a Flask app (the main interface with its control API, and the auth
proxy); ``configure(fmt, stream)`` sets up the output of ``wallet-simulator serve``. Werkzeug's
own request lines are silenced, since these replace them.
"""

from __future__ import annotations

import atexit
import json
import logging
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from typing import IO, Any

from flask import Flask, Response

from simulator.http import log_writer
from simulator.http.flask_context import current_flask, current_request
from simulator.http.log_entry import ENVIRON_KEY, FAULT_KEY, RequestLogEntry
from simulator.http.status_line import with_usual_reason

log = logging.getLogger("simulator.requests")
FORMATS = ("text", "json")
COLOURS = {2: "\x1b[32m", 3: "\x1b[36m", 4: "\x1b[33m", 5: "\x1b[31m"}
RESET = "\x1b[0m"


_writer: log_writer.LineWriter | None = None  # serve's background writer (configure(background=True))
READERS = "simulator.request_readers"  # app.extensions: who else reads a finished request (the inspector)


def install(app: Flask, proxy: bool = False, merge_slashes: bool = False) -> None:
    """Begin a log entry for every request ``app`` answers, and log it, once, when it is answered."""
    app.wsgi_app = RequestStart(app.wsgi_app, proxy, merge_slashes)  # type: ignore[method-assign]
    app.extensions.setdefault(READERS, [])
    app.after_request(_answered)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)


def add_reader(app: Flask, reader: Callable[[RequestLogEntry, Response], None]) -> None:
    """Have ``reader`` see each finished request's record (after ``install``)."""
    app.extensions.setdefault(READERS, []).append(reader)


class RequestStart:
    """The one WSGI layer an app puts on (the Host check and the data directory's gate are the server's): it
    merges ``//`` in the path (``merge_slashes``: the main interface, whose JS clients build ``base +
    "/public/..."``, a base ending in ``/`` otherwise meeting werkzeug's redirect, which ``redirect: "error"``
    refuses), then begins the request's log entry (simulator/http/log_entry.py) in its environ, the path parsed
    and the clock read once, where a Flask ``before_request`` hook would cost a hook call (and Flask's coroutine
    check) on every request; and it gives the status line its usual-case reason (simulator/http/status_line.py)."""

    def __init__(self, wsgi_app: Any, proxy: bool, merge_slashes: bool = False) -> None:
        self.wsgi_app, self.proxy, self.merge_slashes = wsgi_app, proxy, merge_slashes

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        path = environ.get("PATH_INFO", "")
        if self.merge_slashes and "//" in path:
            while "//" in path:
                path = path.replace("//", "/")
            environ["PATH_INFO"] = path
        environ[ENVIRON_KEY] = RequestLogEntry.begin(
            environ.get("REQUEST_METHOD", ""), path, self.proxy, environ.get(FAULT_KEY)
        )
        return self.wsgi_app(environ, with_usual_reason(start_response))


def entry_of_request() -> RequestLogEntry:
    """The current request's record (begun now, untimed by the transport, if no app began one)."""
    return RequestLogEntry.of_environ(current_request().environ)


def _answered(response: Response) -> Response:
    record = entry_of_request()
    record.finish(response.status_code)
    if record.answer is None and response.status_code >= 400 and response.is_json:
        parsed = response.get_json(silent=True)  # an answer no pipeline stage or error renderer recorded
        record.answer = parsed if isinstance(parsed, dict) else None
    for reader in current_flask().extensions[READERS]:
        reader(record, response)
    level = level_of(record)
    if log.isEnabledFor(level):
        fields = request_fields(record)
        if _writer is not None:  # serve: the line is queued, made and written on the writer's thread
            _writer.request(text_of(fields), fields, level)
        else:
            log.log(level, text_of(fields), extra={"request": fields})
    return response


def level_of(record: RequestLogEntry) -> int:
    """DEBUG for the control API's reads (a test polling the outbox or the journal, the inspector's page
    refreshing), INFO for the rest: a suite waiting for a code would otherwise print a line per poll
    between the requests that matter. ``logging.getLogger("simulator.requests").setLevel(DEBUG)`` shows them."""
    if record.kind is None and record.path.startswith("/_simulator/"):
        return logging.DEBUG
    return logging.INFO


def request_fields(record: RequestLogEntry) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "method": record.method,
        "path": record.path,
        "operation": record.operation,
        "status": record.status,
        "durationMs": record.duration_ms,
    }
    if record.error is not None:
        fields["errorCode"], fields["error"] = record.error
    if record.fault is not None:
        fields["fault"] = record.fault.describe()
    return fields


def text_of(fields: dict[str, Any]) -> str:
    line = f"{fields['method']} {fields['operation']} {fields['status']} {fields['durationMs']} ms"
    if "errorCode" in fields or "error" in fields:
        line += f" {fields.get('errorCode')}: {fields.get('error')}"
    if "fault" in fields:
        line += f" [fault {fields['fault']['name']}: {fields['fault']['kind']}]"
    return line


class TextFormatter(logging.Formatter):
    """``time level logger message``; the status coloured only when ``colour`` (a terminal)."""

    def __init__(self, colour: bool) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")
        self.colour = colour

    def formatMessage(self, record: logging.LogRecord) -> str:
        fields = getattr(record, "request", None)
        if self.colour and fields:
            status = str(fields["status"])
            record.message = record.message.replace(
                f" {status} ", f" {COLOURS.get(fields['status'] // 100, '')}{status}{RESET} ", 1
            )
        return super().formatMessage(record)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and the request's fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, "request", None) or {})
        if hasattr(record, "webhook"):
            entry["webhook"] = record.webhook
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure(
    fmt: str = "text", stream: IO[str] | None = None, level: int = logging.INFO, background: bool = False
) -> logging.Handler:
    """Send the simulator's logs to ``stream`` (stderr) as text or JSON lines; returns the handler.

    ``background`` (``serve``): a request only queues its line; a thread makes, formats and writes
    it (simulator/http/log_writer.py), so the log is off the response path (drained at exit)."""
    global _writer
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    target = stream or sys.stderr
    stream_handler = logging.StreamHandler(target)
    is_terminal = bool(getattr(target, "isatty", lambda: False)())
    stream_handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter(colour=is_terminal))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "simulator_handler", False)]:
        root.removeHandler(old)
        if isinstance(old, log_writer.Handoff):
            old.writer.stop()
    handler: logging.Handler = stream_handler
    _writer = None
    if background:
        _writer = log_writer.LineWriter(stream_handler)
        atexit.register(_writer.stop)
        handler = log_writer.Handoff(_writer)
    handler.simulator_handler = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    return handler
