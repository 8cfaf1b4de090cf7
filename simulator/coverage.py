"""Which operations of the public interface the simulator serves: implemented, partial, absent."""

from __future__ import annotations

from typing import Any

from simulator.activities import HANDLERS
from simulator.queries import QUERIES
from simulator.validation import Schemas

# What an implemented operation still lacks, said plainly.
PARTIAL = {
    "submit/sign_raw_payload": "PAYLOAD_ENCODING_EIP712 and _EIP7702_AUTHORIZATION are refused",
    "submit/sign_raw_payloads": "PAYLOAD_ENCODING_EIP712 and _EIP7702_AUTHORIZATION are refused",
}


def coverage(schemas: Schemas) -> list[dict[str, Any]]:
    """Every submit and query operation with a schema, and how far the simulator serves it."""
    rows = []
    for kind, served in (("submit", HANDLERS), ("query", QUERIES)):
        for op in schemas.operations[kind]:
            key = f"{kind}/{op}"
            status = "partial" if key in PARTIAL else "implemented" if op in served else "absent"
            if kind == "submit" and op in ("approve_activity", "reject_activity"):
                status = "implemented"
            rows.append({"operation": key, "status": status, "note": PARTIAL.get(key, "")})
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, int]:
    counts = {"implemented": 0, "partial": 0, "absent": 0}
    for row in rows:
        counts[row["status"]] += 1
    return counts
