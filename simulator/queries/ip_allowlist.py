"""The organization's IP allow-list, or one API key's."""

from __future__ import annotations

from simulator.handler_support.query_context import QueryContext
from simulator.state.records import IpAllowlist
from simulator.wire import Json


def get_ip_allowlist(q: QueryContext, body: Json) -> Json:
    """A list that was never set (or was removed) reads as one without rules."""
    key = (body.get("publicKey") or "").lower()
    found = q.org.ip_allowlists.get(key)
    if found is None:
        found = IpAllowlist(q.org.organization_id, key or None, [], None if key else False)
    return {"allowlist": found.to_api()}
