"""Session profiles as logins, MFA policies, queries and the request path read them: the profiles an
organization sees (its own, then its ancestors'), one looked up, and a session key's scope enforced."""

from __future__ import annotations

from typing import TYPE_CHECKING

from simulator.errors import NotFound, PermissionDenied
from simulator.handler_support.activity_view import policy_view
from simulator.handler_support.context import Context
from simulator.operations.catalogue import Operation
from simulator.state.records import SessionProfile
from simulator.state.store import Organization, Store
from simulator.wire import Json

if TYPE_CHECKING:
    from simulator.auth import Principal


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


def enforce_scope(
    store: Store,
    principal: Principal,
    spec: Operation,
    activity_type: str,
    params: Json,
    ctx: Context | None = None,
) -> None:
    """Refuse an activity stamped by a session key whose profile's scope does not allow it.

    The scope reads what policies read: ``activity.*``, and with ``ctx`` the operation's own context
    (``wallet.id``, ``eth.tx``, ...: the session-profiles page's examples use them). A scope that
    errors refuses too: a restriction must not fail open.
    """
    key = principal.user.api_keys.get(principal.credential_id or "")
    if key is None or not key.session_profile_id:
        return
    profile = lookup(store, principal.organization, key.session_profile_id)
    # imported on first use: the policy language's parser and evaluator are not on serve's start path
    from simulator.policy.language import compile_expression

    describe = spec.describe_for_policies() if ctx is not None else None
    extra: Json = describe(ctx, params) if describe else {}
    verdict = compile_expression(profile.scope).check({**extra, "activity": policy_view(spec, activity_type, params)})
    if not verdict.matched:
        why = f" ({verdict.error})" if verdict.errored else ""
        raise PermissionDenied(
            f"request not authorized: {activity_type} is beyond session restrictions of session profile "
            f"{profile.name} (scope {profile.scope!r}){why}",
            error_code="REQUEST_NOT_AUTHORIZED",
        )
