"""Session profiles: a named scope (policy language) and expiry that login sessions can be made under.

Profiles are immutable once created (no update or delete exists) and a sub-organization sees its
ancestors' profiles. A login naming ``sessionProfileId`` gets the shorter of the two expiries,
the profile's name as ``session_type`` and the ``session_profile_id`` and ``scope`` claims; its
session key remembers the profile, and ``enforce_scope`` refuses a request by that key whose
activity the scope does not allow ("beyond session restrictions").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simulator.catalogue import Operation
from simulator.errors import InvalidArgument, NotFound, PermissionDenied
from simulator.handling.activity_view import policy_view
from simulator.handling.context import Context
from simulator.state.records import SessionProfile
from simulator.state.store import Organization, Store
from simulator.wire import Json

if TYPE_CHECKING:
    from simulator.auth import Principal

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


def visible(store: Store, org: Organization) -> list[SessionProfile]:
    """The organization's profiles, then its ancestors' (nearest first)."""
    found: list[SessionProfile] = []
    current: Organization | None = org
    while current is not None:
        found.extend(current.session_profiles.values())
        current = store.orgs.get(current.parent_id) if current.parent_id else None
    return found


def lookup(store: Store, org: Organization, profile_id: str) -> SessionProfile:
    for profile in visible(store, org):
        if profile.session_profile_id == profile_id:
            return profile
    raise NotFound(
        f"session profile {profile_id} not found in organization {org.organization_id} or its parents",
        error_code="REQUEST_INVALID",
    )


def find(ctx: Context, profile_id: str) -> SessionProfile:
    return lookup(ctx.store, ctx.org, profile_id)


def enforce_scope(store: Store, principal: Principal, spec: Operation, activity_type: str, params: Json) -> None:
    """Refuse an activity stamped by a session key whose profile's scope does not allow it.

    The scope reads ``activity.*`` as policies do. A scope that errors refuses too: a restriction
    must not fail open.
    """
    key = principal.user.api_keys.get(principal.credential_id or "")
    if key is None or not key.session_profile_id:
        return
    profile = lookup(store, principal.organization, key.session_profile_id)
    # imported on first use: the policy language's parser and evaluator are not on serve's start path
    from simulator.policy.language import compile_expression

    verdict = compile_expression(profile.scope).check({"activity": policy_view(spec, activity_type, params)})
    if not verdict.matched:
        why = f" ({verdict.error})" if verdict.errored else ""
        raise PermissionDenied(
            f"request not authorized: {activity_type} is beyond session restrictions of session profile "
            f"{profile.name} (scope {profile.scope!r}){why}",
            error_code="REQUEST_NOT_AUTHORIZED",
        )
