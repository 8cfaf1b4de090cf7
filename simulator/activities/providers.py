"""OAuth providers of a user: the (issuer, subject, audience) triples OIDC logins are matched on.

V1 registers from an ``oidcToken``; V2 also from ``oidcClaims``. A triple is unique in the
organization (OAUTH_PROVIDER_ALREADY_EXISTS), a user has at most 10, and a token from an issuer the
simulator trusts whose ``email`` is the user's marks that email verified (social linking).
"""

from __future__ import annotations

from simulator.auth.attested import ISSUER_KEYS
from simulator.crypto import service_keys, tokens
from simulator.errors import InvalidArgument, ResourceExhausted
from simulator.handler_support.context import Context
from simulator.model import oidc
from simulator.state.records import User
from simulator.wire import Json

MAX_PROVIDERS = 10  # per user (resource limits)


def create_oauth_providers(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    made = [oidc.oauth_provider(ctx, p) for p in params["oauthProviders"]]
    if len(user.oauth_providers) + len(made) > MAX_PROVIDERS:
        raise ResourceExhausted(f"user has exceeded maximum oauth providers ({MAX_PROVIDERS})")
    taken = {triple(p) for u in ctx.org.users.values() for p in u.oauth_providers}
    for provider in made:
        if triple(provider) in taken:
            raise InvalidArgument(
                "OAuth provider with same audience, subject, and issuer already exists",
                error_code="OAUTH_PROVIDER_ALREADY_EXISTS",
            )
        taken.add(triple(provider))
    user.oauth_providers.extend(made)
    user.updated_ms = ctx.now_ms
    for spec in params["oauthProviders"]:
        link_email(user, spec.get("oidcToken"))
    return {"providerIds": [p["providerId"] for p in made]}


def triple(provider: Json) -> tuple[str, str, str]:
    return provider["issuer"], provider["subject"], provider["audience"]


def link_email(user: User, token: str | None) -> None:
    """A verified token from a trusted issuer carrying the user's email verifies that email."""
    if not token or not user.email:
        return
    try:
        issuer = ISSUER_KEYS.get(str(tokens.claims_of(token).get("iss")))
        claims = tokens.verify(token, service_keys.private(issuer).public_key()) if issuer else {}
    except ValueError:
        return
    if str(claims.get("email", "")).lower() == user.email.lower():
        user.email_verified = True


def delete_oauth_providers(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    by_id = {p["providerId"]: p for p in user.oauth_providers}
    ids = params["providerIds"]
    ctx.existing(by_id, ids, "oauth providers", "CREDENTIAL_NOT_FOUND", f"user {user.user_id}")
    user.oauth_providers = [p for p in user.oauth_providers if p["providerId"] not in ids]
    user.updated_ms = ctx.now_ms
    return {"providerIds": list(ids)}
