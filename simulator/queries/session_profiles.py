"""Session profiles: an organization's own and its ancestors' (sub-organizations see the parent's)."""

from __future__ import annotations

from simulator.handler_support import session_scope
from simulator.handler_support.query_context import QueryContext
from simulator.wire import Json


def get_session_profile(q: QueryContext, body: Json) -> Json:
    return {"sessionProfile": session_scope.lookup(q.store, q.org, body["sessionProfileId"]).to_api()}


def get_session_profiles(q: QueryContext, body: Json) -> Json:
    return {"sessionProfiles": [p.to_api() for p in session_scope.visible(q.store, q.org)]}
