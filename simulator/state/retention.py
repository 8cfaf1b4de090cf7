"""How many activities the store keeps, and the compaction of those that settle after they were stored.

With a limit, once the store holds more activities than it, the oldest finished ones (completed,
failed or rejected, nothing still waiting) are forgotten first, with their evaluations and
fingerprints: a long run's memory stays bounded. ``Config.max_activities`` sets it.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

from simulator.state.activity import Activity
from simulator.state.tables import ActivityTable


class Holder(Protocol):
    """What eviction works on (the store)."""

    activities: ActivityTable

    def drop_activity(self, activity: Activity) -> None: ...

    def sweep_fingerprints(self) -> None: ...


LOOSE_CHECKS_PER_ADD = 4  # waiting activities re-checked for compaction each time one is added
SWEEP_EVERY = 1024  # evictions between sweeps of fingerprints left by votes on evicted activities


class Retention:
    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.loose: deque[Activity] = deque()  # stored while waiting: compacted once they settle
        self.evicted_since_sweep = 0

    def copy(self, activities: dict[str, Activity] | None = None) -> Retention:
        """The same setting; ``activities`` (a copied store's) maps the loose ones to their copies."""
        made = Retention(self.limit)
        table = activities if activities is not None else {}
        made.loose = deque(table[a.activity_id] for a in self.loose if a.activity_id in table)
        return made

    def settle(self, activity: Activity) -> list[str]:
        """Compact ``activity`` if it is final, else keep it for later; re-check a few older ones. Returns the ids of
        the older ones it compacted (changed where no table handed them out: serve --data-dir writes them)."""
        compacted = []
        for _ in range(min(LOOSE_CHECKS_PER_ADD, len(self.loose))):
            older = self.loose.popleft()
            if older.settled:
                continue  # compacted already
            if older.compact():
                compacted.append(older.activity_id)
            elif not older.final:
                self.loose.append(older)
        if not activity.compact() and not activity.final:
            self.loose.append(activity)
        return compacted

    def evict(self, store: Holder) -> None:
        """Forget the oldest finished activities beyond the limit (never one still waiting)."""
        if self.limit is None or len(store.activities) <= self.limit:
            return
        excess = len(store.activities) - self.limit
        victims = []
        for activity in store.activities.oldest():
            if activity.final:
                victims.append(activity)
                if len(victims) == excess:
                    break
        for activity in victims:
            store.drop_activity(activity)
        self.evicted_since_sweep += len(victims)
        if self.evicted_since_sweep >= max(SWEEP_EVERY, self.limit // 4):
            store.sweep_fingerprints()
            self.evicted_since_sweep = 0
