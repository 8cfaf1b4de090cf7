"""The bounds every request body is held to before any recursive work touches it.

Real request bodies are shallow (the deepest public schema nests about a dozen levels) and
their int64 fields are decimal strings of at most 20 digits; anything beyond is refused with a
400 that names the bound, instead of reaching Python's recursion or integer-conversion limits.
"""

from __future__ import annotations

from typing import Any

from simulator.errors import InvalidArgument

MAX_DEPTH = 64
MAX_INT64_DIGITS = 20


def check_body_shape(body: Any) -> None:
    """Refuse a body nested deeper than MAX_DEPTH (checked without recursion)."""
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InvalidArgument(f"bad request body: nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def check_timestamp_ms(text: str) -> int:
    """``timestampMs`` as milliseconds: a decimal string of at most 20 digits."""
    digits = text.lstrip("-")
    if not digits.isdigit() or len(digits) > MAX_INT64_DIGITS:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise InvalidArgument(
            f"timestampMs must be milliseconds since the epoch as a decimal string of at most "
            f"{MAX_INT64_DIGITS} digits, got {shown!r}"
        )
    return int(text)
