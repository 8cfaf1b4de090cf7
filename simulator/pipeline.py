"""The one request path every transport uses, and the stages of a request listed once, in order.

A request on a port meets, in this order (each stage is one small function; the left column is where):

    server/host_check.py   1 host       HostCheck: a Host that is not this machine's is refused (403)
    web/app.py             2 size       admit → refuse_oversized: a body over the cap is refused (413)
    web/cors.py            3 cors       check_origin: a preflight answered, a refused origin 403 (journaled)
    faults.py, here        4 faults     picked on the transport's I/O thread (reset, timeout, held, slow);
                                        ``unavailable`` answered here by ``carry_fault``, nothing else runs
    http/request_body.py   5 parse      parse_body: the body's JSON, once
    operations/validation  6 validate   Schemas.validate, against schemas/submit|query/<op>.json
    here, auth/            7 authenticate  check_stamp, then authenticate (and throttle, liveness) under the lock
    consensus/             8 decide     start_activity: a scripted rule, else engine.decide
    consensus/lifecycle.py 9 run        lifecycle.begin → run: the handler (catalogue.resolve)
    here                  10 keep       Kept: the request's log entry, its journal entry, its recording step
    web/app.py            11 answer     json_response: the bytes the transport sends back

``submit``, ``query`` and ``proxy`` below run stages 4 to 10 in that order, each a call on its own line.
They work on ``Services``, what the Simulator (simulator/core.py) owns and hands down: the store and its
lock, the clock, the seeded source, the schemas, the scripted rules, the journal, the recorder, the
listeners. The pipeline never calls the Simulator: it is given what it works on.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Any

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
from simulator.handler_support import envelope, ip_allowlist_check, refusals, request_warnings, session_scope
from simulator.handler_support.context import Context
from simulator.http.log_entry import UNREAD, RequestLogEntry
from simulator.http.request_body import check_timestamp_ms, json_or_none, parse_body
from simulator.journal import Journal
from simulator.operations import catalogue, response_check
from simulator.operations.catalogue import Kind, Operation
from simulator.operations.validation import Schemas
from simulator.queries import QueryContext
from simulator.scenario.recording import Recorder
from simulator.state.activity import Activity, Pending
from simulator.state.store import Organization, Store
from simulator.wire import Json


@dataclass(eq=False)
class Services:
    """What the pipeline works on, owned by the Simulator and handed down (``Simulator.services``).

    The Simulator reads and replaces its store, configuration, rules and recorder here (its attributes of
    those names are views of these), so a reset or an import is seen by the next request."""

    config: Config
    clock: Clock
    source: Source
    schemas: Schemas
    store: Store
    lock: threading.RLock = field(default_factory=threading.RLock)
    journal: Journal = field(default_factory=Journal)
    rules: list[Json] = field(default_factory=list)  # scripted outcomes, from every loaded scenario
    crashes: list[Json] = field(default_factory=list)  # internal failures kept for the test to see
    listeners: list[Callable[[Activity, str], None]] = field(default_factory=list)  # "created", "status"
    recorder: Recorder | None = None  # serve --record

    def notify(self, activity: Activity, event: str) -> None:
        """An activity was requested ("created", also for a repeated request) or changed status."""
        for listener in list(self.listeners):
            listener(activity, event)


# the stages ------------------------------------------------------------------------------------
def operation(services: Services, kind: Kind, op: str) -> Operation:
    found = catalogue.get(kind, op)
    if found is None:
        raise services.schemas.unknown_operation(kind.value, op)
    return found


def authenticate(
    services: Services,
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
        principal = auth.trust_without_verifying(services.store, headers, org_id)
    else:
        principal = auth.authenticate(services.store, stamp, raw, org_id, now_ms, whoami, note_user=note_user)
    ip_allowlist_check.check_request(principal, headers)
    return principal


def throttle(services: Services, kind: Kind, op: str, body: Json, principal: auth.Principal, now_ms: int) -> None:
    """429 when a rate limit or a scripted ``rateLimited`` rule refuses the request (consensus/rate_limits);
    with neither configured (the default) it costs one comparison."""
    if services.config.rate_limits is None and not services.rules:
        return
    target = services.store.org(body["organizationId"])
    request = rate_limits.Request(kind.value, op, body.get("type", ""), body.get("parameters", body))
    rate_limits.check(
        services.rules,
        services.config.rate_limits,
        services.store,
        services.source,
        target,
        principal.user,
        request,
        now_ms,
    )


def check_stamp(services: Services, headers: Mapping[str, str], raw: bytes) -> Stamp | None:
    """The stamp, checked as far as it can be before the body is validated (None: auth off)."""
    return None if services.config.auth == "off" else auth.check_stamp(headers, raw)


def check_liveness(services: Services, timestamp_ms: str, now_ms: int) -> None:
    """The stamp's ``timestampMs`` against real time (the client's clock), or the simulated one if asked."""
    window_ms = services.config.timestamp_window_ms
    if window_ms is None:
        return
    simulated = services.config.liveness_on_simulated_clock
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


def client_time_ms(services: Services) -> int:
    """A ``timestampMs`` the liveness check accepts, for requests the simulator makes itself."""
    return services.clock.now_ms() if services.config.liveness_on_simulated_clock else int(time.time() * 1000)


# activities --------------------------------------------------------------------------------------
def submit(
    services: Services,
    op: str,
    raw: bytes,
    headers: Mapping[str, str],
    content_type: str | None = "application/json",
    entry: RequestLogEntry | None = None,
) -> Json:
    """``POST /public/v1/submit/<op>``: stages 4 to 10 (``entry``: the transport's log entry, if any)."""
    with Kept(services, entry or untimed(Kind.SUBMIT, op), raw, headers) as kept:  # 10 keep, on the way out
        carry_fault(kept.entry)  # 4 faults
        return kept.answer(response_check.checked(services, Kind.SUBMIT, op, run_activity(kept, op, content_type)))


def run_activity(kept: Kept, op: str, content_type: str | None) -> Json:
    """Stages 5 to 9 of an activity: parse, validate, authenticate, decide, run."""
    services, raw, headers = kept.services, kept.raw, kept.headers
    parsed = kept.read(parse_body(raw, content_type))  # 5 parse
    stamp = check_stamp(services, headers, raw)  # 7 authenticate: the stamp's form
    body = services.schemas.validate("submit", op, parsed)  # 6 validate
    spec = operation(services, Kind.SUBMIT, op)
    keys = services.schemas.activity_types(op)[body["type"]]
    fingerprint = envelope.fingerprint_of(raw)
    now = services.clock.now_ms()
    with services.lock:
        principal = authenticate(services, stamp, headers, raw, body["organizationId"], now)  # 7 authenticate
        throttle(services, Kind.SUBMIT, op, body, principal, now)
        existing = services.store.activity_by_fingerprint(fingerprint)
        if existing is not None:
            services.notify(existing, "created")  # a repeated request is a new request (Activity Webhooks guide)
            return {"activity": existing.to_api(principal.user.user_id, now)}
        check_liveness(services, body["timestampMs"], now)
        if spec.vote is not None:
            return vote_by_fingerprint(services, principal, body, raw, VoteSelection(spec.vote), now)
        if spec.handler is None:
            raise Unimplemented(f"activity {op} is part of the public API but not simulated yet")
        org = writable_org(services.store, principal, body["organizationId"], spec)
        scope_ctx = Context(services.store, services.source, now, org, principal, body["type"])
        session_scope.enforce_scope(services.store, principal, spec, body["type"], body["parameters"], scope_ctx)
    prepare = spec.prepare()
    prepared = prepare(services.source, body["parameters"]) if prepare else None
    with services.lock:
        existing = services.store.activity_by_fingerprint(fingerprint)  # an identical body may have won the race
        if existing is not None:
            return {"activity": existing.to_api(principal.user.user_id, now)}
        ctx = Context(services.store, services.source, now, org, principal, body["type"], prepared, services.notify)
        activity = start_activity(services, ctx, spec, body, raw, keys, fingerprint)  # 8 decide, 9 run
        return {"activity": activity.to_api(principal.user.user_id, now)}


def start_activity(
    services: Services,
    ctx: Context,
    spec: Operation,
    body: Json,
    raw: bytes,
    keys: Json,
    fingerprint: str | None = None,
) -> Activity:
    """Decide (scripted rule, else quorum and policies), then complete, wait, or refuse (``fingerprint``: the
    request's, when the caller worked it out)."""
    assert ctx.principal is not None
    params = body["parameters"]
    user = ctx.principal.user
    decision = rules.scripted(services.rules, services.store, services.source, ctx.org, user, body["type"], params)
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
    before = refusals.mark(services.store, services.source)  # after the scripted rule: its counters count refusals too
    denied, activity_id = False, ""
    try:
        describe = spec.describe_for_policies()
        extra: Json = describe(ctx, params) if describe else {}
        if decision is None:
            used = lifecycle.credentials_of(ctx.principal)
            decision = engine.decide(ctx.org, user, spec, body["type"], params, used, extra, now_ms=ctx.now_ms)
        fingerprint = fingerprint or envelope.fingerprint_of(raw)
        if denied := decision.outcome is Outcome.DENY:  # kept as a record, with ids of its own
            ctx = replace(ctx, source=refusals.denial_source(services.source, services.store, fingerprint, ctx.now_ms))
        activity = envelope.new_activity(ctx, body, raw, keys, fingerprint)
        activity_id = activity.activity_id
        pending = Pending(spec.name, params, keys["resultKey"], ctx.prepared, policy_context=extra)
        lifecycle.begin(ctx, activity, decision, pending, bool(body.get("generateAppProofs")))
    except ApiError:
        if not denied:  # refused at once: the seeded streams go back to where they were
            refusals.undo(services.store, services.source, before, activity_id)
        raise
    services.store.add_activity(activity)
    lifecycle.schedule_wait(activity, lambda: settle_due(services))
    return activity


def vote_by_fingerprint(
    services: Services, principal: auth.Principal, body: Json, raw: bytes, selection: VoteSelection, now: int
) -> Json:
    """approve_activity / reject_activity: a vote on the activity the fingerprint names."""
    target = services.store.activity_by_fingerprint(body["parameters"]["fingerprint"])
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
    cast_vote(services, target, principal, raw, selection, now)
    services.store.fingerprints[envelope.fingerprint_of(raw)] = target.activity_id
    answer = target.to_api(principal.user.user_id, now)
    if mfa_gate.vote_held(services.store, target, principal.user.user_id):
        answer["status"] = mfa_gate.AUTHENTICATORS_NEEDED  # the voter's own MFA holds their vote (mfa docs)
    return {"activity": answer}


def cast_vote(
    services: Services, activity: Activity, principal: auth.Principal, raw: bytes, selection: VoteSelection, now: int
) -> None:
    """The one way a vote is cast: stamped approve_activity, the control API and the Python API."""
    org = services.store.org(activity.organization_id)
    lifecycle.vote(
        Context(services.store, services.source, now, org, principal, notify=services.notify), activity, raw, selection
    )


def vote_as(services: Services, activity_id: str, user_ref: str, selection: VoteSelection) -> Json:
    """A vote without a stamp, as the user named by id or name (tests, the control API)."""
    with services.lock:
        activity = find_activity(services.store, activity_id)
        org = services.store.org(activity.organization_id)
        user = org.users.get(user_ref) or next((u for u in org.users.values() if u.name == user_ref), None)
        if user is None:
            raise NotFound(f"user {user_ref} not found in organization {org.organization_id}")
        raw = json.dumps({"simulatorVote": selection.value, "activityId": activity_id}).encode()
        now = services.clock.now_ms()
        cast_vote(services, activity, auth.Principal(org, user, None), raw, selection, now)
        return {"activity": activity.to_api(user.user_id, now)}


def find_activity(store: Store, activity_id: str) -> Activity:
    activity = store.activities.get(activity_id)
    if activity is None:
        raise NotFound(f"no activity found with id {activity_id}")
    return activity


def settle_due(services: Services) -> None:
    """Apply every scripted wait whose time has come (the clock moved, or real time passed)."""
    with services.lock:
        now = services.clock.now_ms()
        for activity in services.store.waiting_activities():
            lifecycle.settle(services.store, services.source, now, activity, services.notify)


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
    services: Services,
    op: str,
    raw: bytes,
    headers: Mapping[str, str],
    content_type: str | None = "application/json",
    entry: RequestLogEntry | None = None,
) -> Json:
    """``POST /public/v1/query/<op>``: stages 4 to 10, as ``submit``."""
    with Kept(services, entry or untimed(Kind.QUERY, op), raw, headers) as kept:  # 10 keep, on the way out
        carry_fault(kept.entry)  # 4 faults
        return kept.answer(response_check.checked(services, Kind.QUERY, op, run_query(kept, op, content_type)))


