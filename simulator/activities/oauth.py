"""OAuth: exchanging a provider's code (oauth2_authenticate) and logging in with an ID token.

The provider is the simulator's own (simulator.standins.oauth_provider): tests name the user, get an
authorization code or an ID token, and the activities check them for real (PKCE, signature,
expiry, nonce = SHA-256 of the login public key's hex).
"""

from __future__ import annotations

import base64
import hashlib

from simulator.auth import attested
from simulator.crypto import hpke, keys, service_keys, tokens
from simulator.errors import InvalidArgument, NotFound
from simulator.handler_support.context import Context
from simulator.model import session_keys
from simulator.model.credential_records import oauth2_credential
from simulator.state.records import User
from simulator.wire import Json

PREFIXES = {"OAUTH2_PROVIDER_X": "x", "OAUTH2_PROVIDER_DISCORD": "discord"}
REQUIRED_FOR_EXCHANGE = (
    ("oauth2CredentialId", "oauth2_credential_id"),
    ("authCode", "auth_code"),
    ("codeVerifier", "code_verifier"),
    ("redirectUri", "redirect_uri"),
)


def oauth2_authenticate(ctx: Context, params: Json) -> Json:
    """Exchange the code (PKCE checked) for an ID token the simulator issues as the service does."""
    for field, name in REQUIRED_FOR_EXCHANGE:
        if not params.get(field):
            raise InvalidArgument(f"{name} must be set")  # the catalogue's message, naming the proto field
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
    # a session login, as otp_login and stamp_login: CREDENTIAL_TYPE_LOGIN (docs/ledger/docs-promises.yaml,
    # oauth-login-credential-type); the legacy oauth activity below keeps CREDENTIAL_TYPE_OAUTH_KEY_P256
    return session_keys.new_session(ctx, user, params["publicKey"], params, "CREDENTIAL_TYPE_LOGIN")


def oidc_claims(ctx: Context, token: str, public_key: str) -> Json:
    """The claims of a token from a trusted issuer, unexpired, bound to ``public_key`` by its nonce."""
    try:
        return attested.oidc_claims(token, public_key, ctx.now_ms)
    except ValueError as exc:
        raise InvalidArgument(f"invalid OIDC token: {exc}", error_code="INVALID_OIDC_TOKEN") from None


def oauth(ctx: Context, params: Json) -> Json:
    """Legacy OAUTH: a new expiring key for the token's user, sealed to ``targetPublicKey`` (the
    token's nonce binds that key, as the iframe flow hashed its embedded key)."""
    claims = oidc_claims(ctx, params["oidcToken"], params["targetPublicKey"])
    user = user_by_provider(ctx, claims)
    key, bundle = session_keys.sealed_key(ctx, user, params, "CREDENTIAL_TYPE_OAUTH_KEY_P256", "Oauth")
    return {"userId": user.user_id, "apiKeyId": key.api_key_id, "credentialBundle": bundle}


def user_by_provider(ctx: Context, claims: Json) -> User:
    aud = attested.audience(claims)
    for user in ctx.org.users.values():
        for provider in user.oauth_providers:
            if (provider["issuer"], provider["subject"], provider["audience"]) == (claims["iss"], claims["sub"], aud):
                return user
    raise NotFound(
        f"no user of organization {ctx.org.organization_id} has an OAuth provider for issuer "
        f"{claims['iss']}, subject {claims['sub']}, audience {aud}",
        error_code="REQUEST_INVALID",
    )
