"""A status that moves along scripted steps after N polls or S seconds: one record for the long
tail's asynchronous operations (swaps, earn, on-ramp, TVC deployments), the broadcast stand-in's
sent transactions and a scripted rule's wait (``after``) before its outcome applies.

A track is a list of steps, each ``{"status": ..., "after": {"polls": N, "seconds": S}, ...}`` (what
else a step holds, errors, amounts, hashes, is the caller's). The first step holds from the start;
each later one is reached once the one before it was and its ``after`` is met: ``seconds`` of the
simulator clock since the track started, or ``polls`` counted since then (whichever comes first; a
step without ``after`` follows at once). A step reached is stamped ``reachedMs`` (when its seconds
fell due, or when it was seen), so "what was reached and when" reads the same on every later look.
A track that should never move past a step simply ends there (a stuck transaction, a rule's wait
with no ``polls`` and no ``seconds``).

Like moto's ``ManagedState`` (a status advanced by calls or by time), minus the global registry: the
scenario scripts each track, and the record lives with what it describes, in the store.

State documents keep a track in the form it has always had, ``{"createdMs", "polls", "steps"}``
(``as_document`` / ``from_document``): exports are unchanged and older ones still import.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from simulator.wire import Json

DOCUMENT_KEYS = ("createdMs", "polls", "steps")


@dataclass(eq=False)
class StatusTrack:
    steps: list[Json]  # as scripted (deep-copied); a reached step carries "reachedMs"
    started_ms: int  # what each step's ``after.seconds`` counts from
    polls: int = 0  # polls counted since the start

    @classmethod
    def start(cls, steps: list[Json], now_ms: int) -> StatusTrack:
        """A track following ``steps`` (a scenario's script or a caller's default sequence) from ``now_ms``."""
        return cls(copy.deepcopy(steps), now_ms)

    def count_poll(self) -> None:
        self.polls += 1

    def due_ms(self, step: Json) -> int | None:
        """When ``step``'s ``after.seconds`` falls due (None: it waits on no seconds)."""
        after = step.get("after") or {}
        return self.started_ms + int(after["seconds"] * 1000) if "seconds" in after else None

    def due_by_polls(self, step: Json) -> bool:
        after = step.get("after") or {}
        return "polls" in after and self.polls >= after["polls"]

    def waits_on_polls(self, step: Json) -> bool:
        return "polls" in (step.get("after") or {})

    def reached(self, now_ms: int, poll: bool = False) -> Json:
        """The step the track has reached at ``now_ms`` (a poll counts before it is answered)."""
        if poll:
            self.count_poll()
        reached: Json = self.steps[0]
        reached.setdefault("reachedMs", self.started_ms)
        for step in self.steps[1:]:
            due_ms = self.due_ms(step)
            by_time = due_ms is not None and now_ms >= due_ms
            if not (by_time or self.due_by_polls(step) or not step.get("after")):
                break
            step.setdefault("reachedMs", min(now_ms, due_ms) if by_time and due_ms is not None else now_ms)
            reached = step
        return reached

    # the form state documents keep ------------------------------------------------------------------
    def as_document(self) -> Json:
        return {"createdMs": self.started_ms, "polls": self.polls, "steps": self.steps}

    @classmethod
    def from_document(cls, value: Any) -> Any:
        """A track from its document form; anything else (a track already, None) as it is."""
        if isinstance(value, dict) and set(value) == set(DOCUMENT_KEYS):
            return cls(value["steps"], value["createdMs"], value["polls"])
        return value


def step_fields(step: Json) -> Json:
    """What a step sets besides its status and timing (errors, amounts, hashes)."""
    return {k: v for k, v in step.items() if k not in ("status", "after", "reachedMs")}