def run_query(kept: Kept, op: str, content_type: str | None) -> Json:
    """Stages 5 to 9 of a query: parse, validate, authenticate, run (a query decides nothing)."""
    services, raw, headers = kept.services, kept.raw, kept.headers
    parsed = kept.read(parse_body(raw, content_type))  # 5 parse
    stamp = check_stamp(services, headers, raw)
    body = services.schemas.validate("query", op, parsed)  # 6 validate
    spec = operation(services, Kind.QUERY, op)
    now = services.clock.now_ms()
    with services.lock:
        principal = authenticate(services, stamp, headers, raw, body["organizationId"], now, op == "whoami")  # 7
        throttle(services, Kind.QUERY, op, body, principal, now)
        if spec.handler is None:
            raise Unimplemented(f"query {op} is part of the public API but not simulated yet")
        target = services.store.org(body["organizationId"])
        org = principal.organization if services.store.is_below(principal.organization, target) else target
        handler: Callable[[QueryContext, Json], Json] = spec.handler_function()
        ctx = QueryContext(services.store, org, principal, now, target, services.source, services.notify)
        return handler(ctx, body)  # 9 run


# the auth proxy ------------------------------------------------------------------------------------
def proxy(
    services: Services, op: str, raw: bytes, headers: Mapping[str, str], entry: RequestLogEntry | None = None
) -> Json:
    """``POST /v1/<op>`` on the auth proxy: configuration and origin, schema, endpoint, journal."""
    with Kept(services, entry or untimed(Kind.PROXY, op), raw, headers, public=False) as kept:
        carry_fault(kept.entry)  # 4 faults
        return kept.answer(run_proxy(services, op, raw, headers))


