"""The Flask application factory: routes, the one error renderer, path normalisation."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, Request, Response, jsonify, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge
from werkzeug.wsgi import get_content_length

from simulator import frames, inspector, pipeline, wire
from simulator.config import Config
from simulator.control import views as control
from simulator.core import Simulator
from simulator.errors import ApiError, InvalidArgument, MethodNotAllowed, NotFound, PayloadTooLarge
from simulator.handler_support.ip_allowlist_check import REMOTE_ADDR_HEADER
from simulator.http import logs
from simulator.http.flask_context import current_flask, current_request
from simulator.http.log_entry import PUBLIC_KINDS
from simulator.scenario import ScenarioError
from simulator.web import cors
from simulator.webhooks import signing
from simulator.wire import Json

log = logging.getLogger("simulator")


class SyncFlask(Flask):
    """Flask that asks once per function, not once per call, whether a view or hook is a coroutine
    (Flask's ``ensure_sync`` runs ``inspect.iscoroutinefunction`` for every hook and view of every
    request; overriding it is the hook Flask documents for changing how views are run)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._runnable: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        found = self._runnable.get(func)
        if found is None:
            found = self._runnable[func] = super().ensure_sync(func)
        return found


def create_app(simulator: Simulator | None = None, config: Config | None = None) -> Flask:
    """Build the app around ``simulator`` (or a new one from ``config``)."""
    sim = simulator or Simulator(config)
    app = SyncFlask("simulator")
    app.extensions["simulator"] = sim
    app.config["MAX_CONTENT_LENGTH"] = sim.config.max_body_bytes
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.compact = True  # type: ignore[attr-defined]
    app.url_map.strict_slashes = False
    # the request's log entry, begun once (its path's slashes merged first), read by the log line, the journal
    # and the inspector
    logs.install(app, merge_slashes=True)
    app.before_request(admit)
    app.after_request(cors.add_cors_headers)
    add_public_routes(app)
    frames.install(app)  # the export/import/auth iframe pages: an app needs them with or without the control API
    if sim.config.control:  # --no-control: the /_simulator routes do not exist (404); the token is checked there
        app.register_blueprint(control.blueprint)
        if sim.config.inspector:  # it reads and drives through the control API, so never without it
            inspector.install(app)
    app.register_error_handler(ApiError, render_error)
    app.register_error_handler(ScenarioError, lambda e: render_error(InvalidArgument(str(e))))
    app.register_error_handler(HTTPException, render_http_error)
    app.register_error_handler(Exception, render_crash)
    return app


def refuse_oversized_bodies(app: Flask) -> None:
    """Answer 413 for a declared body over the cap on every route, also those that never read
    the body (the control API's reset, say), through the app's own error rendering."""
    app.before_request(refuse_oversized)


def refuse_oversized(found: Request | None = None) -> None:
    limit = current_flask().config["MAX_CONTENT_LENGTH"]
    # the request's content_length, read from the environ as werkzeug reads it (werkzeug.wsgi's function): the
    # request's own property goes through its header view, which folds each name's case on every lookup
    if limit is not None and (get_content_length((found or current_request()).environ) or 0) > limit:
        raise RequestEntityTooLarge()


def admit() -> Response | tuple[Response, int] | None:
    """The main app's one hook before a view: stage 2, the body's size, then stage 3, the origin
    (simulator/web/cors.py; a refused origin's call is journaled here)."""
    found = current_request()
    refuse_oversized(found)
    if found.path.startswith("/public/") and "HTTP_ORIGIN" not in found.environ and found.method != "OPTIONS":
        return None  # no browser sent it (no Origin), and no preflight: check_origin would allow it
    return cors.check_origin(found, get_simulator(), journal_refusal)


def get_simulator() -> Simulator:
    return current_flask().extensions["simulator"]  # type: ignore[no-any-return]


def submit(op: str) -> Response:
    """The bytes and headers handed to the pipeline (stages 4 to 10), its answer encoded (stage 11)."""
    services, found, entry = get_simulator().services, current_request(), logs.entry_of_request()
    return json_response(pipeline.submit(services, op, found.get_data(), headers(found), content_type(found), entry))


def query(op: str) -> Response:
    services, found, entry = get_simulator().services, current_request(), logs.entry_of_request()
    return json_response(pipeline.query(services, op, found.get_data(), headers(found), content_type(found), entry))


def content_type(found: Request) -> str | None:
    """``found.content_type``, read where werkzeug reads it (the environ's CONTENT_TYPE), without the header
    view werkzeug would build for it: nothing else in a public call asks for that view."""
    value: str | None = found.environ.get("CONTENT_TYPE")
    return value


def json_response(answer: Json) -> Response:
    # content_type, not mimetype: the same header, without werkzeug working out a charset for it on every answer
    return Response(wire.encode(answer, DefaultJSONProvider.default), content_type="application/json")


class RequestHeaders(dict[str, str]):
    """A request's headers keyed by lower-case name, so every lookup is one dict access (werkzeug's
    Headers scans a list and folds case on each lookup, and the pipeline looks up a dozen names)."""

    def __getitem__(self, name: str) -> str:
        return super().__getitem__(name.lower())

    def get(self, name: str, default: Any = None) -> Any:
        return super().get(name.lower(), default)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and super().__contains__(name.lower())


