"""One request through the main interface: parse, validate, authenticate, run, answer."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from simulator import auth
from simulator.activities import HANDLERS, PREPARERS, envelope
from simulator.activities.context import Context, Json
from simulator.consensus import engine, lifecycle, rules
from simulator.consensus.kinds import kind_of
from simulator.errors import InvalidArgument, NotFound, PermissionDenied, Unimplemented
from simulator.queries import QUERIES, QueryContext
from simulator.state.activity import Activity, Pending
from simulator.state.store import Organization

if TYPE_CHECKING:
    from simulator.core import Simulator

PARENT_MAY_RUN = {
    "INIT_OTP",
    "INIT_OTP_AUTH",
    "VERIFY_OTP",
    "OTP_LOGIN",
    "OTP_AUTH",
    "OAUTH_LOGIN",
    "OAUTH2_AUTHENTICATE",
    "STAMP_LOGIN",
}
VOTES = {"approve_activity": "VOTE_SELECTION_APPROVED", "reject_activity": "VOTE_SELECTION_REJECTED"}


def parse_body(raw: bytes, content_type: str | None) -> Any:
    mime = (content_type or "").split(";")[0].strip().lower()
    if mime != "application/json":
        raise InvalidArgument(
            f"bad request body: Content-Type must be application/json, got {content_type or 'none'!r}"
        )
    try:
        body = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidArgument("bad request body: the body is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InvalidArgument(
            f"bad request body: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(body, dict):
        raise InvalidArgument(f"bad request body: expected a JSON object, got {type(body).__name__}")
    return body


def submit(sim: Simulator, op: str, raw: bytes, headers: Mapping[str, str], content_type: str | None) -> Json:
    parsed = parse_body(raw, content_type)
    stamp = sim.check_stamp(headers, raw)
    body = sim.schemas.validate("submit", op, parsed)
    keys = sim.schemas.schema("submit", op)["x-activity-types"][body["type"]]
    fingerprint = envelope.fingerprint_of(raw)
    now = sim.clock.now_ms()
    with sim.lock:
        principal = sim.authenticate(stamp, headers, raw, body["organizationId"], now)
        existing = sim.store.activity_by_fingerprint(fingerprint)
        if existing is not None:
            sim.notify(existing, "created")  # a repeated request is a new request, as the interface says
            return {"activity": existing.to_api(principal.user.user_id)}
        check_liveness(body["timestampMs"], now, sim.config.timestamp_window_ms)
        if op in VOTES:
            return vote(sim, principal, body, raw, VOTES[op], now)
        if op not in HANDLERS:
            raise Unimplemented(f"activity {op} is part of the public API but not simulated yet")
        org = writable_org(sim, principal, body["organizationId"], body["type"])
    prepare = PREPARERS.get(op)
    prepared = prepare(sim.source, body["parameters"]) if prepare else None
    with sim.lock:
        existing = sim.store.activity_by_fingerprint(fingerprint)  # an identical body may have won the race
        if existing is not None:
            return {"activity": existing.to_api(principal.user.user_id)}
        ctx = Context(sim.store, sim.source, now, org, principal, body["type"], prepared, sim.notify)
        activity = start_activity(sim, ctx, op, body, raw, keys)
        return {"activity": activity.to_api(principal.user.user_id)}


def start_activity(sim: Simulator, ctx: Context, op: str, body: Json, raw: bytes, keys: Json) -> Activity:
    """Decide (scripted rule, else quorum and policies), then complete, wait, or refuse."""
    assert ctx.principal is not None
    params = body["parameters"]
    user = ctx.principal.user
    decision = rules.scripted(sim.rules, sim.store, sim.source, ctx.org, user, body["type"], params)
    if decision is None and ctx.principal.organization is not ctx.org:
        decision = engine.Decision(
            engine.ALLOW,
            [{"outcome": "OUTCOME_ALLOW"}],
            "a parent organization runs authentication activities for its sub-organizations",
        )
    if decision is None:
        decision = engine.decide(ctx.org, user, body["type"], params, lifecycle.credentials_of(ctx.principal))
    activity = envelope.new_activity(ctx, body, raw, keys)
    pending = Pending(op, params, keys["resultKey"], ctx.prepared)
    lifecycle.begin(ctx, activity, decision, pending, bool(body.get("generateAppProofs")))
    sim.store.add_activity(activity)
    return activity


def vote(sim: Simulator, principal: auth.Principal, body: Json, raw: bytes, selection: str, now: int) -> Json:
    """approve_activity / reject_activity: a vote on the activity the fingerprint names."""
    target = sim.store.activity_by_fingerprint(body["parameters"]["fingerprint"])
    if target is None:
        raise NotFound(
            "No activity found with fingerprint. Consensus activities must target an existing activity by fingerprint",
            error_code="REQUEST_INVALID",
        )
    if body["organizationId"] != target.organization_id:
        raise InvalidArgument(
            f"organization mismatch: request is targeting organization ({body['organizationId']}), but the "
            f"activity is in organization ({target.organization_id})",
            error_code="ORGANIZATION_MISMATCH",
        )
    org = sim.store.org(target.organization_id)
    lifecycle.vote(Context(sim.store, sim.source, now, org, principal, notify=sim.notify), target, raw, selection)
    sim.store.fingerprints[envelope.fingerprint_of(raw)] = target.activity_id
    return {"activity": target.to_api(principal.user.user_id)}


def query(sim: Simulator, op: str, raw: bytes, headers: Mapping[str, str], content_type: str | None) -> Json:
    parsed = parse_body(raw, content_type)
    stamp = sim.check_stamp(headers, raw)
    body = sim.schemas.validate("query", op, parsed)
    now = sim.clock.now_ms()
    with sim.lock:
        principal = sim.authenticate(stamp, headers, raw, body["organizationId"], now)
        handler = QUERIES.get(op)
        if handler is None:
            raise Unimplemented(f"query {op} is part of the public API but not simulated yet")
        target = sim.store.org(body["organizationId"])
        org = principal.organization if is_below(sim, principal.organization, target) else target
        return handler(QueryContext(sim.store, org, principal, now, target, sim.source, sim.notify), body)


def writable_org(sim: Simulator, principal: auth.Principal, target_id: str, activity_type: str) -> Organization:
    """The organization an activity runs in: the target, or the caller's sub-organization.

    A parent's credential writes to a sub-organization only for the authentication activities
    (OTP, OAuth, sessions) that a backend runs on its users' behalf.
    """
    target = sim.store.org(target_id)
    own = principal.organization
    if own.organization_id == target.organization_id or is_below(sim, own, target):
        return own
    if kind_of(activity_type) in PARENT_MAY_RUN and is_below(sim, target, own):
        return target
    raise PermissionDenied(
        f"request not authorized: a credential of organization {own.organization_id} cannot write "
        f"to organization {target.organization_id} (parents have read access to sub-organizations only)"
    )


def is_below(sim: Simulator, org: Organization, ancestor: Organization) -> bool:
    parent = org.parent_id
    while parent:
        if parent == ancestor.organization_id:
            return True
        parent = sim.store.orgs[parent].parent_id
    return False


def check_liveness(timestamp_ms: str, now_ms: int, window_ms: int | None) -> None:
    if window_ms is None:
        return
    drift = int(timestamp_ms) - now_ms
    if abs(drift) > window_ms:
        side = "ahead of" if drift > 0 else "behind"
        raise InvalidArgument(
            f"timestampMs {timestamp_ms} is {abs(drift) // 1000} s {side} the simulator clock "
            f"({now_ms}); requests must be within {window_ms // 1000} s of it",
            error_code="INVALID_TIME",
        )
