"""The organization's resource allowances (docs.turnkey.com/reference/resource-limits), refused alike
by every family that creates something."""

from __future__ import annotations

from simulator.errors import ResourceExhausted


def check_limit(have: int, adding: int, limit: int, what: str) -> None:
    if have + adding > limit:
        raise ResourceExhausted(f"organization has reached its limit of {limit} {what}")
