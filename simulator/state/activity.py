"""Activities as stored: the wire fields, plus what a waiting activity still needs."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from simulator.state.records import Json, timestamp


class ActivityStatus(str, Enum):
    """The wire statuses; records keep the plain ``.value`` string."""

    CREATED = "ACTIVITY_STATUS_CREATED"
    PENDING = "ACTIVITY_STATUS_PENDING"
    CONSENSUS_NEEDED = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    COMPLETED = "ACTIVITY_STATUS_COMPLETED"
    FAILED = "ACTIVITY_STATUS_FAILED"
    REJECTED = "ACTIVITY_STATUS_REJECTED"


CONSENSUS_NEEDED = ActivityStatus.CONSENSUS_NEEDED.value


@dataclass
class Pending:
    """What a waiting activity waits for, and what runs when the wait ends (never on the wire)."""

    op: str
    params: Json
    result_key: str | None
    prepared: Any = None
    governance: Json = field(default_factory=dict)  # by, eligible, threshold, approvers, approvals
    final: Json | None = None  # a scripted outcome applied once the wait is over
    polls_left: int | None = None
    ready_at_ms: int | None = None
    policy_context: Json = field(default_factory=dict)  # eth.tx, wallet, ...: what policies read, kept for votes


@dataclass
class Activity:
    activity_id: str
    organization_id: str
    activity_type: str
    intent: Json
    fingerprint: str
    timestamp_ms: str
    created_ms: int
    requester_id: str | None
    status: str = "ACTIVITY_STATUS_COMPLETED"
    result: Json = field(default_factory=dict)
    votes: list[Json] = field(default_factory=list)
    app_proofs: list[Json] = field(default_factory=list)
    failure: Json | None = None
    updated_ms: int = 0
    pending: Pending | None = None
    decided_by: str = ""
    notes: list[str] = field(default_factory=list)

    def to_api(self, viewer_id: str | None = None) -> Json:
        """The wire activity, with the service's extras (timestampMs, result.activity)."""
        core = self._core(viewer_id)
        if self.result:
            core["result"] = {**self.result, "activity": dict(core)}
        return core

    def can_vote(self, user_id: str | None) -> bool:
        """Whether ``user_id`` may still approve or reject (eligible, not yet voted)."""
        if self.status != CONSENSUS_NEEDED or user_id is None or self.pending is None:
            return False
        eligible = self.pending.governance.get("eligible")
        voted = any(v["userId"] == user_id for v in self.votes)
        return not voted and (eligible is None or user_id in eligible)

    def _core(self, viewer_id: str | None) -> Json:
        mine = viewer_id is not None and viewer_id == self.requester_id
        can_vote = self.can_vote(viewer_id)
        out: Json = {
            "id": self.activity_id,
            "organizationId": self.organization_id,
            "status": self.status,
            "type": self.activity_type,
            "intent": self.intent,
            "result": dict(self.result),
            "votes": self.votes,
            "fingerprint": self.fingerprint,
            # The service shows the requester of a finished activity canApprove false and
            # canReject true (real fixture in the reference notes).
            "canApprove": can_vote,
            "canReject": can_vote or mine,
            "createdAt": timestamp(self.created_ms),
            "updatedAt": timestamp(self.updated_ms or self.created_ms),
            "failure": self.failure,
            "timestampMs": self.timestamp_ms,
        }
        if self.app_proofs:
            out["appProofs"] = self.app_proofs
        return out
