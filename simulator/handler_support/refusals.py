"""A refused request changes nothing: what the pipeline puts back when an activity is refused.

An activity draws ids from the run's seeded source (its own, its policy evaluation's, the
records its handler makes) before it knows whether it will be refused. A refusal at once (the
handler's error, a limit, an unknown reference) puts the source and the mnemonic stream back
where they were and drops the evaluation kept for the activity that never was, so the next
request gets what it would have got without the refused one. A handler refused after a wait
(the activity becomes FAILED) puts back what the handler drew, too.

A policy denial is the exception that keeps a record: the denied activity stays readable
(``get_activity``, ``get_policy_evaluations``, the inspector). Its ids come from a source of its
own, derived from the run's seed and the request, so the run's source still does not move.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from simulator.clock import Checkpoint, Source
from simulator.state.store import Store


@dataclass(frozen=True)
class Mark:
    """The seeded streams' positions before an activity started."""

    source_state: Checkpoint
    stream_key: str
    stream_position: int


def mark(store: Store, source: Source) -> Mark:
    stream = store.mnemonic_stream
    return Mark(source.checkpoint(), stream.key, stream.position)


def undo(store: Store, source: Source, before: Mark, activity_id: str | None = None) -> None:
    """Put the seeded streams back to ``before`` and forget the refused activity's evaluation, if
    it was never kept."""
    source.rewind(before.source_state)
    if store.mnemonic_stream.key == before.stream_key:
        store.mnemonic_stream.position = before.stream_position
    if activity_id:
        store.evaluations.pop(activity_id, None)


def denial_source(source: Source, store: Store, fingerprint: str, now_ms: int) -> Source:
    """A source for a denied activity's ids: the same in a seeded run that repeats the request,
    apart from the run's source, and whose activity id no kept activity has."""
    for attempt in range(1000):
        text = f"wallet-simulator/denial/1:{source.seed}:{fingerprint}:{len(store.activities)}:{attempt}"
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
        if Source(seed).uuid7(now_ms) not in store.activities:
            return Source(seed)
    raise RuntimeError("no free activity id for a denied activity")  # 1000 collisions of 74 random bits
