"""One request through the main interface: parse, validate, authenticate, run, answer."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from simulator import auth
from simulator.activities import HANDLERS, PREPARERS, Handler, envelope
from simulator.activities.context import Context, Json
from simulator.errors import InvalidArgument, PermissionDenied, Unimplemented
from simulator.queries import QUERIES, QueryContext
from simulator.state.store import Activity, Organization

if TYPE_CHECKING:
    from simulator.core import Simulator


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
            return {"activity": existing.to_api(principal.user.user_id)}
        check_liveness(body["timestampMs"], now, sim.config.timestamp_window_ms)
        handler = HANDLERS.get(op)
        if handler is None:
            raise Unimplemented(f"activity {op} is part of the public API but not simulated yet")
        org = writable_org(sim, principal, body["organizationId"])
    prepare = PREPARERS.get(op)
    prepared = prepare(sim.source, body["parameters"]) if prepare else None
    with sim.lock:
        existing = sim.store.activity_by_fingerprint(fingerprint)  # an identical body may have won the race
        if existing is not None:
            return {"activity": existing.to_api(principal.user.user_id)}
        ctx = Context(sim.store, sim.source, now, org, principal, body["type"], prepared)
        return {"activity": run_activity(sim, ctx, handler, body, raw, keys).to_api(principal.user.user_id)}


def run_activity(sim: Simulator, ctx: Context, handler: Handler, body: Json, raw: bytes, keys: Json) -> Activity:
    """Run the handler and keep the completed activity with its evaluation (and app proofs)."""
    activity = envelope.new_activity(ctx, body, raw, keys)
    result = handler(ctx, body["parameters"])
    envelope.complete(activity, keys["resultKey"], result, ctx.now_ms)
    envelope.record_evaluation(ctx, activity, [{"outcome": "OUTCOME_ALLOW"}])
    if body.get("generateAppProofs"):
        activity.app_proofs.append(envelope.app_proof(sim.source, activity, result))
    sim.store.add_activity(activity)
    return activity


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
        return handler(QueryContext(sim.store, org, principal, now, target), body)


def writable_org(sim: Simulator, principal: auth.Principal, target_id: str) -> Organization:
    """The organization an activity runs in: the target, or the caller's sub-organization."""
    target = sim.store.org(target_id)
    own = principal.organization
    if own.organization_id == target.organization_id or is_below(sim, own, target):
        return own
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
