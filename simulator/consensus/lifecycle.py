"""An activity's life after its decision: waiting, consensus, votes, completion or failure."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from simulator.auth import Principal
from simulator.clock import Source
from simulator.consensus import engine, mfa_gate
from simulator.consensus.decisions import Decision, Outcome, VoteSelection
from simulator.consensus.explain import considered_note, error_note
from simulator.errors import ApiError, InvalidArgument, PermissionDenied
from simulator.handler_support import envelope, refusals
from simulator.handler_support.context import Context
from simulator.operations import catalogue
from simulator.operations.catalogue import Kind, Operation
from simulator.state.activity import CONSENSUS_NEEDED, Activity, ActivityStatus, Pending
from simulator.state.store import Store
from simulator.wire import Json

COMPLETED, FAILED = ActivityStatus.COMPLETED.value, ActivityStatus.FAILED.value
REJECTED, AUTHENTICATORS_NEEDED = ActivityStatus.REJECTED.value, ActivityStatus.AUTHENTICATORS_NEEDED.value
APPROVED = VoteSelection.APPROVE.value
DENIED_MESSAGE = (
    "You don't have sufficient permissions to take this action. Please add a policy granting this "
    "user permissions. Learn more at https://docs.turnkey.com/concepts/policies/quickstart."
)


def begin(ctx: Context, activity: Activity, decision: Decision, pending: Pending, proofs: bool) -> None:
    """Apply a new activity's decision; a denial raises PermissionDenied after keeping the record."""
    activity.decided_by = decision.decided_by
    activity.pending = pending
    pending.governance = {**decision.governance, "proofs": proofs, "credentials": credentials_of(ctx.principal)}
    envelope.record_evaluation(ctx, activity, decision.evaluations)
    for error in decision.errors:  # why a policy errored, for explain
        activity.notes.append(error_note(error))
    if decision.outcome is Outcome.DENY or decision.errors:  # each policy considered, for explain
        activity.notes.extend(considered_note(policy) for policy in decision.considered)
    if decision.outcome is Outcome.DENY:
        deny(ctx, activity, decision)
    if mfa_gate.challenge(ctx.store, activity, ctx.principal):
        mfa_gate.hold(activity, decision)
    else:
        begin_outcome(ctx, activity, decision, pending)
    ctx.tell(activity, "created")


def begin_outcome(
    ctx: Context, activity: Activity, decision: Decision, pending: Pending, immediate: bool = True
) -> None:
    wait = decision.wait
    if wait:
        pending.final = {"outcome": decision.outcome.value, "failure": decision.failure}
        pending.start_wait(wait.status, wait.polls, wait.seconds, ctx.now_ms)
        activity.status = wait.status
        activity.notes.append(f"waiting ({describe(wait)}) before: {decision.outcome.value}")
        if not immediate:
            ctx.tell(activity, "status")
        return
    apply(ctx, activity, decision.outcome, decision.failure, immediate=immediate)


def release_mfa(ctx: Context, activity: Activity) -> None:
    """The requester's MFA is met: the decision it held back applies now (a later change, so an event)."""
    decision = mfa_gate.release(activity)
    assert activity.pending is not None
    begin_outcome(ctx, activity, decision, activity.pending, immediate=False)


def describe(wait: object) -> str:
    return ", ".join(f"{k}: {v}" for k, v in vars(wait).items() if v is not None)


def schedule_wait(activity: Activity, settle_due: Callable[[], None]) -> None:
    """Settle a wait on simulated seconds when real time reaches it (the clock moving settles it too)."""
    ready_at_ms = wait_due_ms(activity)
    if ready_at_ms is None:
        return
    delay = max(0.0, (ready_at_ms - int(time.time() * 1000)) / 1000)
    timer = threading.Timer(delay + 0.005, settle_due)
    timer.daemon = True
    timer.start()


def deny(ctx: Context, activity: Activity, decision: Decision) -> None:
    activity.status = FAILED
    activity.failure = {"code": 7, "message": DENIED_MESSAGE, "details": []}
    activity.pending = None
    ctx.store.activities[activity.activity_id] = activity  # kept for get_activity / get_policy_evaluations,
    ctx.org.activities[activity.activity_id] = activity  # but not by fingerprint: a re-post is judged again
    ctx.tell(activity, "created")
    raise PermissionDenied(
        DENIED_MESSAGE,
        error_code="FORBIDDEN",
        details=[
            {
                "@type": "type.googleapis.com/errors.v1.PolicyEnginePermissionError",
                "message": f"No policies evaluated to outcome: Allow ({decision.decided_by})",
                "activityId": activity.activity_id,
                "policyEvaluations": decision.evaluations,
            }
        ],
    )


