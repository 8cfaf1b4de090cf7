"""The control surface tests use: votes without stamps, explanations, the clock, reset, state.

``Simulator`` exposes these as methods; ``blueprint`` serves them under ``/_simulator`` for
tests written in other languages. Each view is served at the route its row of the control
surface's table names (simulator/control/control_surface.py: method, route, view, body schema), and every
body is checked against that row's schema in schemas/control/ (a bad one is a 400 in the one error
shape, and leaves the state as it was).

The control API reads and replaces everything, private keys included, so it is protected when
it matters: ``Config.control=False`` does not serve it at all, and ``Config.control_token``
makes every control request carry ``Authorization: Bearer <token>`` or
``X-Simulator-Control-Token: <token>`` (401 without it).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from flask import Blueprint, Response, current_app, jsonify, request

from simulator.config import Config
from simulator.control import control_scenarios
from simulator.control.control_surface import TABLE
from simulator.crypto import service_keys
from simulator.errors import InvalidArgument, NotFound, Unauthenticated
from simulator.http.request_body import refuse_deep_nesting
from simulator.operations.validation import Schemas
from simulator.scenario import ScenarioError
from simulator.wire import Json

if TYPE_CHECKING:
    from simulator.core import Simulator

TOKEN_HEADER = "X-Simulator-Control-Token"
CHALLENGE = 'Bearer realm="wallet-simulator control API"'
blueprint = Blueprint("control", __name__, url_prefix="/_simulator")


def simulator() -> Simulator:
    return current_app.extensions["simulator"]  # type: ignore[no-any-return]


# protection ----------------------------------------------------------------------------------
@blueprint.before_request
def require_control_token() -> None:
    """Refuse (401) a request without the configured control token.

    Public so that pages served beside the control API (the inspector) apply the same check:
    ``their_blueprint.before_request(control.require_control_token)``.
    """
    expected = simulator().config.control_token
    if expected is None:
        return
    given = presented_token(cast(Mapping[str, str], request.headers))
    if given is None:
        raise Unauthenticated(
            f"the control API requires its token: send 'Authorization: Bearer <token>' or '{TOKEN_HEADER}: <token>'"
        )
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise Unauthenticated("control token refused: it is not the one the simulator was started with")


def presented_token(headers: Mapping[str, str]) -> str | None:
    """The token a request carries: ``X-Simulator-Control-Token``, else a bearer ``Authorization``."""
    custom = (headers.get(TOKEN_HEADER) or "").strip()
    if custom:
        return custom
    scheme, _, value = (headers.get("Authorization") or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


@blueprint.after_request
def challenge(response: Response) -> Response:
    if response.status_code == 401:
        response.headers["WWW-Authenticate"] = CHALLENGE
    return response


def exposure_warning(host: str, config: Config) -> str | None:
    """What to warn about when the control API is reachable beyond loopback without a token."""
    if not config.control or config.control_token is not None or is_loopback(host):
        return None
    return (
        f"the control API (/_simulator) listens on {host}, beyond loopback, without a token: anyone who can reach "
        "this port can read every API private key, passkey key and mnemonic (GET /_simulator/state) and replace "
        "the state; set --control-token (or WALLET_SIMULATOR_CONTROL_TOKEN), or --no-control, or --host 127.0.0.1"
    )


def is_loopback(host: str) -> bool:
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve to anything


# bodies --------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def control_schemas() -> Schemas:
    """The schemas of the control bodies (schemas/control/); unknown fields are always refused."""
    schemas = Schemas()
    schemas.operations["control"] = sorted(p.stem for p in (schemas.root / "control").glob("*.json"))
    return schemas


def parsed_body() -> Any:
    """The request's JSON body; an empty body is ``{}``. NaN and Infinity are not JSON: refused."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    if not request.is_json:
        raise InvalidArgument(
            f"control request bodies are JSON: send Content-Type: application/json (got {request.content_type!r})"
        )
    refuse_deep_nesting(raw, "control request body is not valid JSON")
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=refuse_constant)
    except (ValueError, RecursionError) as exc:
        raise InvalidArgument(f"control request body is not valid JSON: {exc}") from None


def refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def body() -> Json:
    """The body, checked against the schema the control surface's table names for this route,
    schemas/control/<schema>.json (nulls read as absent)."""
    return control_schemas().validate("control", route_schema(), parsed_body())


def route_schema() -> str:
    """The body schema of the route being served (``Endpoint.schema`` in simulator/control/control_surface.py)."""
    schema = SCHEMAS[(request.method, request.url_rule.rule if request.url_rule else "")]
    if schema is None:  # a view that reads a body its row gives no schema: the table is wrong
        raise LookupError(f"{request.method} {request.path}: the control surface's table names no body schema")
    return schema


