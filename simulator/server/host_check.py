"""The Host check every port passes through: a request for a name this simulator does not answer is refused.

It guards against DNS rebinding (simulator/local_hosts.py says which names are trusted and why): a page at
``http://attacker.example:8080`` whose name the attacker re-points to 127.0.0.1 sends ``Host:
attacker.example:8080``, and is refused here before any application code runs, so neither the same-origin
test nor CORS (simulator/web/cors.py) ever reads a Host this check has not accepted.

Refused with 403 in the one error shape, naming the host and the switch that allows it. 403 rather than
421 (Misdirected Request): 421 invites a client to retry on another connection, and Vite, webpack-dev-server
and Jupyter all answer 403 for the same check. ``SimulatorServer`` wraps every port's application in it (the
main interface with the control API, the inspector and the frames; the auth proxy); an application served
some other way is wrapped with ``HostCheck(app, host, allowed_hosts)``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from simulator.errors import PermissionDenied
from simulator.local_hosts import host_allowed

log = logging.getLogger("simulator")
SHOWN_CHARACTERS = 200  # of a refused Host in the answer and the log: enough to recognise it, never a flood


class HostCheck:
    """WSGI middleware: pass a request whose Host is trusted to ``app``, refuse every other one (403)."""

    def __init__(self, app: Any, bind_host: str, allowed: Callable[[], Iterable[str]]) -> None:
        self.app = app
        self.bind_host = bind_host
        self.allowed = allowed  # called per request: a scenario loaded later may add names
        self.warned: set[str] = set()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        header = environ.get("HTTP_HOST")
        if host_allowed(header, self.bind_host, tuple(self.allowed())):
            return self.app(environ, start_response)
        shown = (header or "")[:SHOWN_CHARACTERS]
        if shown not in self.warned and len(self.warned) < 100:
            self.warned.add(shown)
            log.warning("refused a request for host %r (not this simulator's; --allowed-host allows a name)", shown)
        body = json.dumps(refusal(shown, self.bind_host).to_body(), separators=(",", ":")).encode()
        start_response(
            "403 Forbidden",
            [("Content-Type", "application/json"), ("Content-Length", str(len(body))), ("Vary", "Host")],
        )
        return [body]


def refusal(host: str, bind_host: str) -> PermissionDenied:
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return PermissionDenied(
        f"host {host!r} is not allowed: this simulator answers localhost, *.localhost, IP addresses and the "
        f"--host it listens on ({bind_host}); a page reached through any other name could be a DNS rebinding "
        f"attack. To allow the name, start with --allowed-host {name or 'NAME'} (repeatable; allowedHosts in a "
        "scenario)",
        error_code="FORBIDDEN",
    )
