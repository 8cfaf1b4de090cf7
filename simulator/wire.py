"""JSON as the wire carries it: the alias every layer uses for bodies, and protojson's reading of null."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]


def drop_nulls(value: Any) -> Any:
    """The body as the service reads it: protojson treats null as unset."""
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value
