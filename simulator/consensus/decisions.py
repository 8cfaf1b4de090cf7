"""Decisions as values: what the engine, scripted rules and votes hand each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from simulator.state.activity import ActivityStatus
from simulator.wire import Json


class Outcome(str, Enum):
    """How a request ends up: at once, after a wait, or after approvals."""

    ALLOW = "allow"
    CONSENSUS = "consensus"
    DENY = "deny"
    REJECT = "reject"
    FAIL = "fail"


class VoteSelection(str, Enum):
    APPROVE = "VOTE_SELECTION_APPROVED"
    REJECT = "VOTE_SELECTION_REJECTED"


@dataclass(frozen=True)
class Wait:
    """A scripted wait before the outcome applies: N polls of get_activity, or simulated seconds.

    The lifecycle runs it as a status track (``Pending.start_wait``, simulator.state.status_track),
    the record the long tail's and the broadcast stand-in's scripted statuses move on too."""

    polls: int | None = None
    seconds: float | None = None
    status: str = ActivityStatus.PENDING.value

    @classmethod
    def from_rule(cls, after: Json | None) -> Wait | None:
        if not after:
            return None
        return cls(after.get("polls"), after.get("seconds"), after.get("status", ActivityStatus.PENDING.value))


@dataclass
class Decision:
    outcome: Outcome
    evaluations: list[Json]
    decided_by: str
    governance: Json = field(default_factory=dict)  # by, eligible, threshold, approvers, approvals
    failure: Json | None = None
    wait: Wait | None = None
    errors: list[Json] = field(default_factory=list)  # policies that errored: policyId, policyName, reason
    # every policy evaluated: policyId, policyName, effect, outcome (NOT_APPLICABLE when its condition does
    # not match), and for an error its reason and clause, and any warnings (simulator.policy.lint)
    considered: list[Json] = field(default_factory=list)
