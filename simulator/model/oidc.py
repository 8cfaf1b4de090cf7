"""OIDC tokens: their claims (read unverified), and the OAuth provider a user registers from them."""

from __future__ import annotations

import json

from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.state.records import timestamp
from simulator.wire import Json, b64url_decode


def oauth_provider(ctx: Context, params: Json) -> Json:
    claims = params.get("oidcClaims") or token_claims(params.get("oidcToken", ""))
    missing = [c for c in ("iss", "sub", "aud") if not claims.get(c)]
    if missing:
        raise InvalidArgument(
            f"invalid OIDC token: the token must carry aud, sub and iss (missing {', '.join(missing)})",
            error_code="INVALID_OIDC_TOKEN",
        )
    aud = claims["aud"][0] if isinstance(claims["aud"], list) else claims["aud"]
    return {
        "providerId": ctx.new_id(),
        "providerName": params["providerName"],
        "issuer": claims["iss"],
        "audience": aud,
        "subject": claims["sub"],
        "createdAt": timestamp(ctx.now_ms),
        "updatedAt": timestamp(ctx.now_ms),
    }


def token_claims(token: str) -> Json:
    """The payload of a JWT, unverified (registration is not nonce- or signature-bound here)."""
    try:
        claims = json.loads(b64url_decode(token.split(".")[1]))
        return claims if isinstance(claims, dict) else {}
    except (ValueError, IndexError):
        return {}
