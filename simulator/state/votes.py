"""Votes and policy evaluations as stored: slotted records that render their wire shape on read.

They answer ``vote["userId"]`` and ``.get(...)`` like the dicts they replace; documents exported
by older versions keep dicts, which ``wire`` passes through.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from simulator.state.records import timestamp
from simulator.wire import Json


class _Record(Mapping[str, Any]):
    """Read access by wire name (``record["id"]``, ``.get("userId")``) to a slotted record."""

    __slots__ = ()

    @abstractmethod
    def to_api(self) -> Json: ...

    def __getitem__(self, key: str) -> Any:
        return self.to_api()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_api())

    def __len__(self) -> int:
        return len(self.to_api())


@dataclass(slots=True, eq=False)
class Vote(_Record):
    """One approval or rejection; ``message`` is the signed request text (the activity's own, shared)."""

    vote_id: str
    user_id: str
    user: Json  # the voter as shown then; one shared view per user state (see envelope.user_view)
    activity_id: str
    selection: str
    public_key: str
    signature: str
    scheme: str
    created_ms: int
    message: str = ""  # exported without it when it is the activity's request; filled in on import

    def __getitem__(self, key: str) -> Any:
        fast = _VOTE_FIELDS.get(key)
        return getattr(self, fast) if fast else self.to_api()[key]

    def to_api(self) -> Json:
        return {
            "id": self.vote_id,
            "userId": self.user_id,
            "user": self.user,
            "activityId": self.activity_id,
            "selection": self.selection,
            "message": self.message,
            "publicKey": self.public_key,
            "signature": self.signature,
            "scheme": self.scheme,
            "createdAt": timestamp(self.created_ms),
        }


_VOTE_FIELDS = {"id": "vote_id", "userId": "user_id", "selection": "selection", "activityId": "activity_id"}


@dataclass(slots=True, eq=False)
class Evaluation(_Record):
    """A policy evaluation tied to a vote (get_policy_evaluations)."""

    evaluation_id: str
    activity_id: str
    organization_id: str
    vote_id: str
    outcomes: list[Json]  # shared between evaluations with the same outcomes: never changed in place
    created_ms: int

    def to_api(self) -> Json:
        return {
            "id": self.evaluation_id,
            "activityId": self.activity_id,
            "organizationId": self.organization_id,
            "voteId": self.vote_id,
            "policyEvaluations": [dict(o) for o in self.outcomes],
            "createdAt": timestamp(self.created_ms),
        }


def wire(item: Any) -> Json:
    """A vote or evaluation as the API shows it (documents exported by older versions keep dicts)."""
    return item.to_api() if isinstance(item, _Record) else dict(item)
