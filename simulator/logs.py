"""Request logs: one line per request with its operation, status, duration and, on failure, the
error code and message; colour only on a terminal; ``--log-format json`` for machines.

``install(app)`` hooks a Flask app (the main interface with its control API, and the auth
proxy); ``configure(fmt, stream)`` sets up the output of ``wallet-simulator serve``. Werkzeug's
own request lines are silenced, since these replace them.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from datetime import datetime, timezone
from typing import IO, Any

from flask import Flask, Response, request

log = logging.getLogger("simulator.requests")
FORMATS = ("text", "json")
COLOURS = {2: "\x1b[32m", 3: "\x1b[36m", 4: "\x1b[33m", 5: "\x1b[31m"}
RESET = "\x1b[0m"


STARTED = "simulator.log_started"  # the environ key holding the request's start (perf_counter)


def install(app: Flask) -> None:
    """Log every request ``app`` answers, once."""
    app.wsgi_app = StartTime(app.wsgi_app)  # type: ignore[method-assign]
    app.after_request(_answered)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)


class StartTime:
    """Notes when a request reached the app, in its environ: one assignment per request, where a
    Flask ``before_request`` hook costs a hook call (and Flask's coroutine check) on every request."""

    def __init__(self, wsgi_app: Any) -> None:
        self.wsgi_app = wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        environ[STARTED] = time.perf_counter()
        return self.wsgi_app(environ, start_response)


def _answered(response: Response) -> Response:
    if log.isEnabledFor(logging.INFO):
        fields = request_fields(response)
        log.info(text_of(fields), extra={"request": fields})
    return response


def request_fields(response: Response) -> dict[str, Any]:
    started = request.environ.get(STARTED)
    fields: dict[str, Any] = {
        "method": request.method,
        "path": request.path,
        "operation": operation(request.path),
        "status": response.status_code,
        "durationMs": round((time.perf_counter() - started) * 1000, 2) if started else None,
    }
    if response.status_code >= 400 and response.is_json:
        body = response.get_json(silent=True)
        if isinstance(body, dict):
            fields["errorCode"] = body.get("turnkeyErrorCode") or body.get("code")
            fields["error"] = body.get("message")
    return fields


def operation(path: str) -> str:
    """``submit/create_wallet`` for the public API, the path (``/_simulator/reset``, ``/v1/otp_init``) otherwise."""
    parts = path.strip("/").split("/")
    if len(parts) == 4 and parts[:2] == ["public", "v1"]:
        return f"{parts[2]}/{parts[3]}"
    return path


def text_of(fields: dict[str, Any]) -> str:
    line = f"{fields['method']} {fields['operation']} {fields['status']} {fields['durationMs']} ms"
    if "errorCode" in fields or "error" in fields:
        line += f" {fields.get('errorCode')}: {fields.get('error')}"
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


def configure(fmt: str = "text", stream: IO[str] | None = None, level: int = logging.INFO) -> logging.Handler:
    """Send the simulator's logs to ``stream`` (stderr) as text or JSON lines; returns the handler."""
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    target = stream or sys.stderr
    handler = logging.StreamHandler(target)
    is_terminal = bool(getattr(target, "isatty", lambda: False)())
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter(colour=is_terminal))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "simulator_handler", False)]:
        root.removeHandler(old)
    handler.simulator_handler = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    return handler