@contextmanager
def unchanged_on_failure() -> Iterator[Simulator]:
    """The simulator, put back as it was if the block fails: a refused control call changes nothing."""
    sim = simulator()
    with sim.lock:
        before = sim.snapshot()
        try:
            yield sim
        except Exception:
            sim.restore(before)
            raise


# views: each served where its row of simulator/control/control_surface.py says (registered at the end) ---
def approve_view(activity_id: str) -> Response:
    user = body()["userId"]
    with unchanged_on_failure() as sim:
        return jsonify(sim.approve(activity_id, user))


def reject_view(activity_id: str) -> Response:
    user = body()["userId"]
    with unchanged_on_failure() as sim:
        return jsonify(sim.reject(activity_id, user))


def explain_view(activity_id: str) -> Response:
    return jsonify(simulator().explain(activity_id))


def advance_view() -> Response:
    seconds = body()["seconds"]
    return jsonify({"nowMs": simulator().clock.advance(seconds)})


# The longest a long poll of the outbox holds a worker thread (``?wait=`` asks for up to this).
OUTBOX_MAX_WAIT_SECONDS = 30.0


def outbox_view() -> Response:
    """The OTP outbox; ``?wait=SECONDS`` answers as soon as it holds more than ``after`` messages
    (``?after=``, default 0) to ``contact``, or after that long with what it holds: one request
    instead of a poll every few milliseconds."""
    contact = request.args.get("contact")
    if "wait" not in request.args:
        return jsonify({"messages": simulator().outbox(contact)})
    wait = number_argument("wait", float, 0.0, OUTBOX_MAX_WAIT_SECONDS)
    after = number_argument("after", int, 0, None)
    return jsonify({"messages": simulator().wait_for_outbox(contact, wait, int(after))})


def number_argument(name: str, kind: type[float] | type[int], low: float, high: float | None) -> float:
    """A numeric query argument (absent: ``low``), refused (400) unless a number from ``low``
    (and up to ``high``, when there is a bound)."""
    text = request.args.get(name)
    if text is None:
        return low
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or value != value or value < low or (high is not None and value > high):
        bound = f"from {low:g} to {high:g}" if high is not None else f"of at least {low:g}"
        raise InvalidArgument(f"outbox: {name} must be a number {bound}, not {text!r}")
    return float(value)


def proxy_view() -> Response:
    data = body()
    settings = {k: v for k, v in data.items() if k != "organizationId"}
    with unchanged_on_failure() as sim:
        return jsonify(sim.configure_auth_proxy(str(data.get("organizationId", "")), **settings))


def authorize_view() -> Response:
    data = body()
    # imported on first use: keeps serve's start-up short
    from simulator.standins import oauth_provider

    code = oauth_provider.authorize(
        simulator(),
        data["subject"],
        email=data.get("email"),
        code_challenge=data.get("codeChallenge"),
        redirect_uri=data.get("redirectUri"),
        fail=data.get("fail"),
    )
    return jsonify({"code": code})


def id_token_view() -> Response:
    data = body()
    # imported on first use: keeps serve's start-up short
    from simulator.standins import oauth_provider

    token = oauth_provider.id_token(
        simulator(), data["subject"], data["audience"], nonce=data.get("nonce"), email=data.get("email")
    )
    return jsonify({"idToken": token})


def jwks_view() -> Response:
    # imported on first use: keeps serve's start-up short
    from simulator.standins import oauth_provider

    return jsonify(oauth_provider.jwks())


def keys_view() -> Response:
    """The simulator's signing keys (uncompressed hex): notarizer for sessions, and the others."""
    return jsonify(service_keys.published())


def journal_view() -> Response:
    """The journal, or one operation's entries (``?op=``: its name, or an official client's method name for it)."""
    from simulator.operations.operation_names import UnknownOperation, operation

    op = request.args.get("op")
    try:
        return jsonify({"entries": simulator().journal.entries(operation(op) if op else None)})
    except UnknownOperation as exc:
        raise InvalidArgument(f"op: {exc}") from None


def coverage_view() -> Response:
    # imported on first use: keeps serve's start-up short
    from simulator.operations import operation_coverage

    rows = operation_coverage.coverage(simulator().schemas)
    return jsonify({"summary": operation_coverage.summary(rows), "operations": rows})


def snapshot_view() -> Response:
    body()
    sim = simulator()
    with sim.lock:
        snapshot_id = f"snapshot-{len(sim.saved_snapshots) + 1}"
        sim.saved_snapshots[snapshot_id] = sim.snapshot()
    return jsonify({"snapshotId": snapshot_id})


