"""Session keys, as every login and key-sealing activity makes them.

stamp_login, oauth_login and otp_login end in ``new_session``: the client's public key becomes an
expiring API key of the user (so it can stamp until the session expires) and the session JWT
carries exp, public_key, session_type, user_id and organization_id, plus session_profile_id and
scope when a session profile governs it. ``sealed_key`` is the one way a new key is made and
sealed to a client (read-write sessions, email auth, recovery, legacy OAuth, otp_auth).
"""

from __future__ import annotations

from collections.abc import Callable

from simulator.crypto import hpke, keys, service_keys, tokens
from simulator.errors import InvalidArgument, NotFound
from simulator.handler_support import session_scope
from simulator.handler_support.context import Context
from simulator.model import credential_records
from simulator.state.records import ApiKey, SessionProfile, User
from simulator.wire import Json

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


def session_seconds(params: Json, profile: SessionProfile | None) -> int:
    """The shorter of the intent's and the profile's expiry; 15 minutes when neither says."""
    asked = seconds(params["expirationSeconds"], 1) if params.get("expirationSeconds") not in (None, "") else None
    given = [s for s in (asked, profile.expiration_seconds if profile else None) if s]
    return min(given) if given else DEFAULT_SESSION_SECONDS


def new_session(ctx: Context, user: User, public_key: str, params: Json, credential_type: str) -> Json:
    """Register ``public_key`` for the user until the session expires; return {"session": jwt}."""
    profile = session_scope.find(ctx, params["sessionProfileId"]) if params.get("sessionProfileId") else None
    ttl = session_seconds(params, profile)
    key = credential_records.new_api_key(
        ctx,
        {
            "apiKeyName": f"Session key {ctx.now_ms}",
            "publicKey": public_key,
            "curveType": "API_KEY_CURVE_P256",
            "expirationSeconds": str(ttl),
        },
        credential_type,
    )
    key.session_profile_id = profile.session_profile_id if profile else None
    if params.get("invalidateExisting"):
        drop_keys(ctx, user, lambda k: k.credential_type in LOGIN_TYPES)
    add_expiring_key(ctx, user, key)
    claims: Json = {
        "exp": (ctx.now_ms // 1000) + ttl,
        "public_key": key.public_key,
        "session_type": profile.name if profile else "SESSION_TYPE_READ_WRITE",
        "user_id": user.user_id,
        "organization_id": ctx.org.organization_id,
    }
    if profile is not None:
        claims.update(session_profile_id=profile.session_profile_id, scope=profile.scope)
    return {"session": tokens.session_token(claims, service_keys.private("notarizer"))}


def add_expiring_key(ctx: Context, user: User, key: ApiKey) -> None:
    """An 11th expiring key replaces an expired one, else the oldest (resource limits)."""
    credential_records.make_room_for_expiring(ctx, user)
    same = [k.api_key_id for k in user.api_keys.values() if k.public_key == key.public_key]
    for key_id in same:  # logging in again with the same key renews it
        ctx.store.remove_api_key(ctx.org, user, key_id)
    ctx.store.add_api_key(ctx.org, user, key)


def drop_keys(ctx: Context, user: User, which: Callable[[ApiKey], bool]) -> None:
    for key in [k for k in user.api_keys.values() if which(k)]:
        ctx.store.remove_api_key(ctx.org, user, key.api_key_id)


def sealed_key(ctx: Context, user: User, params: Json, credential_type: str, default_name: str) -> tuple[ApiKey, str]:
    """A new expiring P-256 key of the user, and its private key sealed to ``targetPublicKey``
    (a credential bundle). ``invalidateExisting`` first drops the user's keys of the same kind."""
    key_pair = keys.new_ec_key(ctx.source, "p256")
    try:
        bundle = hpke.credential_bundle(
            params["targetPublicKey"], bytes.fromhex(keys.private_hex(key_pair)), keys.new_ec_key(ctx.source, "p256")
        )
    except ValueError as exc:
        raise InvalidArgument(f"invalid targetPublicKey: {exc}") from None
    ttl = seconds(params.get("expirationSeconds"), DEFAULT_SESSION_SECONDS)
    name = params.get("apiKeyName") or f"{default_name} - {ctx.now_ms}"
    key = credential_records.new_api_key(
        ctx,
        {"apiKeyName": name, "publicKey": keys.compressed_hex(key_pair), "expirationSeconds": str(ttl)},
        credential_type,
    )
    if params.get("invalidateExisting"):
        drop_keys(ctx, user, lambda k: k.credential_type == credential_type)
    add_expiring_key(ctx, user, key)
    return key, bundle


def spend_verification_token(ctx: Context, user: User, claims: Json) -> None:
    """A verification token logs in once, and marks its contact verified."""
    ctx.store.used_tokens.add(str(claims["id"]))
    if claims.get("verification_type") == "OTP_TYPE_SMS":
        user.phone_verified = True
    else:
        user.email_verified = True


def user_by_email(ctx: Context, email: str) -> User:
    for user in ctx.org.users.values():
        if (user.email or "").lower() == email.lower():
            return user
    raise NotFound(
        f"no user with email {email} in organization {ctx.org.organization_id}", error_code="REQUEST_INVALID"
    )
