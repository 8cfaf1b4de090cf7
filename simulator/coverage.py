"""Which operations of the public interface the simulator serves: implemented, partial, absent.

Read from the operation catalogue; ``schemas`` is kept in the signature for callers of the
first wave and to check that every listed operation has its schema.
"""

from __future__ import annotations

from typing import Any

from simulator import catalogue
from simulator.catalogue import Kind
from simulator.validation import Schemas


def coverage(schemas: Schemas | None = None, *, proxy: bool = False) -> list[dict[str, Any]]:
    """Every submit and query operation (and, with ``proxy``, the auth proxy's endpoints)."""
    kinds = (Kind.ACTIVITY, Kind.QUERY, Kind.PROXY) if proxy else (Kind.ACTIVITY, Kind.QUERY)
    rows = []
    for kind in kinds:
        for op in sorted(catalogue.of_kind(kind), key=lambda o: o.name):
            if schemas is not None and kind is not Kind.PROXY and op.name not in schemas.operations[kind.value]:
                raise LookupError(f"{op.key} is in the catalogue but has no schema")
            rows.append({"operation": op.key, "status": op.status.value, "note": op.partial})
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, int]:
    counts = {"implemented": 0, "partial": 0, "absent": 0}
    for row in rows:
        counts[row["status"]] += 1
    return counts
