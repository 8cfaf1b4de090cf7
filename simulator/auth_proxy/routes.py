"""The auth proxy's HTTP surface: ``POST /v1/<name>`` on its own port, with CORS.

A thin adapter: the request goes through ``pipeline.proxy`` (configuration, origin check,
schema, handler, journal), and this module only renders the answer and the CORS headers
(simulator/web/cors.py; the origins are the configurations' ``allowedOrigins``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from flask import Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from simulator import pipeline
from simulator.auth_proxy_config import config as proxy_config
from simulator.errors import ApiError, MethodNotAllowed, NotFound, PayloadTooLarge, PermissionDenied
from simulator.http import logs
from simulator.web import cors
from simulator.web.app import SyncFlask, refuse_oversized_bodies

if TYPE_CHECKING:
    from simulator.core import Simulator


METHODS = "POST, OPTIONS"


def create_proxy_app(sim: Simulator) -> Flask:
    """The proxy's own application (served on --proxy-port) around the same Simulator."""
    app = SyncFlask("simulator-proxy")
    app.extensions["simulator"] = sim
    app.config["MAX_CONTENT_LENGTH"] = sim.config.max_body_bytes
    refuse_oversized_bodies(app)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.add_url_rule("/v1/<op>", "call", call, methods=["POST"], provide_automatic_options=False)
    app.add_url_rule("/v1/<op>", "preflight", preflight, methods=["OPTIONS"])
    logs.install(app, proxy=True)
    app.register_error_handler(ApiError, render_error)
    app.register_error_handler(HTTPException, render_http_error)
    return app


def render_error(error: ApiError) -> Any:
    allowed = not isinstance(error, PermissionDenied) or "origin" not in error.message
    return cors_headers(jsonify(error.to_body()), allowed), error.status


def render_http_error(error: HTTPException) -> Any:
    if error.code == 405:
        return render_error(MethodNotAllowed(f"method {request.method} is not allowed on {request.path}; use POST"))
    if error.code == 413:
        limit = current_app.config["MAX_CONTENT_LENGTH"]
        return render_error(PayloadTooLarge(f"request body too large: the limit is {limit} bytes"))
    return render_error(NotFound(f"unknown auth proxy path {request.path}; endpoints are POST /v1/<name>"))


def call(op: str) -> Any:
    sim: Simulator = current_app.extensions["simulator"]
    headers = cast(Any, request.headers)
    return cors_headers(jsonify(pipeline.proxy(sim.services, op, request.get_data(), headers, logs.entry_of_request())))


def preflight(op: str) -> Any:
    """Browsers send no custom headers in a preflight: allow an origin some enabled configuration allows."""
    sim: Simulator = current_app.extensions["simulator"]
    origin = cors.origin()
    with sim.lock:
        configs = [c for c in sim.store.proxy_configs.values() if c.get("enabled", True)]
    if any(proxy_config.origin_allowed(c, origin) for c in configs):
        return cors.preflight(METHODS)
    ids = ", ".join(c["configId"] for c in configs) or "none is enabled"
    return cors.refused_preflight(
        cors.refusal(origin, f"add it to allowedOrigins of an auth proxy configuration ({ids})")
    )


def cors_headers(response: Response, allowed: bool = True) -> Response:
    """CORS headers for an allowed origin; none for a refused one, so the browser blocks it."""
    return cors.allow(response, METHODS) if allowed else response
