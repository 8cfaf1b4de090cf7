"""The request journal: every call to the main interface with its outcome, bounded in memory,
and assertions whose failures show the nearest actual calls.

An assertion names its operation as the catalogue does, or by an official client's method name
(``get_wallets`` is ``list_wallets``: simulator/operations/operation_names.py); a name of no operation is refused
(``UnknownOperation``, a ValueError, naming the closest), since ``assert_not_called`` on it always passed."""

from __future__ import annotations

import difflib
import json
import threading
import warnings
from collections import deque
from typing import Any

from simulator.handler_support.matching import contains
from simulator.operations import operation_names
from simulator.wire import Json


class Journal:
    """The last ``limit`` requests: op, kind, organization, status, request body, answer."""

    def __init__(self, limit: int = 2000) -> None:
        self._entries: deque[Json] = deque(maxlen=limit)
        self._lock = threading.Lock()

    def append(self, entry: Json) -> None:
        """Keep ``entry`` (the pipeline's stage 10; the oldest goes beyond ``limit``)."""
        with self._lock:
            self._entries.append(entry)

    def record(self, entry: Json) -> None:
        """``append``'s name in 0.3 ("record" is a stored row of the state, ARCHITECTURE.md): warns."""
        warnings.warn("Journal.record is now Journal.append", DeprecationWarning, stacklevel=2)
        self.append(entry)

    def entries(self, op: str | None = None) -> list[Json]:
        with self._lock:
            return [dict(e) for e in self._entries if op is None or e["op"] == op]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def calls(self, op: str, **parameters: Any) -> list[Json]:
        """Calls of ``op`` whose parameters (activities) or body (queries) contain ``parameters``."""
        return [e for e in self.entries(operation_names.operation(op)) if contains(fields_of(e), parameters)]

    def assert_called(self, op: str, times: int | None = None, **parameters: Any) -> list[Json]:
        """Raise AssertionError, naming the nearest actual calls, unless ``op`` was called as asked."""
        op = operation_names.operation(op)
        found = self.calls(op, **parameters)
        if (times is None and found) or (times is not None and len(found) == times):
            return found
        wanted = f"{op}({', '.join(f'{k}={v!r}' for k, v in parameters.items())})"
        expected = "at least once" if times is None else f"{times} time(s)"
        raise AssertionError(f"expected {wanted} {expected}, found {len(found)}.\n{self.nearest(op, parameters)}")

    def assert_not_called(self, op: str, **parameters: Any) -> None:
        self.assert_called(op, times=0, **parameters)

    def nearest(self, op: str, parameters: Json) -> str:
        entries = self.entries()
        if not entries:
            return "No requests were made."
        same = [e for e in entries if e["op"] == op] or entries
        target = json.dumps({"op": op, **parameters}, sort_keys=True)
        ranked = sorted(same, key=lambda e: -difflib.SequenceMatcher(None, target, summary(e)).ratio())
        lines = [
            f"  {e['kind']}/{e['op']} -> {e['status']}: {json.dumps(fields_of(e), sort_keys=True)[:300]}"
            for e in ranked[:5]
        ]
        return "Nearest actual calls:\n" + "\n".join(lines)


def fields_of(entry: Json) -> Json:
    body = entry.get("request") or {}
    if isinstance(body, dict) and isinstance(body.get("parameters"), dict):
        return dict(body["parameters"])
    return body if isinstance(body, dict) else {}


def summary(entry: Json) -> str:
    return json.dumps({"op": entry["op"], **fields_of(entry)}, sort_keys=True)
