"""A second simulator made to differ on purpose where no setting can: a loopback proxy in front of it that
edits chosen answers (a changed error message, an extra or a missing field) and passes the rest unchanged."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import requests
from support import serving

Edit = Callable[[Any], Any]


@contextmanager
def tampering(upstream: Any, edits: dict[str, Edit]) -> Iterator[Any]:
    """An object with ``url`` and ``proxy_url`` forwarding to ``upstream``; the answer of a request whose path
    ends with ``/<operation>`` goes through ``edits[operation]``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            sent = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
            reply = requests.post(upstream.url + self.path, data=body, headers=sent, timeout=30)
            data = reply.content
            edit = edits.get(self.path.rsplit("/", 1)[-1])
            if edit is not None:
                data = json.dumps(edit(reply.json())).encode()
            self.send_response(reply.status_code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    with serving(ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as url:
        yield type("Tampered", (), {"url": url, "proxy_url": upstream.proxy_url})()
