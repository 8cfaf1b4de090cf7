"""Which operations of the public interface the simulator serves: implemented, partial, absent.

Read from the operation catalogue; ``schemas`` is kept in the signature for callers of the
first wave and to check that every listed operation has its schema.
"""

from __future__ import annotations

from typing import Any

from simulator.operations import catalogue
from simulator.operations.activity_types import kind_of, submit_schemas
from simulator.operations.catalogue import Kind
from simulator.operations.validation import Schemas


def coverage(schemas: Schemas | None = None, *, proxy: bool = False) -> list[dict[str, Any]]:
    """Every submit and query operation (and, with ``proxy``, the auth proxy's endpoints)."""
    kinds = (Kind.SUBMIT, Kind.QUERY, Kind.PROXY) if proxy else (Kind.SUBMIT, Kind.QUERY)
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


def accepted_types(operation: str) -> str:
    """``ACTIVITY_TYPE_INIT_OTP``, ``_V2``, ``_V3``: every activity-type version the path accepts, oldest first."""
    types = sorted(submit_schemas().types.get(operation, ()), key=lambda t: (kind_of(t), len(t), t))
    shown = [
        f"`{t}`" if i == 0 or kind_of(t) != kind_of(types[i - 1]) else f"`{t[len(t.rsplit('_V', 1)[0]) :]}`"
        for i, t in enumerate(types)
    ]
    return ", ".join(shown)


def markdown() -> str:
    """The operations table: every operation with its status, policy resource/action and accepted activity types."""
    lines = [
        "| operation | path | status | policy resource / action | activity types accepted | note |",
        "|---|---|---|---|---|---|",
    ]
    for kind in (Kind.SUBMIT, Kind.QUERY, Kind.PROXY):
        for op in sorted(catalogue.of_kind(kind), key=lambda o: o.name):
            where = op.path or f"/public/v1/{kind.value}/{op.name}"
            policy = f"{op.resource} / {op.action}" if op.resource else ("root quorum" if op.root_quorum_only else "—")
            types = accepted_types(op.name) if kind is Kind.SUBMIT else ""
            if kind is not Kind.SUBMIT:
                policy = ""
            lines.append(f"| `{op.name}` | `{where}` | {op.status.value} | {policy} | {types} | {op.partial} |")
    return "\n".join(lines) + "\n"
