"""CORS for every port a browser calls: the main interface, the auth proxy, and (narrowly) the control API; the
main app's decision before a view (``check_origin``) and its headers after one (``add_cors_headers``) are here.

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

from collections.abc import Callable
from typing import TYPE_CHECKING

from flask import Request, Response, jsonify, request

from simulator.control import views as control
from simulator.errors import ApiError, InvalidArgument, PermissionDenied
from simulator.http.flask_context import current_flask, current_request
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


# the main app's CORS: its one decision before a view, and its headers after it -----------------------------
PUBLIC_METHODS = "POST, GET, OPTIONS"
CONTROL_METHODS = "GET, POST, PUT, DELETE, OPTIONS"


def check_origin(
    found_request: Request, sim: Simulator, journal_refusal: Callable[[ApiError, bytes], None]
) -> Response | tuple[Response, int] | None:
    """CORS on the main interface: loopback origins, or those ``--cors-origin`` and the scenarios' ``cors.origins``
    list ("*": every origin). The control API answers only its own pages and origins listed by name, never "*":
    it reads private keys, and any page open in the developer's browser could otherwise read them; it refuses a
    cross-site request outright (``control_refusal``), and a state-changing call that is not JSON (a form or a
    beacon a page may send without a preflight). The inspector is served from the same origin and needs none of it.

    Answer preflights; refuse (403, nothing done, ``journal_refusal``) a main-interface call from an origin not
    allowed."""
    path = found_request.path
    if path.startswith("/_simulator/"):
        refused = control_refusal(sim)
        if refused is not None:
            if is_preflight():
                return refused_preflight(refused)
            raise refused
        if is_preflight():
            return preflight(CONTROL_METHODS, SDK_HEADERS + CONTROL_HEADERS)
        require_json_for_changes(found_request, sim)
        return None
    if not path.startswith("/public/"):
        return None
    found = origin()
    if allows(main_origins(sim), found):
        return preflight(PUBLIC_METHODS) if is_preflight() else None
    error = refusal(found, how_to_allow(sim))
    if found_request.method == "OPTIONS":
        return refused_preflight(error)
    journal_refusal(error, found_request.get_data())
    raise error


STATE_CHANGING = frozenset(("POST", "PUT", "DELETE", "PATCH"))


def require_json_for_changes(found: Request, sim: Simulator) -> None:
    """A state-changing control call says ``Content-Type: application/json``, its body empty or not: a page
    can send a form, text or a beacon to another origin without a preflight, never JSON (both control clients,
    the JS helper, the CLI and the inspector send it)."""
    if found.method in STATE_CHANGING and found.mimetype != "application/json":
        if sim.config.control:  # a call without the control token is told so first (401, not 400)
            control.require_control_token()
        raise InvalidArgument(
            f"control calls that change something take Content-Type: application/json, an empty body included "
            f"(got {found.content_type or 'none'}): a browser sends other types cross-site without asking"
        )


def add_cors_headers(response: Response) -> Response:
    """The main app's hook after a view: an allowed origin may read the answer."""
    found_request = current_request()
    path = found_request.path
    if path.startswith("/_simulator/"):
        if control_origin_listed(main_origins(current_flask().extensions["simulator"])):
            allow(response, CONTROL_METHODS, SDK_HEADERS + CONTROL_HEADERS)
    elif path.startswith("/public/"):
        response.headers["Vary"] = "Origin"  # the answer depends on the origin, allowed or not
        found = origin()
        if found is not None and allows(main_origins(current_flask().extensions["simulator"]), found):
            allow(response, PUBLIC_METHODS)  # (no Origin: no browser, nothing to allow)
    return response


def control_origin_listed(listed: tuple[str, ...]) -> bool:
    found = origin()
    return found is not None and found != EVERY_ORIGIN and found in listed


def how_to_allow(sim: Simulator) -> str:
    allowed = ", ".join(main_origins(sim)) or "loopback origins (localhost, *.localhost, 127.0.0.0/8, [::1])"
    return (
        f"this simulator allows {allowed} (serve --cors-origin, or cors.origins in a scenario): add the page's origin "
        "with another --cors-origin ORIGIN (--cors-origin '*' allows every origin)"
    )
