"""The encodings of settled activities (and of their evaluations) kept from one whole encoding to the next."""

from __future__ import annotations

import contextvars
from typing import Any

from simulator.state import activity

# serve --data-dir encodes the whole state at each compaction: a settled activity never changes again, nor does an
# activity's tuple of evaluations, so their encodings are kept (by id, with the very object each was made from)
# across the encodings made inside a ``SettledMemo``
MEMO: contextvars.ContextVar[tuple[dict[Any, Any], dict[Any, Any]] | None] = contextvars.ContextVar(
    "settled_memo", default=None
)
EVALUATIONS = "evaluations"  # with the activity's id, an evaluations entry's key in the memo (activities: the id)


class SettledMemo:
    """``with memo:`` encodings inside reuse those of settled activities the previous ``with`` made;
    entries for activities no longer encoded are dropped at the end of each."""

    def __init__(self) -> None:
        self.kept: dict[Any, Any] = {}

    def __enter__(self) -> SettledMemo:
        self._fresh: dict[Any, Any] = {}
        self._token = MEMO.set((self.kept, self._fresh))
        return self

    def __exit__(self, *exc: Any) -> None:
        MEMO.reset(self._token)
        self.kept = self._fresh

    def keep(self, value: activity.Activity, encoded: Any) -> None:
        """``encoded``, a settled activity's encoding made outside (serve --data-dir's change record), for the next
        ``with``: a compaction then encodes only what changed since the last one, not what the records wrote."""
        self.kept[value.activity_id] = (value, encoded)

    def keep_evaluations(self, activity_id: str, entry: Any, encoded: Any) -> None:
        """As ``keep``, for an activity's evaluations (a tuple)."""
        if type(entry) is tuple:
            self.kept[(EVALUATIONS, activity_id)] = (entry, encoded)
