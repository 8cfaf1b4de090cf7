"""CORS for every port a browser calls: the main interface, the auth proxy, and (narrowly) the control API.

One decision, made per request: is the request's ``Origin`` allowed? Then the answer carries
``Access-Control-Allow-Origin`` (the origin echoed, with ``Vary: Origin``) and a preflight is
answered 204 with the methods and the headers the published SDKs send. A refused origin gets the
one error shape (403, naming the origin and how to allow it) and *no* allow-origin header, so
the browser blocks the call as it would for a production origin left off the list, while the
DevTools network panel and the simulator's request log show why.

Who is allowed is the caller's business: the main interface asks :func:`main_origins` (the
``--cors-origin`` switches and the loaded scenarios' ``cors.origins``; none means loopback origins
only, ``http(s)://localhost``, ``*.localhost``, ``127.0.0.0/8`` and ``[::1]`` on any port, so that no
website the developer happens to visit can drive the simulator with the published default key;
``"*"`` means every origin, what the service does for its browser SDKs), the auth proxy asks its
configurations' ``allowedOrigins`` (none: loopback origins). The control API answers only its own
pages and origins listed by name (:func:`control_refusal`). Every decision here reads a ``Host`` that
simulator/server/host_check.py has already accepted. flask-cors was considered: it covers the header writing, which is the small
part; origins that change with the loaded scenario, per-configuration proxy origins and the
refusal in the error shape would all sit outside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Response, jsonify, request

from simulator.errors import PermissionDenied
from simulator.http.flask_context import current_request
from simulator.local_hosts import is_loopback_origin

if TYPE_CHECKING:
    from simulator.core import Simulator

# What the published SDKs put on a request (checked in @turnkey/http, core, sdk-browser, react-wallet-kit and the
# stampers): the stamp headers, the client version, sdk-browser's read-only session, the proxy's config id and
# captcha token; plus the simulator's documented test header for the caller's address.
SDK_HEADERS = (
    "Content-Type",
    "X-Stamp",
    "X-Stamp-WebAuthn",
    "X-Stamp-Attested",
    "X-Client-Version",
    "X-Session",
    "X-Auth-Proxy-Config-Id",
    "X-Captcha-Token",
    "X-Simulator-Client-Ip",
)
CONTROL_HEADERS = ("Authorization", "X-Simulator-Control-Token")  # with SDK_HEADERS, on the control API
EVERY_ORIGIN = "*"


def origin() -> str | None:
    # straight from the environ: werkzeug's header view folds and scans on every lookup, and a request asks thrice
    found: str | None = current_request().environ.get("HTTP_ORIGIN")
    return found


def is_preflight() -> bool:
    found = current_request()
    return found.method == "OPTIONS" and "HTTP_ACCESS_CONTROL_REQUEST_METHOD" in found.environ


def same_origin(value: str) -> bool:
    """A page the simulator itself serves (the inspector) is never cross-origin."""
    return value == request.host_url.rstrip("/")


def main_origins(sim: Simulator) -> tuple[str, ...]:
    """The origins the main interface answers: ``--cors-origin`` and the scenarios' ``cors.origins``; empty:
    loopback origins."""
    return (*sim.config.cors_origins, *sim.store.cors_origins)


def allows(allowed: tuple[str, ...] | list[str], value: str | None) -> bool:
    """Whether ``value`` (an Origin header; None when the caller is no browser) may call: empty is loopback
    origins, ``*`` every origin."""
    if value is None or EVERY_ORIGIN in allowed or value in allowed or same_origin(value):
        return True
    return not allowed and is_loopback_origin(value)


def control_refusal(sim: Simulator) -> PermissionDenied | None:
    """Why a request to the control API (``/_simulator/``) comes from a page it must not serve, or None.

    The control API reads every private key and replaces the state, and a browser sends some cross-site
    requests without asking first (a ``<form method=POST>``, ``navigator.sendBeacon``, a no-cors ``fetch``,
    an ``<img>``): refused, whatever the method and the body, is a request whose ``Origin`` is neither the
    simulator's own (the inspector) nor listed by name (``--cors-origin``, ``cors.origins``; ``"*"`` does not
    count), and one a browser marks ``Sec-Fetch-Site: cross-site`` without such an origin."""
    found = origin()
    if found is not None and (same_origin(found) or (found in main_origins(sim) and found != EVERY_ORIGIN)):
        return None
    if found is None and request.environ.get("HTTP_SEC_FETCH_SITE", "").lower() != "cross-site":
        return None  # no browser (curl, the clients, the CLI), or a page of this site
    shown = found if found is not None else "a cross-site page (Sec-Fetch-Site: cross-site)"
    return PermissionDenied(
        f"origin {shown} may not use the control API (/_simulator): it reads every private key and replaces "
        "the state, so it answers its own pages and the origins listed by name with --cors-origin ORIGIN (or "
        "cors.origins in a scenario) only",
        error_code="FORBIDDEN",
    )


def allow(response: Response, methods: str, headers: tuple[str, ...] = SDK_HEADERS) -> Response:
    """Mark ``response`` readable by the request's origin (call only once that origin is allowed)."""
    response.headers["Vary"] = "Origin"
    found = origin()
    if found is None:
        return response
    response.headers["Access-Control-Allow-Origin"] = found
    if current_request().method == "OPTIONS":
        response.headers["Access-Control-Allow-Methods"] = methods
        response.headers["Access-Control-Allow-Headers"] = ", ".join(headers)
    return response


def preflight(methods: str, headers: tuple[str, ...] = SDK_HEADERS) -> Response:
    """The answer to an allowed origin's preflight. Chromium asks a page on a public address (a deployed
    preview, say) before it may reach loopback (Private Network Access): the simulator says yes."""
    response = allow(Response(status=204), methods, headers)
    if request.headers.get("Access-Control-Request-Private-Network") == "true":
        response.headers["Access-Control-Allow-Private-Network"] = "true"
    return response


def refusal(value: str | None, how_to_allow: str) -> PermissionDenied:
    """The error a refused origin gets (403), naming it and what allows it."""
    return PermissionDenied(
        f"origin {value} is not allowed to call this port from a browser; {how_to_allow}", error_code="FORBIDDEN"
    )


def refused_preflight(error: PermissionDenied) -> tuple[Response, int]:
    """A refused preflight: the error shape, no allow-origin header, so the browser blocks the call."""
    response = jsonify(error.to_body())
    response.headers["Vary"] = "Origin"
    return response, error.status