def apply(ctx: Context, activity: Activity, outcome: Outcome, failure: Json | None, immediate: bool) -> None:
    """Move the activity to the state its outcome calls for (a later change is an event)."""
    activity.updated_ms = ctx.now_ms
    before = activity.status
    if outcome is Outcome.ALLOW:
        run(ctx, activity, immediate)
    elif outcome is Outcome.CONSENSUS:
        activity.status = CONSENSUS_NEEDED
    elif outcome is Outcome.REJECT:
        activity.status, activity.pending = REJECTED, None
    else:
        activity.status, activity.failure, activity.pending = FAILED, failure, None
    if not immediate and activity.status != before:
        ctx.tell(activity, "status")


def run(ctx: Context, activity: Activity, immediate: bool) -> None:
    """Carry out the activity. Refused at once it is an HTTP error; refused later, a FAILED activity."""
    pending = activity.pending
    assert pending is not None
    handler_ctx = Context(
        ctx.store,
        ctx.source,
        ctx.now_ms,
        ctx.org,
        requester(ctx, activity),
        activity.activity_type,
        pending.prepared,
        memo=ctx.memo,  # what the policy context worked out in this request
    )
    before = refusals.mark(ctx.store, ctx.source)
    try:
        result = spec_of(pending).handler_function()(handler_ctx, pending.params)
    except ApiError as exc:
        refusals.undo(ctx.store, ctx.source, before)  # what the refused handler drew goes back
        if immediate:
            raise
        activity.status, activity.pending = FAILED, None
        activity.failure = {"code": exc.grpc_code, "message": exc.message, "details": exc.to_body()["details"]}
        return
    envelope.complete(activity, pending.result_key, result, ctx.now_ms)
    if pending.governance.get("proofs"):
        activity.app_proofs.append(envelope.app_proof(ctx.source, activity, result))
    activity.pending = None


def requester(ctx: Context, activity: Activity) -> Principal | None:
    if ctx.principal is not None and ctx.principal.user.user_id == activity.requester_id:
        return ctx.principal.for_handler()  # what the handler reads of its requester, it fetches
    user = ctx.org.users.get(activity.requester_id or "")
    return Principal(ctx.org, user, None) if user else None


def count_poll(
    store: Store, source: Source, now_ms: int, activity: Activity, notify: Callable[[Activity, str], None] | None
) -> None:
    """The one documented way a read writes: a poll counts toward an "after N polls" wait."""
    pending = activity.pending
    if pending is None or pending.final is None or pending.wait is None:
        return
    wait, end = pending.wait, pending.wait.steps[-1]
    if not wait.waits_on_polls(end):
        return
    wait.count_poll()
    if wait.due_by_polls(end):
        end_wait(store, source, now_ms, activity, notify)


def settle(
    store: Store, source: Source, now_ms: int, activity: Activity, notify: Callable[[Activity, str], None] | None
) -> None:
    """A wait on simulated seconds ends once the clock reaches it (the clock moved, or real time passed)."""
    ready_at_ms = wait_due_ms(activity)
    if ready_at_ms is not None and now_ms >= ready_at_ms:
        end_wait(store, source, now_ms, activity, notify)


def wait_due_ms(activity: Activity) -> int | None:
    """When a waiting activity's seconds fall due (None: it waits on none, or no longer waits)."""
    pending = activity.pending
    if pending is None or pending.final is None or pending.wait is None:
        return None
    return pending.wait.due_ms(pending.wait.steps[-1])


def end_wait(
    store: Store, source: Source, now_ms: int, activity: Activity, notify: Callable[[Activity, str], None] | None
) -> None:
    pending = activity.pending
    assert pending is not None and pending.final is not None
    final, pending.final = pending.final, None
    org = store.org(activity.organization_id)
    ctx = Context(store, source, now_ms, org, None, activity.activity_type, notify=notify)
    activity.notes.append(f"wait over: {final['outcome']}")
    apply(ctx, activity, Outcome(final["outcome"]), final["failure"], immediate=False)


def spec_of(pending: Pending) -> Operation:
    spec = catalogue.get(Kind.SUBMIT, pending.op)
    assert spec is not None, pending.op
    return spec


