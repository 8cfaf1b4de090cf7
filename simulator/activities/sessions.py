"""Sessions: login sessions (a key the client holds, named by a session JWT), read-write sessions
(a new key sealed to the client), and read-only session tokens. The keys themselves are made in
model/session_keys.py (``new_session``, ``sealed_key``), which the other login activities share.
"""

from __future__ import annotations

from simulator.auth.stamps import ATTESTED_TOKEN
from simulator.crypto import service_keys, tokens
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.model.session_keys import new_session, sealed_key, spend_verification_token, user_by_email
from simulator.wire import Json

READ_ONLY_SECONDS = 3600
READ_WRITE_TYPE = "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256"


def stamp_login(ctx: Context, params: Json) -> Json:
    """A session for whoever stamped the request (passkey, wallet, API key or an attested identity)."""
    assert ctx.principal is not None
    stamp = ctx.principal.stamp
    if stamp is not None and stamp.attestation is not None:
        if params["publicKey"].lower() != stamp.handle:
            raise InvalidArgument(
                "invalid publicKey: an attested stamp logs in the key its token vouches for "
                f"({stamp.handle}), not {params['publicKey']}"
            )
        if stamp.scheme == ATTESTED_TOKEN:
            spend_verification_token(ctx, ctx.principal.user, tokens.claims_of(stamp.attestation))
    return new_session(ctx, ctx.principal.user, params["publicKey"], params, "CREDENTIAL_TYPE_LOGIN")


def create_read_write_session(ctx: Context, params: Json) -> Json:
    """V2 for ``userId`` (else the requester); V1 for the user with ``email``."""
    assert ctx.principal is not None
    if "email" in params:
        user = user_by_email(ctx, params["email"])
    elif params.get("userId"):
        user = ctx.user(params["userId"])
    else:
        user = ctx.org.user(ctx.principal.user.user_id)
    key, bundle = sealed_key(ctx, user, params, READ_WRITE_TYPE, "Read Write Session")
    return {
        "organizationId": ctx.org.organization_id,
        "organizationName": ctx.org.name,
        "userId": user.user_id,
        "username": user.name,
        "apiKeyId": key.api_key_id,
        "credentialBundle": bundle,
    }


def create_read_only_session(ctx: Context, params: Json) -> Json:
    """A token that, in an ``X-Session`` header, lets the requester read for an hour."""
    assert ctx.principal is not None
    user = ctx.org.user(ctx.principal.user.user_id)
    expiry = ctx.now_ms // 1000 + READ_ONLY_SECONDS
    claims = {
        "exp": expiry,
        "session_type": "SESSION_TYPE_READ_ONLY",
        "user_id": user.user_id,
        "organization_id": ctx.org.organization_id,
    }
    return {
        "organizationId": ctx.org.organization_id,
        "organizationName": ctx.org.name,
        "userId": user.user_id,
        "username": user.name,
        "session": tokens.session_token(claims, service_keys.private("notarizer")),
        "sessionExpiry": str(expiry),
    }