def run_proxy(services: Services, op: str, raw: bytes, headers: Mapping[str, str]) -> Json:
    spec = catalogue.get(Kind.PROXY, op)
    if spec is None or spec.handler is None:
        known = ", ".join(o.path for o in catalogue.of_kind(Kind.PROXY) if o.handler)
        raise NotFound(f"unknown auth proxy endpoint /v1/{op}; known: {known}")
    with services.lock:
        config = proxy_config.active(services.store, headers.get("X-Auth-Proxy-Config-Id"))
    origin = headers.get("Origin")
    if not proxy_config.origin_allowed(config, origin):
        raise PermissionDenied(
            f"origin {origin} is not allowed by auth proxy configuration {config['configId']}", error_code="FORBIDDEN"
        )
    captcha.check(config, op, headers)
    body = services.schemas.validate("proxy", op, parse_body(raw, None) if raw.strip() else {})
    endpoint: Callable[[Services, Json, Json], Json] = spec.handler_function()
    return endpoint(services, config, body)


# stage 4 (faults) and stage 10 (keep) --------------------------------------------------------------
def carry_fault(entry: RequestLogEntry) -> None:
    """A request the transport gave the ``unavailable`` fault gets the service's own error answer; nothing runs
    (the other kinds are the transport's to carry: simulator/faults.py)."""
    if entry.fault is not None and entry.fault.kind == "unavailable":
        raise faults.ServiceUnavailable(entry.fault)