def vote(ctx: Context, activity: Activity, raw: bytes, selection: VoteSelection) -> None:
    """Record an approval or rejection by ``ctx.principal`` and move the activity on."""
    principal = ctx.principal
    assert principal is not None
    if activity.status == AUTHENTICATORS_NEEDED:
        requester_mfa_vote(ctx, activity, principal, selection)
        return
    check_vote(activity, principal, ctx.now_ms)
    if selection is VoteSelection.APPROVE and voter_held_by_mfa(ctx, activity, principal):
        return
    ballot = envelope.vote(ctx, principal, activity, raw, selection.value)
    activity.votes.append(ballot)
    activity.updated_ms = ctx.now_ms
    pending = activity.pending
    assert pending is not None
    pending.governance.setdefault("credentials", []).extend(credentials_of(principal))
    if selection is VoteSelection.REJECT:
        record_vote(ctx, activity, ballot, "OUTCOME_REJECTED")
        activity.notes.append(f"rejected by {principal.user.name} ({principal.user.user_id})")
        apply(ctx, activity, Outcome.REJECT, None, immediate=False)
        return
    approvals = sum(v["selection"] == APPROVED for v in activity.votes)
    if approvals > 1 and activity.live_approvals(ctx.now_ms) == [ballot]:
        activity.notes.append("earlier approvals expired (24 h after the first vote); this approval opens a new window")
    met = consensus_met(ctx, activity)
    record_vote(ctx, activity, ballot, "OUTCOME_ALLOW" if met else "OUTCOME_REQUIRES_CONSENSUS")
    activity.notes.append(f"approved by {principal.user.name} ({principal.user.user_id})")
    if met:
        apply(ctx, activity, Outcome.ALLOW, None, immediate=False)


def requester_mfa_vote(ctx: Context, activity: Activity, principal: Principal, selection: VoteSelection) -> None:
    """While the requester's MFA is unmet only they act: an approval proves a step, a rejection ends it."""
    if principal.user.user_id != activity.requester_id:
        raise PermissionDenied(
            f"activity {activity.activity_id} is waiting for its requester's MFA: only the requester "
            f"({activity.requester_id}) can approve or reject it until then"
        )
    activity.updated_ms = ctx.now_ms
    if selection is VoteSelection.REJECT:
        activity.notes.append(f"rejected by its requester {principal.user.name} during MFA")
        apply(ctx, activity, Outcome.REJECT, None, immediate=False)
    elif mfa_gate.satisfy(ctx.store, activity.activity_id, principal):
        release_mfa(ctx, activity)


def voter_held_by_mfa(ctx: Context, activity: Activity, principal: Principal) -> bool:
    """A voter's own MFA policy holds their approval back until its steps are met."""
    user_id = principal.user.user_id
    if mfa_gate.open_status(ctx.store, activity.activity_id, user_id) is not None:
        return not mfa_gate.satisfy(ctx.store, activity.activity_id, principal)
    return mfa_gate.challenge(ctx.store, activity, principal)


def check_vote(activity: Activity, principal: Principal, now_ms: int) -> None:
    user = principal.user
    if activity.organization_id != principal.organization.organization_id:
        raise InvalidArgument(
            f"organization mismatch: request is targeting organization ({activity.organization_id}), but voters "
            f"are in organization ({principal.organization.organization_id})",
            error_code="ORGANIZATION_MISMATCH",
        )
    if activity.status != CONSENSUS_NEEDED:
        raise InvalidArgument(
            f"activity {activity.activity_id} is {activity.status}: only an activity awaiting "
            "consensus can be approved or rejected"
        )
    if any(v["userId"] == user.user_id for v in activity.live_approvals(now_ms)):  # an expired one may be cast again
        raise InvalidArgument(f"user {user.user_id} has already voted on activity {activity.activity_id}")
    eligible = activity.pending.governance.get("eligible") if activity.pending else None
    if eligible is not None and user.user_id not in eligible:  # not can_vote: an expired approval may be cast again
        raise PermissionDenied(
            f"request not authorized: user {user.user_id} is not among the approvers of activity {activity.activity_id}"
        )


def consensus_met(ctx: Context, activity: Activity) -> bool:
    pending = activity.pending
    assert pending is not None
    live = activity.live_approvals(ctx.now_ms)
    approvers = [ctx.org.users[v["userId"]] for v in live if v["userId"] in ctx.org.users]
    return engine.consensus_met(
        ctx.org,
        pending.governance,
        spec_of(pending),
        activity.activity_type,
        pending.params,
        approvers,
        pending.governance.get("credentials", []),
        activity.requester_id,
        pending.policy_context,
        now_ms=ctx.now_ms,
    )


def record_vote(ctx: Context, activity: Activity, ballot: Json, outcome: str) -> None:
    envelope.record_evaluation(ctx, activity, [{"outcome": outcome}], vote_id=ballot["id"])


def credentials_of(principal: Principal | None) -> list[Json]:
    if principal is None:
        return []
    return engine.credential(principal.user, principal.credential_id)
