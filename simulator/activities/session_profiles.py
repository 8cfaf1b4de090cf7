"""Session profiles: a named scope (policy language) and expiry that login sessions can be made under.

Profiles are immutable once created (no update or delete exists) and a sub-organization sees its
ancestors' profiles. A login naming ``sessionProfileId`` gets the shorter of the two expiries,
the profile's name as ``session_type`` and the ``session_profile_id`` and ``scope`` claims; its
session key remembers the profile, and ``enforce_scope`` (handler_support/session_scope.py) refuses a
request by that key whose activity the scope does not allow ("beyond session restrictions").
"""

from __future__ import annotations

from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.handler_support.session_scope import visible
from simulator.state.records import SessionProfile
from simulator.wire import Json

MAX_PROFILES = 100  # not public; a bound so a loop cannot grow the state without end


def create_session_profile(ctx: Context, params: Json) -> Json:
    scope = params["scope"]
    # imported on first use: the policy language's parser and evaluator are not on serve's start path
    from simulator.policy.language import compile_expression

    try:
        compile_expression(scope)
    except ValueError as exc:
        raise InvalidArgument(f"invalid session profile scope {scope!r}: {exc}") from None
    taken = [p.name for p in visible(ctx.store, ctx.org)]
    if params["sessionProfileName"] in taken:
        raise InvalidArgument(f"session profile name must be unique: {params['sessionProfileName']} already used")
    if len(ctx.org.session_profiles) >= MAX_PROFILES:
        raise InvalidArgument(f"organization has reached its limit of {MAX_PROFILES} session profiles")
    expiration = params.get("expirationSeconds")
    try:
        seconds = int(expiration) if expiration not in (None, "") else None
    except ValueError:
        seconds = 0
    if seconds is not None and seconds <= 0:
        raise InvalidArgument(f"invalid expirationSeconds {expiration!r}: a positive number of seconds")
    profile = SessionProfile(
        ctx.new_id(), params["sessionProfileName"], scope, ctx.now_ms, seconds, params.get("notes", "")
    )
    ctx.org.session_profiles[profile.session_profile_id] = profile
    return {"sessionProfileId": profile.session_profile_id}