def restore_view(snapshot_id: str) -> Response:
    body()
    sim = simulator()
    if snapshot_id not in sim.saved_snapshots:
        raise NotFound(f"no snapshot {snapshot_id}; taken: {', '.join(sim.saved_snapshots) or 'none'}")
    sim.restore(sim.saved_snapshots[snapshot_id])
    return jsonify({})


def state_view() -> Response:
    """Everything, secrets included (the document says so): never cached on the way."""
    # written in pieces, copied under the lock first: other requests keep being answered meanwhile
    response = Response(simulator().export_state_chunks(), mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


def import_view() -> Response:
    document = parsed_body()
    control_schemas().validate("control", route_schema(), document)  # checked; imported as sent, nulls and all
    with unchanged_on_failure() as sim:
        try:
            sim.import_state(document)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            # every part of the document is the client's, so any of these is a bad document, not a bug
            raise InvalidArgument(f"cannot import the state: {type(exc).__name__}: {exc}") from None
    return jsonify({})


def scenarios_view() -> Response:
    """{"paths": [...], "replace": true} makes them the scenarios; false adds them to the state. Shipped names
    and files under the directories the simulator was told about only (simulator/control/control_scenarios.py)."""
    data = body()
    config = simulator().config
    trusted = control_scenarios.trusted_caller(config)
    paths = [control_scenarios.checked_path(p, config, trusted) for p in data.get("paths", [])]
    with unchanged_on_failure() as sim:
        try:
            if data.get("replace", True):
                sim.use_scenarios(paths)
            else:
                for path in paths:
                    sim.load(path)
        except ScenarioError as exc:
            raise control_scenarios.value_free(exc, paths) from None
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            # a file that is not UTF-8 text, or whose shape the loader trips on: its class, never its values
            raise InvalidArgument(
                f"cannot load the scenarios: {type(exc).__name__} while reading them; run `wallet-simulator check "
                "FILE` to see each problem"
            ) from None
        return jsonify({"credentials": sim.credentials})


def deliveries_view() -> Response:
    return jsonify({"deliveries": simulator().webhooks.deliveries()})


def fire_view() -> Response:
    data = body()
    try:
        fired = simulator().webhooks.fire(data.get("activityId"), data.get("url"), data.get("overrides"))
    except KeyError as exc:
        raise NotFound(str(exc.args[0])) from None
    return jsonify({"deliveries": fired})


def resend_view(event_id: str) -> Response:
    body()
    try:
        return jsonify(simulator().webhooks.resend(event_id))
    except KeyError as exc:
        raise NotFound(str(exc.args[0])) from None


def chaos_view() -> Response:
    """{"drop": bool, "duplicate": bool, "delayMs": int, "reorder": bool} for deliveries from now on."""
    data = body()
    simulator().webhooks.chaos = data
    return jsonify(data)


def receiver_view() -> Response:
    """What the pytest plugin's webhook_receiver fixture does, for suites in other languages (the
    JS helper's startWebhookReceiver): the URL becomes the organization's FEATURE_NAME_WEBHOOK."""
    data = body()
    sim = simulator()
    with sim.lock:
        org = sim.store.org(data.get("organizationId") or sim.default_organization_id() or "")
        if data.get("url"):
            org.features["FEATURE_NAME_WEBHOOK"] = data["url"]
        else:
            org.features.pop("FEATURE_NAME_WEBHOOK", None)
        return jsonify({"organizationId": org.organization_id, "url": data.get("url")})


def drain_view() -> Response:
    return jsonify({"pending": simulator().webhooks.drain(body().get("timeout", 5))})


def add_fault_view() -> Response:
    """Start a transport fault (simulator/faults.py) on the requests it matches; answers it, named."""
    # imported on first use, as the other views' helpers: keeps serve's start-up short
    from simulator.faults import FaultError

    try:
        return jsonify(simulator().add_fault(body()))
    except FaultError as exc:
        raise InvalidArgument(str(exc)) from None


def faults_view() -> Response:
    """The active faults, with the requests each matched and hit (the newest hits listed)."""
    return jsonify({"faults": simulator().fault_listing()})


def remove_fault_view(name: str) -> Response:
    if not simulator().remove_fault(name):
        active = ", ".join(f["name"] for f in simulator().fault_listing()) or "none"
        raise NotFound(f"no fault named {name!r}; active: {active}")
    return jsonify({})


def clear_faults_view() -> Response:
    simulator().clear_faults()
    return jsonify({})


def reset_view() -> Response:
    body()
    simulator().reset()
    return jsonify({})


# routes: one per row of the control surface's table ----------------------------------------
SCHEMAS = {(e.method, f"{blueprint.url_prefix}{e.route}"): e.schema for e in TABLE}
for _endpoint in TABLE:
    blueprint.add_url_rule(_endpoint.route, view_func=globals()[_endpoint.view], methods=[_endpoint.method])
