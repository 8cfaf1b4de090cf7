"""The one request path every transport uses: parse → authenticate → validate → decide → handle →
envelope → journal and events.

The main interface's views, the auth proxy and the Python API call ``submit`` and ``query``;
they are thin adapters that hand over the raw bytes and headers and render what comes back.
``Host`` is what the pipeline works on (the ``Simulator`` is one): the store and its lock, the
clock, the seeded source, the schemas, the scripted rules and the journal.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Protocol

from simulator import auth, faults
from simulator.auth.stamps import Stamp
from simulator.auth_proxy_config import captcha
from simulator.auth_proxy_config import config as proxy_config
from simulator.clock import Clock, Source
from simulator.config import Config
from simulator.consensus import engine, lifecycle, mfa_gate, parent_runs, rules
from simulator.consensus import throttle as rate_limits
from simulator.consensus.decisions import Decision, Outcome, VoteSelection
from simulator.errors import ApiError, InvalidArgument, NotFound, PermissionDenied, Unimplemented
from simulator.handling import envelope, ip_allowlist_check, refusals, request_warnings, session_scope
from simulator.handling.context import Context
from simulator.http.request_body import check_timestamp_ms, json_or_none, parse_body
from simulator.http.request_record import UNREAD, RequestRecord
from simulator.journal import Journal
from simulator.operations import catalogue, response_check
from simulator.operations.catalogue import Kind, Operation
from simulator.operations.validation import Schemas
from simulator.queries import QueryContext
from simulator.state.activity import Activity, Pending
from simulator.state.store import Organization, Store
from simulator.wire import Json


class Recorder(Protocol):
    def add(self, kind: str, op: str, body: Any, headers: Mapping[str, str], status: int, answer: Any) -> None: ...


class Host(Protocol):
    config: Config
    clock: Clock
    source: Source
    schemas: Schemas
    lock: threading.RLock
    rules: list[Json]
    journal: Journal
    crashes: list[Json]  # internal failures kept for the test to see (the strict response check adds to it)

    @property
    def recorder(self) -> Recorder | None: ...

    @property
    def store(self) -> Store: ...

    def notify(self, activity: Activity, event: str) -> None: ...


# the stages ------------------------------------------------------------------------------------
def operation(host: Host, kind: Kind, op: str) -> Operation:
    found = catalogue.get(kind, op)
    if found is None:
        raise host.schemas.unknown_operation(kind.value, op)
    return found


def authenticate(
    host: Host,
    stamp: Stamp | None,
    headers: Mapping[str, str],
    raw: bytes,
    org_id: str,
    now_ms: int,
    whoami: bool = False,
    *,
    note_user: bool = True,
) -> auth.Principal:
    if stamp is None:
        principal = auth.trust_without_verifying(host.store, headers, org_id)
    else:
        principal = auth.authenticate(host.store, stamp, raw, org_id, now_ms, whoami, note_user=note_user)
    ip_allowlist_check.check_request(principal, headers)
    return principal


def throttle(host: Host, kind: Kind, op: str, body: Json, principal: auth.Principal, now_ms: int) -> None:
    """429 when a rate limit or a scripted ``rateLimited`` rule refuses the request (consensus/rate_limits);
    with neither configured (the default) it costs one comparison."""
    if host.config.rate_limits is None and not host.rules:
        return
    target = host.store.org(body["organizationId"])
    request = rate_limits.Request(kind.value, op, body.get("type", ""), body.get("parameters", body))
    rate_limits.check(
        host.rules, host.config.rate_limits, host.store, host.source, target, principal.user, request, now_ms
    )


def check_stamp(host: Host, headers: Mapping[str, str], raw: bytes) -> Stamp | None:
    """The stamp, checked as far as it can be before the body is validated (None: auth off)."""
    return None if host.config.auth == "off" else auth.check_stamp(headers, raw)


def check_liveness(host: Host, timestamp_ms: str, now_ms: int) -> None:
    """The stamp's ``timestampMs`` against real time (the client's clock), or the simulated one if asked."""
    window_ms = host.config.timestamp_window_ms
    if window_ms is None:
        return
    simulated = host.config.liveness_on_simulated_clock
    reference = now_ms if simulated else int(time.time() * 1000)
    drift = check_timestamp_ms(timestamp_ms) - reference
    if abs(drift) > window_ms:
        side = "ahead of" if drift > 0 else "behind"
        which = "simulated time" if simulated else "real time"
        raise InvalidArgument(
            f"timestampMs {timestamp_ms} is {abs(drift) // 1000} s {side} the simulator clock ({which} {reference}); "
            f"requests must be within {window_ms // 1000} s of it",
            error_code="INVALID_TIME",
        )


def client_time_ms(host: Host) -> int:
    """A ``timestampMs`` the liveness check accepts, for requests the simulator makes itself."""
    return host.clock.now_ms() if host.config.liveness_on_simulated_clock else int(time.time() * 1000)


# activities --------------------------------------------------------------------------------------
def submit(
    host: Host,
    op: str,
    raw: bytes,
    headers: Mapping[str, str],
    content_type: str | None,
    record: RequestRecord | None = None,
) -> Json:
    return public(host, Kind.ACTIVITY, op, raw, headers, content_type, record, _submit)


def public(
    host: Host,
    kind: Kind,
    op: str,
    raw: bytes,
    headers: Mapping[str, str],
    content_type: str | None,
    record: RequestRecord | None,
    run: Callable[[Host, str, bytes, Mapping[str, str], str | None, list[Json]], Json],
) -> Json:
    """An activity or a query: ``run`` (``_submit``, ``_query``), its answer checked, the request kept."""
    seen: list[Json] = []

    def answer() -> Json:
        try:
            return response_check.checked(host, kind, op, run(host, op, raw, headers, content_type, seen))
        except NotFound as error:  # a lookup that failed on an id that is not a UUID: malformed (errors page)
            raise host.schemas.not_found_or_malformed(kind.value, op, seen, error) from None

    return journaled(host, record or untimed(kind, op), raw, headers, answer, seen)


def _submit(
    host: Host, op: str, raw: bytes, headers: Mapping[str, str], content_type: str | None, seen: list[Json]
) -> Json:
    parsed = parse_body(raw, content_type)
    seen.append(parsed)
    stamp = check_stamp(host, headers, raw)
    body = host.schemas.validate("submit", op, parsed)
    spec = operation(host, Kind.ACTIVITY, op)
    keys = host.schemas.activity_types(op)[body["type"]]
    fingerprint = envelope.fingerprint_of(raw)
    now = host.clock.now_ms()
    with host.lock:
        principal = authenticate(host, stamp, headers, raw, body["organizationId"], now)
        throttle(host, Kind.ACTIVITY, op, body, principal, now)
        existing = host.store.activity_by_fingerprint(fingerprint)
        if existing is not None:
            host.notify(existing, "created")  # a repeated request is a new request (Turnkey's Activity Webhooks guide)
            return {"activity": existing.to_api(principal.user.user_id, now)}
        check_liveness(host, body["timestampMs"], now)
        if spec.vote is not None:
            return vote_by_fingerprint(host, principal, body, raw, VoteSelection(spec.vote), now)
        if spec.handler is None:
            raise Unimplemented(f"activity {op} is part of the public API but not simulated yet")
        org = writable_org(host.store, principal, body["organizationId"], spec)
        scope_ctx = Context(host.store, host.source, now, org, principal, body["type"])
        session_scope.enforce_scope(host.store, principal, spec, body["type"], body["parameters"], scope_ctx)
    prepare = spec.prepare()
    prepared = prepare(host.source, body["parameters"]) if prepare else None
    with host.lock:
        existing = host.store.activity_by_fingerprint(fingerprint)  # an identical body may have won the race
        if existing is not None:
            return {"activity": existing.to_api(principal.user.user_id, now)}
        ctx = Context(host.store, host.source, now, org, principal, body["type"], prepared, host.notify)
        activity = start_activity(host, ctx, spec, body, raw, keys, fingerprint)
        return {"activity": activity.to_api(principal.user.user_id, now)}


def start_activity(
    host: Host, ctx: Context, spec: Operation, body: Json, raw: bytes, keys: Json, fingerprint: str | None = None
) -> Activity:
    """Decide (scripted rule, else quorum and policies), then complete, wait, or refuse (``fingerprint``: the
    request's, when the caller worked it out)."""
    assert ctx.principal is not None
    params = body["parameters"]
    user = ctx.principal.user
    decision = rules.scripted(host.rules, host.store, host.source, ctx.org, user, body["type"], params)
    if decision is None and ctx.principal.organization is not ctx.org:
        parent = ctx.principal.organization
        used = lifecycle.credentials_of(ctx.principal)
        warning = parent_runs.unallowed(parent, spec, body["type"], params, user, used, ctx.now_ms)
        if warning:
            request_warnings.warn(warning)
        decision = Decision(
            Outcome.ALLOW,
            [{"outcome": "OUTCOME_ALLOW"}],
            "a parent organization runs authentication activities for its sub-organizations",
        )
    before = refusals.mark(host.store, host.source)  # after the scripted rule: its counters count refusals too
    denied, activity_id = False, ""
    try:
        describe = spec.describe_for_policies()
        extra: Json = describe(ctx, params) if describe else {}
        if decision is None:
            used = lifecycle.credentials_of(ctx.principal)
            decision = engine.decide(ctx.org, user, spec, body["type"], params, used, extra, now_ms=ctx.now_ms)
        fingerprint = fingerprint or envelope.fingerprint_of(raw)
        if denied := decision.outcome is Outcome.DENY:  # kept as a record, with ids of its own
            ctx = replace(ctx, source=refusals.denial_source(host.source, host.store, fingerprint, ctx.now_ms))
        activity = envelope.new_activity(ctx, body, raw, keys, fingerprint)
        activity_id = activity.activity_id
        pending = Pending(spec.name, params, keys["resultKey"], ctx.prepared, policy_context=extra)
        lifecycle.begin(ctx, activity, decision, pending, bool(body.get("generateAppProofs")))
    except ApiError:
        if not denied:  # refused at once: the seeded streams go back to where they were
            refusals.undo(host.store, host.source, before, activity_id)
        raise
    host.store.add_activity(activity)
    lifecycle.schedule_wait(activity, lambda: settle_due(host))
    return activity


def vote_by_fingerprint(
    host: Host, principal: auth.Principal, body: Json, raw: bytes, selection: VoteSelection, now: int
) -> Json:
    """approve_activity / reject_activity: a vote on the activity the fingerprint names."""
    target = host.store.activity_by_fingerprint(body["parameters"]["fingerprint"])
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
    cast_vote(host, target, principal, raw, selection, now)
    host.store.fingerprints[envelope.fingerprint_of(raw)] = target.activity_id
    answer = target.to_api(principal.user.user_id, now)
    if mfa_gate.vote_held(host.store, target, principal.user.user_id):
        answer["status"] = mfa_gate.AUTHENTICATORS_NEEDED  # the voter's own MFA holds their vote (mfa docs)
    return {"activity": answer}


def cast_vote(
    host: Host, activity: Activity, principal: auth.Principal, raw: bytes, selection: VoteSelection, now: int
) -> None:
    """The one way a vote is cast: stamped approve_activity, the control API and the Python API."""
    org = host.store.org(activity.organization_id)
    lifecycle.vote(Context(host.store, host.source, now, org, principal, notify=host.notify), activity, raw, selection)


def vote_as(host: Host, activity_id: str, user_ref: str, selection: VoteSelection) -> Json:
    """A vote without a stamp, as the user named by id or name (tests, the control API)."""
    with host.lock:
        activity = find_activity(host.store, activity_id)
        org = host.store.org(activity.organization_id)
        user = org.users.get(user_ref) or next((u for u in org.users.values() if u.name == user_ref), None)
        if user is None:
            raise NotFound(f"user {user_ref} not found in organization {org.organization_id}")
        raw = json.dumps({"simulatorVote": selection.value, "activityId": activity_id}).encode()
        now = host.clock.now_ms()
        cast_vote(host, activity, auth.Principal(org, user, None), raw, selection, now)
        return {"activity": activity.to_api(user.user_id, now)}


def find_activity(store: Store, activity_id: str) -> Activity:
    activity = store.activities.get(activity_id)
    if activity is None:
        raise NotFound(f"no activity found with id {activity_id}")
    return activity


def settle_due(host: Host) -> None:
    """Apply every scripted wait whose time has come (the clock moved, or real time passed)."""
    with host.lock:
        now = host.clock.now_ms()
        for activity in host.store.waiting_activities():
            lifecycle.settle(host.store, host.source, now, activity, host.notify)


def writable_org(store: Store, principal: auth.Principal, target_id: str, spec: Operation) -> Organization:
    """The organization an activity runs in: the target, or the caller's sub-organization.

    A parent's credential writes to a sub-organization only for the authentication activities
    (OTP, OAuth, sessions) that a backend runs on its users' behalf.
    """
    target = store.org(target_id)
    own = principal.organization
    if own.organization_id == target.organization_id or store.is_below(own, target):
        return own
    if spec.parent_may_run and store.is_below(target, own):
        return target
    raise PermissionDenied(
        f"request not authorized: a credential of organization {own.organization_id} cannot write "
        f"to organization {target.organization_id} (parents have read access to sub-organizations only)"
    )


# queries -------------------------------------------------------------------------------------------
def query(
    host: Host,
    op: str,
    raw: bytes,
    headers: Mapping[str, str],
    content_type: str | None,
    record: RequestRecord | None = None,
) -> Json:
    return public(host, Kind.QUERY, op, raw, headers, content_type, record, _query)


def _query(
    host: Host, op: str, raw: bytes, headers: Mapping[str, str], content_type: str | None, seen: list[Json]
) -> Json:
    parsed = parse_body(raw, content_type)
    seen.append(parsed)
    stamp = check_stamp(host, headers, raw)
    body = host.schemas.validate("query", op, parsed)
    spec = operation(host, Kind.QUERY, op)
    now = host.clock.now_ms()
    with host.lock:
        principal = authenticate(host, stamp, headers, raw, body["organizationId"], now, op == "whoami")
        throttle(host, Kind.QUERY, op, body, principal, now)
        if spec.handler is None:
            raise Unimplemented(f"query {op} is part of the public API but not simulated yet")
        target = host.store.org(body["organizationId"])
        org = principal.organization if host.store.is_below(principal.organization, target) else target
        handler: Callable[[QueryContext, Json], Json] = spec.run()
        return handler(QueryContext(host.store, org, principal, now, target, host.source, host.notify), body)


# the auth proxy ------------------------------------------------------------------------------------
def proxy(host: Host, op: str, raw: bytes, headers: Mapping[str, str], record: RequestRecord | None = None) -> Json:
    """``POST /v1/<op>`` on the auth proxy: configuration and origin, schema, endpoint, journal."""
    return journaled(host, record or untimed(Kind.PROXY, op), raw, headers, lambda: _proxy(host, op, raw, headers))


def _proxy(host: Host, op: str, raw: bytes, headers: Mapping[str, str]) -> Json:
    spec = catalogue.get(Kind.PROXY, op)
    if spec is None or spec.handler is None:
        known = ", ".join(o.path for o in catalogue.of_kind(Kind.PROXY) if o.handler)
        raise NotFound(f"unknown auth proxy endpoint /v1/{op}; known: {known}")
    with host.lock:
        config = proxy_config.active(host.store, headers.get("X-Auth-Proxy-Config-Id"))
    origin = headers.get("Origin")
    if not proxy_config.origin_allowed(config, origin):
        raise PermissionDenied(
            f"origin {origin} is not allowed by auth proxy configuration {config['configId']}", error_code="FORBIDDEN"
        )
    captcha.check(config, op, headers)
    body = host.schemas.validate("proxy", op, parse_body(raw, None) if raw.strip() else {})
    endpoint: Callable[[Host, Json, Json], Json] = spec.run()
    return endpoint(host, config, body)


# the journal ---------------------------------------------------------------------------------------
def untimed(kind: Kind, op: str) -> RequestRecord:
    """The record of a request made in process (the Python API, replay, the proxy's own activities)."""
    return RequestRecord("POST", "", kind.value, op)


def journaled(
    host: Host,
    record: RequestRecord,
    raw: bytes,
    headers: Mapping[str, str],
    run: Callable[[], Json],
    seen: list[Json] | None = None,
) -> Json:
    """Run one request and keep it, with its outcome, in ``record``, the journal and the recording.

    ``seen`` receives the body once the request's own parse stage has read it, so nothing
    parses it a second time.
    """
    try:
        if record.fault is not None and record.fault.kind == "unavailable":
            raise faults.ServiceUnavailable(record.fault)  # the service's own error answer; nothing runs
        with request_warnings.collected(f"{record.kind}/{record.op}") as found:
            record.warnings = found  # the list itself: its journal entry reads what the run added, refused or not
            answer = run()
    except ApiError as error:
        finish(host, record, raw, headers, error.status, error.to_body(), seen)
        raise
    except Exception:
        finish(host, record, raw, headers, 500, {"code": 13, "message": "internal server error"}, seen)
        raise
    finish(host, record, raw, headers, 200, answer, seen)
    return answer


def finish(
    host: Host,
    record: RequestRecord,
    raw: bytes,
    headers: Mapping[str, str],
    status: int,
    answer: Json,
    seen: list[Json] | None = None,
) -> None:
    record.size = len(raw)
    record.answered(status, answer, seen[0] if seen else json_or_none(raw))
    keep(host, record, headers)


def keep(host: Host, record: RequestRecord, headers: Mapping[str, str]) -> None:
    """The record's journal entry, and its step in the recording (``serve --record``)."""
    answer = record.answer or {}
    activity = answer.get("activity")
    if isinstance(activity, dict):
        outcome = {"activityId": activity.get("id"), "status": activity.get("status")}
    else:
        outcome = {k: answer[k] for k in ("code", "message") if k in answer}
    body = None if record.body is UNREAD else record.body
    entry = {
        "time": host.clock.now_ms(),
        "kind": record.kind,
        "op": record.op,
        "status": record.status,
        "request": body,
        "outcome": outcome,
    }
    if record.fault is not None:
        entry["fault"] = record.fault.describe()
    if record.warnings:
        entry["warnings"] = list(record.warnings)
    host.journal.record(entry)
    if host.recorder is not None and record.kind != Kind.PROXY.value:
        host.recorder.add(str(record.kind), record.op, body, headers, record.status or 0, answer)
