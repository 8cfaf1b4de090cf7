"""The organization's resource allowances (docs.turnkey.com/reference/resource-limits), refused alike
by every family that creates something."""

from __future__ import annotations

from simulator.errors import QUOTA, ResourceExhausted, documented


def check_limit(have: int, adding: int, limit: int, what: str) -> None:
    """The catalogue's quota message, then which allowance. An allowance is the organization's own
    (a sub-organization's too), so the message is the organization's, never its parent's."""
    if have + adding > limit:
        raise ResourceExhausted(documented(QUOTA, f"organization has reached its limit of {limit} {what}"))
