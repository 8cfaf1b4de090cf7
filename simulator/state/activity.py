"""Activities as stored: a compact record whose wire view is computed on read.

An activity keeps its request body once, as text: the requester's vote message is that same
string, and once the activity is settled its intent and ``timestampMs`` are read back from it
(kept apart only while they could still differ: a waiting activity, or a handler that changed
its parameters). The result is kept as compact JSON text. Votes and policy evaluations are
slotted records that render their wire shape on read; they answer ``vote["userId"]`` and
``.get(...)`` like the dicts they replace. Settled activities are never changed again, so
snapshots share them instead of copying them.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from simulator.state.records import timestamp
from simulator.state.status_track import StatusTrack
from simulator.state.votes import wire
from simulator.wire import Json, drop_nulls, read_json

_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
# The body compact() just read back, handed to the next _body() of the same request once: a submission
# compacts its activity and then answers with it, and this spares the answer a second parse. A deque of one:
# append and pop are atomic, so one reader at most takes it; a body taken is never handed out again.
_READ_BACK: deque[tuple[str, Json]] = deque(maxlen=1)


class ActivityStatus(str, Enum):
    """The wire statuses; records keep the plain ``.value`` string."""

    CREATED = "ACTIVITY_STATUS_CREATED"
    PENDING = "ACTIVITY_STATUS_PENDING"
    CONSENSUS_NEEDED = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    COMPLETED = "ACTIVITY_STATUS_COMPLETED"
    FAILED = "ACTIVITY_STATUS_FAILED"
    REJECTED = "ACTIVITY_STATUS_REJECTED"
    AUTHENTICATORS_NEEDED = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"  # the requester's MFA steps are not met yet


CONSENSUS_NEEDED = ActivityStatus.CONSENSUS_NEEDED.value
APPROVED = "VOTE_SELECTION_APPROVED"
# activities overview: "approvals expire 24 hours after the first vote if consensus is not reached"
APPROVAL_WINDOW_MS = 24 * 3600 * 1000
WAIT_OVER = "WAIT_OVER"  # the last step of a scripted wait (never on the wire: the outcome applies then)
FINAL_STATUSES = frozenset({ActivityStatus.COMPLETED.value, ActivityStatus.FAILED.value, ActivityStatus.REJECTED.value})


@dataclass
class Pending:
    """What a waiting activity waits for, and what runs when the wait ends (never on the wire)."""

    op: str
    params: Json
    result_key: str | None
    prepared: Any = None
    governance: Json = field(default_factory=dict)  # by, eligible, threshold, approvers, approvals
    final: Json | None = None  # a scripted outcome applied once the wait is over
    wait: StatusTrack | None = None  # the scripted wait before ``final``: over once its last step is reached
    policy_context: Json = field(default_factory=dict)  # eth.tx, wallet, ...: what policies read, kept for votes
    mfa_hold: Json | None = None  # the decision (outcome, failure, wait) that applies once the requester's MFA is met

    def start_wait(self, status: str, polls: int | None, seconds: float | None, now_ms: int) -> None:
        """Wait in ``status`` until ``polls`` polls or ``seconds`` (neither: until something else moves it)."""
        after = {name: value for name, value in (("polls", polls), ("seconds", seconds)) if value is not None}
        steps: list[Json] = [{"status": status}, *([{"status": WAIT_OVER, "after": after}] if after else [])]
        self.wait = StatusTrack.start(steps, now_ms)

    # the form state documents keep: what is left of the wait, as it always was ----------------------
    def wait_document(self) -> tuple[int | None, int | None]:
        """``(polls_left, ready_at_ms)``: the polls still to come and when the seconds fall due."""
        if self.wait is None:
            return None, None
        end = self.wait.steps[-1]
        polls_left = end["after"]["polls"] - self.wait.polls if self.wait.waits_on_polls(end) else None
        return polls_left, self.wait.due_ms(end)

    @staticmethod
    def wait_from_document(polls_left: int | None, ready_at_ms: int | None) -> StatusTrack | None:
        if polls_left is None and ready_at_ms is None:
            return None
        after = {"polls": polls_left} if polls_left is not None else {}
        if ready_at_ms is not None:
            after["seconds"] = 0  # due when the track starts: the document keeps the due time itself
        # the waiting status itself is the activity's (``Activity.status``), not the document's
        return StatusTrack([{"status": ""}, {"status": WAIT_OVER, "after": after}], ready_at_ms or 0)


@dataclass(slots=True, eq=False)
class Activity:
    """One activity. Read ``intent``, ``result``, ``timestamp_ms``, ``notes`` and ``app_proofs``
    through their properties; the fields below are the compact storage."""

    activity_id: str
    organization_id: str
    activity_type: str
    fingerprint: str
    created_ms: int
    requester_id: str | None
    request: str = ""  # the request body as sent ("" when unknown: a document of an older version)
    intent_key: str = ""
    kept_intent: Json | None = None  # None once it is read back from ``request``
    kept_timestamp: str | None = None  # likewise for timestampMs
    status: str = "ACTIVITY_STATUS_COMPLETED"
    result_json: str = ""  # compact JSON of the result object; "" for none
    kept_result: Json | None = None  # a result JSON cannot hold as text (kept as the handler made it)
    votes: list[Any] = field(default_factory=list)  # Vote records (dicts in older documents)
    failure: Json | None = None
    updated_ms: int = 0
    pending: Pending | None = None
    decided_by: str = ""
    kept_notes: list[str] | None = None
    kept_proofs: list[Json] | None = None

    @classmethod
    def new(cls, activity_id: str, organization_id: str, activity_type: str, intent: Json, **fields: Any) -> Activity:
        """An activity as a request makes it (its intent kept until it settles)."""
        key = next(iter(intent), "") if len(intent) == 1 else ""
        return cls(
            activity_id, organization_id, sys.intern(activity_type), intent_key=sys.intern(key), kept_intent=intent,
            **fields,
        )  # fmt: skip

    # derived views ---------------------------------------------------------------------------
    @property
    def intent(self) -> Json:
        if self.kept_intent is not None:
            return self.kept_intent
        return {self.intent_key: self._body().get("parameters")}

    @intent.setter
    def intent(self, value: Json) -> None:
        self.kept_intent = value

    @property
    def timestamp_ms(self) -> str:
        if self.kept_timestamp is not None:
            return self.kept_timestamp
        return str(self._body().get("timestampMs", ""))

    @timestamp_ms.setter
    def timestamp_ms(self, value: str) -> None:
        self.kept_timestamp = value

    @property
    def result(self) -> Json:
        if self.kept_result is not None:
            return self.kept_result
        return read_json(self.result_json) if self.result_json else {}

    @result.setter
    def result(self, value: Json) -> None:
        self.kept_result, self.result_json = None, ""
        try:
            self.result_json = _COMPACT_JSON.encode(value) if value else ""
        except (TypeError, ValueError):
            self.kept_result = value

    @property
    def notes(self) -> list[str]:
        return self.kept_notes if self.kept_notes is not None else _Unkept(self, "kept_notes")

    @property
    def app_proofs(self) -> list[Json]:
        return self.kept_proofs if self.kept_proofs is not None else _Unkept(self, "kept_proofs")

    @property
    def final(self) -> bool:
        """Completed, failed or rejected, nothing left to run: never written again."""
        return self.pending is None and self.status in FINAL_STATUSES

    @property
    def settled(self) -> bool:
        """Final and compacted: never changed again, so snapshots may share it."""
        return self.pending is None and self.kept_intent is None and self.status in FINAL_STATUSES

    def _body(self) -> Json:
        try:
            request, body = _READ_BACK.pop()
        except IndexError:
            pass
        else:
            if request is self.request:
                return body
        try:
            body = read_json(self.request)
        except ValueError:
            return {}
        if not isinstance(body, dict):
            return {}
        # text without the literal null holds no None: drop_nulls would only copy what was just made
        return drop_nulls(body) if "null" in self.request else body

    def compact(self) -> bool:
        """Read the intent and timestampMs back from the request from now on, if the activity is
        final and they are exactly what the request says; True when it is (then it is settled)."""
        if self.kept_intent is None:
            return self.settled
        if self.pending is not None or self.status not in FINAL_STATUSES or not self.intent_key:
            return False
        body = self._body()
        if body.get("timestampMs") != self.timestamp_ms or {self.intent_key: body.get("parameters")} != self.intent:
            return False
        self.kept_intent = self.kept_timestamp = None
        _READ_BACK.append((self.request, body))
        return True

    # the wire ---------------------------------------------------------------------------------
    def to_api(self, viewer_id: str | None = None, now_ms: int | None = None) -> Json:
        """The wire activity, with the service's extras (timestampMs, result.activity); ``canApprove`` and
        ``canReject`` as ``viewer_id`` sees them at ``now_ms`` (expired approvals may be cast again)."""
        result = self.result
        core = self._core(viewer_id, result, now_ms)
        if result:
            core["result"] = {**result, "activity": dict(core)}
        return core

    def can_vote(self, user_id: str | None, now_ms: int | None = None) -> bool:
        """Whether ``user_id`` may still approve or reject (eligible, no vote that still counts at ``now_ms``:
        an approval older than the approval window may be cast again; without ``now_ms`` every vote counts)."""
        if self.status != CONSENSUS_NEEDED or user_id is None or self.pending is None:
            return False
        eligible = self.pending.governance.get("eligible")
        counted = self.votes if now_ms is None else self.live_approvals(now_ms)
        voted = any(v["userId"] == user_id for v in counted)
        return not voted and (eligible is None or user_id in eligible)

    def live_approvals(self, now_ms: int) -> list[Json]:
        """The approvals that still count. The first opens a 24-hour window; an approval cast after the
        window closed finds the earlier ones expired and opens the next (the requester's submission is
        the first approval). The activity itself never expires: it stays CONSENSUS_NEEDED."""
        live: list[Json] = []
        opened: int | None = None
        for ballot in self.votes:
            if ballot["selection"] != APPROVED:
                continue
            cast = int(getattr(ballot, "created_ms", now_ms))
            if opened is None or cast - opened > APPROVAL_WINDOW_MS:
                opened, live = cast, []
            live.append(ballot)
        return [] if opened is None or now_ms - opened > APPROVAL_WINDOW_MS else live

    def _core(self, viewer_id: str | None, result: Json, now_ms: int | None = None) -> Json:
        mine = viewer_id is not None and viewer_id == self.requester_id
        can_vote = self.can_vote(viewer_id, now_ms)
        body = self._body() if self.kept_intent is None or self.kept_timestamp is None else {}
        intent = self.kept_intent if self.kept_intent is not None else {self.intent_key: body.get("parameters")}
        stamp = self.kept_timestamp if self.kept_timestamp is not None else str(body.get("timestampMs", ""))
        out: Json = {
            "id": self.activity_id,
            "organizationId": self.organization_id,
            "status": self.status,
            "type": self.activity_type,
            "intent": intent,
            "result": dict(result),
            "votes": [wire(v) for v in self.votes],
            "fingerprint": self.fingerprint,
            # The service shows the requester of a finished activity canApprove false and
            # canReject true (real fixture in the reference notes).
            # a requester held by MFA approves with the credentials the policy asks for
            "canApprove": can_vote or (mine and self.status == ActivityStatus.AUTHENTICATORS_NEEDED.value),
            "canReject": can_vote or mine,
            "createdAt": timestamp(self.created_ms),
            "updatedAt": timestamp(self.updated_ms or self.created_ms),
            "failure": self.failure,
            "timestampMs": stamp,
        }
        if self.kept_proofs:
            out["appProofs"] = self.kept_proofs
        return out

    @classmethod
    def from_older(cls, fields: Json) -> Activity:
        """An activity of a document exported before the compact record (intent, result and
        timestampMs as values, votes as dicts): taken as it was, nothing read back."""
        made = cls.new(
            fields["activity_id"],
            fields["organization_id"],
            fields["activity_type"],
            fields["intent"],
            fingerprint=fields["fingerprint"],
            created_ms=fields["created_ms"],
            requester_id=fields["requester_id"],
            kept_timestamp=fields["timestamp_ms"],
        )
        made.result = fields.get("result") or {}
        made.kept_notes, made.kept_proofs = list(fields.get("notes", [])), list(fields.get("app_proofs", []))
        for name in ("status", "votes", "failure", "updated_ms", "pending", "decided_by"):
            if name in fields:
                setattr(made, name, fields[name])
        return made


class _Unkept(list[Any]):
    """An empty list not yet kept by its activity: reading it costs the activity nothing; what is
    added goes to a plain list the activity then keeps (most activities never have notes or proofs)."""

    __slots__ = ("_owner", "_slot")

    def __init__(self, owner: Activity, slot: str) -> None:
        super().__init__()
        self._owner, self._slot = owner, slot

    def _kept(self) -> list[Any]:
        kept: list[Any] | None = getattr(self._owner, self._slot)
        if kept is None:
            kept = []
            setattr(self._owner, self._slot, kept)
        return kept

    def append(self, item: Any) -> None:
        self._kept().append(item)
        super().append(item)

    def extend(self, items: Any) -> None:
        items = list(items)
        self._kept().extend(items)
        super().extend(items)

    def insert(self, index: Any, item: Any) -> None:
        self._kept().insert(index, item)
        super().insert(index, item)

    def __iadd__(self, items: Any) -> _Unkept:  # type: ignore[misc]
        self.extend(items)
        return self