def untimed(kind: Kind, op: str) -> RequestLogEntry:
    """The log entry of a request made in process (the Python API, replay, the proxy's own activities)."""
    return RequestLogEntry("POST", "", kind.value, op)


class Kept:
    """``with Kept(...) as kept:`` around a request's stages: whatever they end in (an answer, a refusal, a
    crash), on the way out the request is kept in its log entry, the journal and the recording.

    ``read`` takes the body once the parse stage has read it, so nothing parses it a second time; a public
    call's lookup that failed on an id that is not a UUID answers "malformed" (the errors page)."""

    __slots__ = ("_warnings", "body", "entry", "headers", "public", "raw", "result", "services")

    def __init__(
        self,
        services: Services,
        entry: RequestLogEntry,
        raw: bytes,
        headers: Mapping[str, str],
        public: bool = True,
    ) -> None:
        self.services, self.entry, self.raw, self.headers, self.public = services, entry, raw, headers, public
        self.body: Any = UNREAD
        self.result: Json | None = None

    def read(self, body: Json) -> Json:
        self.body = body
        return body

    def answer(self, result: Json) -> Json:
        self.result = result
        return result

    def __enter__(self) -> Kept:
        self._warnings = request_warnings.collected(f"{self.entry.kind}/{self.entry.op}")
        # the list itself: the journal entry reads what the run added, refused or not
        self.entry.warnings = self._warnings.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._warnings.__exit__(kind, error, trace)
        seen = [] if self.body is UNREAD else [self.body]
        if error is None:
            assert self.result is not None
            finish(self.services, self.entry, self.raw, self.headers, 200, self.result, seen)
        elif isinstance(error, ApiError):
            if self.public and isinstance(error, NotFound):
                entry = self.entry
                found = self.services.schemas.not_found_or_malformed(str(entry.kind), entry.op, seen, error)
                if found is not error:
                    finish(self.services, entry, self.raw, self.headers, found.status, found.to_body(), seen)
                    raise found from None
            finish(self.services, self.entry, self.raw, self.headers, error.status, error.to_body(), seen)
        elif isinstance(error, Exception):
            finish(self.services, self.entry, self.raw, self.headers, 500, INTERNAL_ERROR, seen)


