"""The WSGI wrapper that makes a state-changing request's 2xx answer wait for its record on disk.

A request changes state when it is not a read (GET, HEAD, OPTIONS) nor a query of the main interface
(``/public/v1/query/``); when its answer is 2xx the state is written before the answer is handed back
to the server (waitress sends nothing of it before that). A write that fails turns the answer into 500.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from simulator.datadir.directory import Writer

log = logging.getLogger("simulator")
READS = ("GET", "HEAD", "OPTIONS")
QUERY_PREFIX = "/public/v1/query/"


class WriteGate:
    def __init__(self, app: Callable[..., Iterable[bytes]], writer: Writer) -> None:
        self.app = app
        self.writer = writer

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD", "GET") in READS or path.startswith(QUERY_PREFIX):
            return self.app(environ, start_response)
        held: list[Any] = []

        def hold(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], Any]:
            held[:] = [status, headers, exc_info]
            return lambda _data: None  # the apps served here never write through it

        self.writer.entered()  # running: a request finishing beside it waits for it, and one record covers both
        try:
            body = self.app(environ, hold)
            chunks = list(body)  # the answer whole, so that the change behind it is written first
            close = getattr(body, "close", None)
            if close is not None:
                close()
        finally:
            self.writer.left()
        status, headers, exc_info = held
        if status.startswith("2"):
            try:
                self.writer.changed()
            except OSError as exc:
                log.error("the data directory could not be written: %s", exc)
                message = f"the change was made but could not be written to the data directory: {exc.strerror}"
                answer = json.dumps({"code": 13, "message": message, "details": []}).encode()
                start_response(
                    "500 Internal Server Error",
                    [("Content-Type", "application/json"), ("Content-Length", str(len(answer)))],
                )
                return [answer]
        start_response(status, headers, exc_info) if exc_info else start_response(status, headers)
        return chunks
