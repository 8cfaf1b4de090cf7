"""Documented rules enforced after release 0.2.0, and the one switch that turns them all off.

Each is a promise of Turnkey's documentation that the simulator did not keep before (issue 53):
organization features gate e-mail auth and e-mail OTP (docs ``features/organizations.mdx``,
"Features" and "Permissions"; ``features/authentication/email.mdx``, "Authentication" and "Opting
out"), and imports target the requester's own user (``organizations.mdx``, "Permissions"). The
handlers of other families call ``enforced`` for their own rules (a compressed account signing a
transaction, a Solana IDL without ``types``). ``serve --lenient-documented-rules`` or a scenario's
``lenientDocumentedRules: true`` turns every one off (``Store.enforce_documented_rules``), and each
refusal says so.
"""

from __future__ import annotations

from simulator.errors import PermissionDenied
from simulator.handler_support.context import Context
from simulator.state.store import DEFAULT_FEATURE_NAMES, Organization
from simulator.wire import Json

EMAIL_AUTH, OTP_EMAIL_AUTH = DEFAULT_FEATURE_NAMES
# organizations.mdx, "Features": both "Enabled" by default; create_sub_organization's disable* flags leave one out
DEFAULT_FEATURES = ((EMAIL_AUTH, "disableEmailAuth"), (OTP_EMAIL_AUTH, "disableOtpEmailAuth"))
LENIENT_HINT = (
    "(enforced after release 0.2.0; serve --lenient-documented-rules or a scenario's "
    "lenientDocumentedRules: true restores the earlier behaviour)"
)


def enforced(ctx: Context) -> bool:
    return ctx.store.enforce_documented_rules


def default_features(spec: Json) -> dict[str, str]:
    """A new organization's features: e-mail auth and OTP e-mail auth, unless ``spec`` (a sub-organization's
    parameters, or a scenario's organization) disables them."""
    return {name: "" for name, flag in DEFAULT_FEATURES if not spec.get(flag)}


def require_feature(ctx: Context, name: str, operation: str) -> None:
    """Refuse ``operation`` unless ``name`` is on in the organization and every organization above it
    (email.mdx: the feature must be enabled in the organization and the sub-organization)."""
    if not enforced(ctx):
        return
    org: Organization | None = ctx.org
    while org is not None:
        if name not in org.features:
            raise PermissionDenied(
                f"request not authorized: {operation} requires the organization feature {name}, which is not "
                f"enabled on organization {org.organization_id}; its root quorum enables it with "
                f"set_organization_feature {LENIENT_HINT}"
            )
        org = ctx.store.orgs.get(org.parent_id) if org.parent_id else None


def require_own_user(ctx: Context, user_id: str, operation: str) -> None:
    """organizations.mdx, "Permissions": "All import requests must target your own user"."""
    principal = ctx.principal
    if not enforced(ctx) or principal is None or principal.user.user_id == user_id:
        return
    raise PermissionDenied(
        f"request not authorized: {operation} must target your own user: userId {user_id} is not the requester "
        f"{principal.user.user_id} {LENIENT_HINT}"
    )