INTERNAL_ERROR: Json = {"code": 13, "message": "internal server error"}


def finish(
    services: Services,
    entry: RequestLogEntry,
    raw: bytes,
    headers: Mapping[str, str],
    status: int,
    answer: Json,
    seen: list[Json] | None = None,
) -> None:
    """Stage 10 for a request answered ``status``: its log entry, then its journal entry and recording step."""
    entry.size = len(raw)
    entry.answered(status, answer, seen[0] if seen else json_or_none(raw))
    keep(services, entry, headers)


def keep(services: Services, entry: RequestLogEntry, headers: Mapping[str, str]) -> None:
    """The request's journal entry, and its step in the recording (``serve --record``)."""
    answer = entry.answer or {}
    activity = answer.get("activity")
    if isinstance(activity, dict):
        outcome = {"activityId": activity.get("id"), "status": activity.get("status")}
    else:
        outcome = {k: answer[k] for k in ("code", "message") if k in answer}
    body = None if entry.body is UNREAD else entry.body
    kept = {
        "time": services.clock.now_ms(),
        "kind": entry.kind,
        "op": entry.op,
        "status": entry.status,
        "request": body,
        "outcome": outcome,
    }
    if entry.fault is not None:
        kept["fault"] = entry.fault.describe()
    if entry.warnings:
        kept["warnings"] = list(entry.warnings)
    services.journal.append(kept)
    if services.recorder is not None and entry.kind != Kind.PROXY.value:
        services.recorder.add(str(entry.kind), entry.op, body, headers, entry.status or 0, answer)
