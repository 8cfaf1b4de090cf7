"""Login sessions: an expiring key the client holds, and the session JWT that names it.

stamp_login, oauth_login and otp_login all end here. The client's public key becomes an
expiring API key of the user (so it can stamp until the session expires) and the session JWT
carries exp, public_key, session_type, user_id and organization_id.
"""

from __future__ import annotations

from simulator.activities import credentials
from simulator.activities.context import Context, Json
from simulator.crypto import service_keys, tokens
from simulator.errors import InvalidArgument
from simulator.state.records import ApiKey, User

DEFAULT_SESSION_SECONDS = 900
LOGIN_TYPES = ("CREDENTIAL_TYPE_LOGIN", "CREDENTIAL_TYPE_OAUTH_KEY_P256", "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256")


def seconds(value: object, default: int) -> int:
    try:
        result = int(str(value)) if value not in (None, "") else default
    except ValueError:
        result = 0
    if result <= 0:
        raise InvalidArgument(f"invalid expirationSeconds {value!r}: a positive number of seconds")
    return result


def new_session(ctx: Context, user: User, public_key: str, params: Json, credential_type: str) -> Json:
    """Register ``public_key`` for the user until the session expires; return {"session": jwt}."""
    ttl = seconds(params.get("expirationSeconds"), DEFAULT_SESSION_SECONDS)
    key = credentials.new_api_key(
        ctx,
        {
            "apiKeyName": f"Session key {ctx.now_ms}",
            "publicKey": public_key,
            "curveType": "API_KEY_CURVE_P256",
            "expirationSeconds": str(ttl),
        },
        credential_type,
    )
    if params.get("invalidateExisting"):
        drop_keys(ctx, user, lambda k: k.credential_type in LOGIN_TYPES)
    add_expiring_key(ctx, user, key)
    claims = {
        "exp": (ctx.now_ms // 1000) + ttl,
        "public_key": key.public_key,
        "session_type": "SESSION_TYPE_READ_WRITE",
        "user_id": user.user_id,
        "organization_id": ctx.org.organization_id,
    }
    return {"session": tokens.session_token(claims, service_keys.private("notarizer"))}


def add_expiring_key(ctx: Context, user: User, key: ApiKey) -> None:
    """An 11th expiring key replaces an expired one, else the oldest (resource limits)."""
    expiring = sorted(
        (k for k in user.api_keys.values() if k.expiration_seconds is not None),
        key=lambda k: ((k.expires_at_ms() or 0) > ctx.now_ms, k.created_ms),
    )
    if len(expiring) >= credentials.MAX_KEYS_PER_KIND:
        ctx.store.remove_api_key(ctx.org, user, expiring[0].api_key_id)
    same = [k.api_key_id for k in user.api_keys.values() if k.public_key == key.public_key]
    for key_id in same:  # logging in again with the same key renews it
        ctx.store.remove_api_key(ctx.org, user, key_id)
    ctx.store.add_api_key(ctx.org, user, key)


def drop_keys(ctx: Context, user: User, which: object) -> None:
    for key in [k for k in user.api_keys.values() if which(k)]:  # type: ignore[operator]
        ctx.store.remove_api_key(ctx.org, user, key.api_key_id)


def stamp_login(ctx: Context, params: Json) -> Json:
    """A session for whoever stamped the request (passkey, wallet or API key)."""
    assert ctx.principal is not None
    return new_session(ctx, ctx.principal.user, params["publicKey"], params, "CREDENTIAL_TYPE_LOGIN")
