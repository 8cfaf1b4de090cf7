"""The control surface tests use: votes without stamps, explanations, the clock, reset.

``Simulator`` exposes these as methods; ``blueprint`` serves them under ``/_simulator`` for
tests written in other languages.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, current_app, jsonify, request

from simulator import coverage, oauth_provider
from simulator.activities.context import Context
from simulator.auth import Principal
from simulator.consensus import lifecycle
from simulator.crypto import service_keys
from simulator.errors import InvalidArgument, NotFound
from simulator.proxy import config as proxy_config

if TYPE_CHECKING:
    from simulator.core import Simulator

Json = dict[str, Any]
blueprint = Blueprint("control", __name__, url_prefix="/_simulator")


def vote(sim: Simulator, activity_id: str, user_id: str, selection: str) -> Json:
    with sim.lock:
        activity = find(sim, activity_id)
        org = sim.store.org(activity.organization_id)
        user = org.users.get(user_id) or next((u for u in org.users.values() if u.name == user_id), None)
        if user is None:
            raise NotFound(f"user {user_id} not found in organization {org.organization_id}")
        ctx = Context(sim.store, sim.source, sim.clock.now_ms(), org, Principal(org, user, None), notify=sim.notify)
        raw = f'{{"simulatorVote": "{selection}", "activityId": "{activity_id}"}}'.encode()
        lifecycle.vote(ctx, activity, raw, selection)
        return {"activity": activity.to_api(user.user_id)}


def explain(sim: Simulator, activity_id: str) -> Json:
    with sim.lock:
        activity = find(sim, activity_id)
        pending = activity.pending
        return {
            "activityId": activity.activity_id,
            "status": activity.status,
            "decidedBy": activity.decided_by,
            "waitingFor": {k: v for k, v in (pending.governance if pending else {}).items() if k != "credentials"},
            "votes": [{"userId": v["userId"], "selection": v["selection"]} for v in activity.votes],
            "policyEvaluations": sim.store.evaluations.get(activity.activity_id, []),
            "steps": list(activity.notes),
            "failure": activity.failure,
        }


def find(sim: Simulator, activity_id: str) -> Any:
    activity = sim.store.activities.get(activity_id)
    if activity is None:
        raise NotFound(f"no activity found with id {activity_id}")
    return activity


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


def outbox(sim: Simulator, contact: str | None = None) -> list[Json]:
    with sim.lock:
        return [dict(m) for m in sim.store.outbox if contact is None or m["contact"].lower() == contact.lower()]


def configure_proxy(sim: Simulator, organization_id: str, settings: Json) -> Json:
    """Enable the auth proxy for an organization, or change an existing configuration."""
    with sim.lock:
        config_id = settings.get("configId")
        existing = sim.store.proxy_configs.get(config_id or "")
        if existing is not None:
            existing.update({k: v for k, v in settings.items() if k not in ("configId", "encryptedProxyKey")})
            return public_config(existing)
        org = sim.store.org(organization_id)
        ctx = Context(sim.store, sim.source, sim.clock.now_ms(), org)
        return public_config(proxy_config.enable(ctx, settings))


def public_config(config: Json) -> Json:
    return {k: v for k, v in config.items() if k != "encryptedProxyKey"}


@blueprint.get("/outbox")
def outbox_view() -> Response:
    return jsonify({"messages": outbox(simulator(), request.args.get("contact"))})


@blueprint.post("/auth-proxy")
def proxy_view() -> Response:
    data = body()
    return jsonify(configure_proxy(simulator(), str(data.get("organizationId", "")), data))


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
