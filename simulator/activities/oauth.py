"""OAuth: exchanging a provider's code (oauth2_authenticate) and logging in with an ID token.

The provider is the simulator's own (simulator.oauth_provider): tests name the user, get an
authorization code or an ID token, and the activities check them for real (PKCE, signature,
expiry, nonce = SHA-256 of the login public key's hex).
"""

from __future__ import annotations

import base64
import hashlib

from simulator.activities import sessions
from simulator.activities.context import Context, Json
from simulator.activities.credentials import oauth2_credential
from simulator.crypto import hpke, keys, service_keys, tokens
from simulator.errors import InvalidArgument, NotFound
from simulator.state.records import User

ISSUER_KEYS = {service_keys.PROVIDER_ISSUER: "oauth-provider", service_keys.TURNKEY_ISSUER: "turnkey-oauth-issuer"}
PREFIXES = {"OAUTH2_PROVIDER_X": "x", "OAUTH2_PROVIDER_DISCORD": "discord"}


def oauth2_authenticate(ctx: Context, params: Json) -> Json:
    """Exchange the code (PKCE checked) for an ID token the simulator issues as the service does."""
    credential = oauth2_credential(ctx, params["oauth2CredentialId"]).fields
    grant = ctx.store.oauth_codes.pop(params["authCode"], None)
    if grant is None or grant.get("failure"):
        reason = grant["failure"] if grant else "unknown or already used authorization code"
        raise InvalidArgument(f"oauth2 token exchange failed: {reason}", error_code="INVALID_OIDC_TOKEN")
    challenge = base64.urlsafe_b64encode(hashlib.sha256(params["codeVerifier"].encode()).digest()).decode().rstrip("=")
    if grant.get("codeChallenge") not in (None, challenge):
        raise InvalidArgument("oauth2 token exchange failed: code_verifier does not match the code challenge")
    if grant.get("redirectUri") not in (None, params["redirectUri"]):
        raise InvalidArgument("oauth2 token exchange failed: redirect_uri does not match the authorization request")
    claims = {
        "iss": service_keys.TURNKEY_ISSUER,
        "sub": f"{PREFIXES[credential['provider']]}:{grant['subject']}",
        "aud": credential["clientId"],
        "iat": ctx.now_ms // 1000,
        "exp": ctx.now_ms // 1000 + 3600,
    }
    if params.get("nonce"):
        claims["nonce"] = params["nonce"]
    if grant.get("email"):
        claims["email"] = grant["email"]
    if params.get("bearerTokenTargetPublicKey"):
        claims["encrypted_bearer_token"] = sealed_bearer_token(ctx, params["bearerTokenTargetPublicKey"])
    return {"oidcToken": tokens.sign(claims, service_keys.private("turnkey-oauth-issuer"))}


def sealed_bearer_token(ctx: Context, target: str) -> str:
    bearer = f"simulated-bearer-{ctx.source.uuid4()}".encode()
    try:
        return hpke.credential_bundle(target, bearer, keys.new_ec_key(ctx.source, "p256"))
    except ValueError as exc:
        raise InvalidArgument(f"invalid bearerTokenTargetPublicKey: {exc}") from None


def oauth_login(ctx: Context, params: Json) -> Json:
    claims = oidc_claims(ctx, params["oidcToken"], params["publicKey"])
    user = user_by_provider(ctx, claims)
    return sessions.new_session(ctx, user, params["publicKey"], params, "CREDENTIAL_TYPE_OAUTH_KEY_P256")


def oidc_claims(ctx: Context, token: str, public_key: str) -> Json:
    """The claims of a token from a trusted issuer, unexpired, bound to ``public_key`` by its nonce."""
    try:
        unverified = tokens.claims_of(token)
        key = ISSUER_KEYS.get(str(unverified.get("iss")))
        if key is None:
            raise ValueError(f"unknown issuer {unverified.get('iss')!r} (trusted: {', '.join(ISSUER_KEYS)})")
        claims = tokens.verify(token, service_keys.private(key).public_key())
    except ValueError as exc:
        raise InvalidArgument(f"invalid OIDC token: {exc}", error_code="INVALID_OIDC_TOKEN") from None
    if any(not claims.get(c) for c in ("iss", "sub", "aud")):
        raise InvalidArgument("invalid OIDC token: aud, sub and iss are required", error_code="INVALID_OIDC_TOKEN")
    if int(claims.get("exp", 0)) <= ctx.now_ms // 1000:
        raise InvalidArgument("invalid OIDC token: expired", error_code="INVALID_OIDC_TOKEN")
    expected = hashlib.sha256(public_key.encode()).hexdigest()
    if claims["iss"] != service_keys.TURNKEY_ISSUER and expected not in (claims.get("nonce"), claims.get("tknonce")):
        raise InvalidArgument(
            "invalid OIDC token: the nonce must be the SHA-256 of the public key's hex", error_code="INVALID_OIDC_TOKEN"
        )
    return claims


def user_by_provider(ctx: Context, claims: Json) -> User:
    aud = claims["aud"][0] if isinstance(claims["aud"], list) else claims["aud"]
    for user in ctx.org.users.values():
        for provider in user.oauth_providers:
            if (provider["issuer"], provider["subject"], provider["audience"]) == (claims["iss"], claims["sub"], aud):
                return user
    raise NotFound(
        f"no user of organization {ctx.org.organization_id} has an OAuth provider for issuer "
        f"{claims['iss']}, subject {claims['sub']}, audience {aud}",
        error_code="REQUEST_INVALID",
    )
