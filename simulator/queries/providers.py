"""OAuth providers: one user's, or every user's of the organization when no userId is given."""

from __future__ import annotations

from simulator.handler_support.query_context import QueryContext
from simulator.wire import Json


def get_oauth_providers(q: QueryContext, body: Json) -> Json:
    user_id = body.get("userId")
    users = [q.org.user(user_id)] if user_id else list(q.org.users.values())
    return {"oauthProviders": [dict(p) for u in users for p in u.oauth_providers]}
