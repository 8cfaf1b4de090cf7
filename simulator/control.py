"""The control surface tests use: votes without stamps, explanations, the clock, reset.

``Simulator`` exposes these as methods; ``blueprint`` serves them under ``/_simulator`` for
tests written in other languages.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, current_app, jsonify, request

from simulator import coverage, oauth_provider
from simulator.crypto import service_keys
from simulator.errors import InvalidArgument, NotFound

if TYPE_CHECKING:
    from simulator.core import Simulator

Json = dict[str, Any]
blueprint = Blueprint("control", __name__, url_prefix="/_simulator")


def simulator() -> Simulator:
    return current_app.extensions["simulator"]  # type: ignore[no-any-return]


def body() -> Json:
    data = request.get_json(silent=True)
    if data is not None and not isinstance(data, dict):
        raise InvalidArgument("control requests take a JSON object")
    return data or {}


@blueprint.post("/activities/<activity_id>/approve")
def approve_view(activity_id: str) -> Response:
    return jsonify(simulator().approve(activity_id, str(body().get("userId", ""))))


@blueprint.post("/activities/<activity_id>/reject")
def reject_view(activity_id: str) -> Response:
    return jsonify(simulator().reject(activity_id, str(body().get("userId", ""))))


@blueprint.get("/activities/<activity_id>/explain")
def explain_view(activity_id: str) -> Response:
    return jsonify(simulator().explain(activity_id))


@blueprint.post("/clock/advance")
def advance_view() -> Response:
    seconds = body().get("seconds")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        raise InvalidArgument('clock/advance takes {"seconds": <number>}')
    return jsonify({"nowMs": simulator().clock.advance(seconds)})


@blueprint.get("/outbox")
def outbox_view() -> Response:
    return jsonify({"messages": simulator().outbox(request.args.get("contact"))})


@blueprint.post("/auth-proxy")
def proxy_view() -> Response:
    data = body()
    settings = {k: v for k, v in data.items() if k != "organizationId"}
    return jsonify(simulator().configure_auth_proxy(str(data.get("organizationId", "")), **settings))


@blueprint.post("/oauth/authorize")
def authorize_view() -> Response:
    data = body()
    code = oauth_provider.authorize(
        simulator(),
        str(data.get("subject", "")),
        email=data.get("email"),
        code_challenge=data.get("codeChallenge"),
        redirect_uri=data.get("redirectUri"),
        fail=data.get("fail"),
    )
    return jsonify({"code": code})


@blueprint.post("/oauth/id-token")
def id_token_view() -> Response:
    data = body()
    if not data.get("subject") or not data.get("audience"):
        raise InvalidArgument('oauth/id-token takes {"subject", "audience", "nonce"?, "email"?}')
    token = oauth_provider.id_token(
        simulator(), str(data["subject"]), str(data["audience"]), nonce=data.get("nonce"), email=data.get("email")
    )
    return jsonify({"idToken": token})


@blueprint.get("/oauth/jwks")
def jwks_view() -> Response:
    return jsonify(oauth_provider.jwks())


@blueprint.get("/keys")
def keys_view() -> Response:
    """The simulator's signing keys (uncompressed hex): notarizer for sessions, and the others."""
    return jsonify(service_keys.published())


@blueprint.get("/journal")
def journal_view() -> Response:
    return jsonify({"entries": simulator().journal.entries(request.args.get("op"))})


@blueprint.get("/coverage")
def coverage_view() -> Response:
    rows = coverage.coverage(simulator().schemas)
    return jsonify({"summary": coverage.summary(rows), "operations": rows})


@blueprint.post("/snapshots")
def snapshot_view() -> Response:
    sim = simulator()
    snapshot_id = f"snapshot-{len(sim.saved_snapshots) + 1}"
    sim.saved_snapshots[snapshot_id] = sim.snapshot()
    return jsonify({"snapshotId": snapshot_id})


@blueprint.post("/snapshots/<snapshot_id>/restore")
def restore_view(snapshot_id: str) -> Response:
    sim = simulator()
    if snapshot_id not in sim.saved_snapshots:
        raise NotFound(f"no snapshot {snapshot_id}; taken: {', '.join(sim.saved_snapshots) or 'none'}")
    sim.restore(sim.saved_snapshots[snapshot_id])
    return jsonify({})


@blueprint.get("/state")
def state_view() -> Response:
    return jsonify(simulator().export_state())


@blueprint.put("/state")
def import_view() -> Response:
    try:
        simulator().import_state(body())
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidArgument(f"cannot import the state: {exc}") from None
    return jsonify({})


@blueprint.post("/scenarios")
def scenarios_view() -> Response:
    """{"paths": [...], "replace": true} makes them the scenarios; false adds them to the state."""
    data = body()
    paths = [Path(p) for p in data.get("paths", [])]
    if data.get("replace", True):
        simulator().use_scenarios(paths)
    else:
        for path in paths:
            simulator().load(path)
    return jsonify({"credentials": simulator().credentials})


@blueprint.get("/webhooks/deliveries")
def deliveries_view() -> Response:
    return jsonify({"deliveries": simulator().webhooks.deliveries()})


@blueprint.post("/webhooks/fire")
def fire_view() -> Response:
    data = body()
    fired = simulator().webhooks.fire(data.get("activityId"), data.get("url"), data.get("overrides"))
    return jsonify({"deliveries": fired})


@blueprint.post("/webhooks/<event_id>/resend")
def resend_view(event_id: str) -> Response:
    try:
        return jsonify(simulator().webhooks.resend(event_id))
    except KeyError as exc:
        raise NotFound(str(exc.args[0])) from None


@blueprint.post("/webhooks/chaos")
def chaos_view() -> Response:
    """{"drop": bool, "duplicate": bool, "delayMs": int, "reorder": bool} for deliveries from now on."""
    data = body()
    unknown = set(data) - {"drop", "duplicate", "delayMs", "reorder"}
    if unknown:
        raise InvalidArgument(f"unknown chaos options {sorted(unknown)}; known: drop, duplicate, delayMs, reorder")
    simulator().webhooks.chaos = data
    return jsonify(data)


@blueprint.post("/webhooks/drain")
def drain_view() -> Response:
    return jsonify({"pending": simulator().webhooks.drain(float(body().get("timeout", 5)))})


@blueprint.post("/reset")
def reset_view() -> Response:
    simulator().reset()
    return jsonify({})