def headers(found: Request | None = None) -> Mapping[str, str]:
    """The request's headers (``found``, or the current one), looked up case-insensitively, plus the peer's
    address under a name only the transport sets (a client's header of that name is replaced)."""
    if found is None:
        found = current_request()
    environ = found.environ
    named = RequestHeaders()
    for key, value in environ.items():
        name = _HEADER_NAMES.get(key)
        if name is None:
            name = header_name(key)
        if name and (value or not key.startswith("CONTENT_")):
            named[name] = value
    named[REMOTE_ADDR_HEADER.lower()] = found.remote_addr or ""
    return named


_HEADER_NAMES: dict[str, str] = {}  # environ key -> header name ("" for a key that is no header), for the usual keys
_HEADER_NAMES_KEPT = 512  # clients name headers freely: beyond this many, names are worked out each time


def header_name(key: str) -> str:
    """``HTTP_X_STAMP`` -> ``x-stamp``; ``CONTENT_TYPE`` and ``CONTENT_LENGTH`` as their headers; "" for the rest."""
    if key.startswith("HTTP_"):
        name = key[5:].replace("_", "-").lower()
    else:
        name = key.replace("_", "-").lower() if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else ""
    if len(_HEADER_NAMES) < _HEADER_NAMES_KEPT:
        _HEADER_NAMES[key] = name
    return name


def journal_refusal(api: ApiError, raw: bytes = b"") -> None:
    """A call the transport refused before the pipeline saw it (body too large, origin refused) still goes in
    the journal, with its body when it was read."""
    entry = logs.entry_of_request()
    if entry.kind in PUBLIC_KINDS:
        pipeline.finish(get_simulator().services, entry, raw, headers(), api.status, api.to_body())


# the production value api-reference/queries/get-webhook-jwks documents, which receivers cache by
WEBHOOK_KEYS_CACHE_CONTROL = "public, max-age=86400, s-maxage=86400, stale-if-error=604800"


def webhook_keys() -> Response:
    """The keys webhook signatures verify with (the service's discovery path)."""
    response = jsonify(signing.jwks())
    response.headers["Cache-Control"] = WEBHOOK_KEYS_CACHE_CONTROL
    return response


def add_public_routes(app: Flask) -> None:
    """The public API's routes, on the app itself rather than a blueprint: Flask looks up a blueprint route's
    hooks under its blueprint's name as well on every request (~7k instructions of the ~300k of whoami's own
    work, bench/instructions.py), and these routes have none of their own. Endpoint names without a dot: a dot
    is what makes Flask take a route for a blueprint's."""
    app.add_url_rule("/public/v1/submit/<op>", "public_submit", submit, methods=["POST"])
    app.add_url_rule("/public/v1/query/<op>", "public_query", query, methods=["POST"])
    app.add_url_rule("/public/v1/discovery/webhooks/jwks", "public_webhook_keys", webhook_keys, methods=["GET"])


def render_error(error: ApiError) -> tuple[Response, int]:
    body = error.to_body()
    entry = logs.entry_of_request()
    if entry.answer is None:  # refused before the pipeline kept it: the log and the inspector read it here
        entry.answer = body
    return jsonify(body), error.status


def render_http_error(error: HTTPException) -> tuple[Response, int]:
    """Werkzeug's own refusals (unknown path, wrong method, body too large) in the one shape."""
    if error.code == 405:
        allowed = sorted(set(getattr(error, "valid_methods", None) or ()) - {"HEAD", "OPTIONS"})
        takes = f"it takes {' or '.join(allowed)}" if allowed else "the API takes POST with a JSON body"
        api: ApiError = MethodNotAllowed(f"method {request.method} is not allowed on {request.path}; {takes}")
    elif error.code == 413:
        limit = get_simulator().config.max_body_bytes
        api = PayloadTooLarge(f"request body too large: the limit is {limit} bytes")
        journal_refusal(api)
    elif error.code == 404:
        api = unknown_path(request.path)
    else:
        api = ApiError(f"{error.code} {error.name}: {error.description}")
        api.status = error.code or 500
    return render_error(api)


def unknown_path(path: str) -> NotFound:
    schemas = get_simulator().schemas
    known = [f"/public/v1/{kind}/{op}" for kind in ("submit", "query") for op in schemas.operations[kind]]
    import difflib  # imported on first use: only this hint needs it, and serve starts sooner

    close = difflib.get_close_matches(path, known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return NotFound(
        f"unknown path {path}{hint} (activities are POST /public/v1/submit/<name>, "
        "queries POST /public/v1/query/<name>)",
        details=[{"@type": "simulator/unknown-operation", "closest": close}],
    )


def render_crash(error: Exception) -> tuple[Response, int]:
    """A bug in the simulator: answer 500 in the error shape and keep it for the test to see."""
    sim = get_simulator()
    incident = sim.source.uuid4()
    sim.crashes.append({"id": incident, "path": request.path, "traceback": traceback.format_exc()})
    log.error("internal error %s on %s\n%s", incident, request.path, traceback.format_exc())
    return render_error(ApiError(f"internal server error ({incident})"))
