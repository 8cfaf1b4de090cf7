"""API keys, authenticators, OAuth 2.0 and fiat on-ramp credentials."""

from __future__ import annotations

import binascii

import cbor2
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from simulator.activities.context import Context
from simulator.auth.stamps import b64url_decode, b64url_encode
from simulator.crypto import keys
from simulator.errors import InvalidArgument, ResourceExhausted
from simulator.state.records import ApiKey, Authenticator, Record, User
from simulator.wire import Json

CURVE_TYPES = {
    "API_KEY_CURVE_P256": "CREDENTIAL_TYPE_API_KEY_P256",
    "API_KEY_CURVE_SECP256K1": "CREDENTIAL_TYPE_API_KEY_SECP256K1",
    "API_KEY_CURVE_ED25519": "CREDENTIAL_TYPE_API_KEY_ED25519",
}
MAX_KEYS_PER_KIND = 10  # per user: 10 long-lived and 10 expiring keys (resource-limits)
MAX_AUTHENTICATORS = 10


def normalise_public_key(curve_type: str, public_key: str) -> str:
    """Lower-case hex as stamps carry it: compressed for EC keys; refuse what is not a key."""
    try:
        raw = bytes.fromhex(public_key)
        if curve_type == "API_KEY_CURVE_ED25519":
            ed25519.Ed25519PublicKey.from_public_bytes(raw)
            return raw.hex()
        curve = ec.SECP256R1() if curve_type == "API_KEY_CURVE_P256" else ec.SECP256K1()
        return keys.compressed_hex(ec.EllipticCurvePublicKey.from_encoded_point(curve, raw))
    except ValueError:
        raise InvalidArgument(
            f"invalid public key {public_key[:80]!r} for {curve_type}: expected hex of a "
            "compressed point (33 bytes) for EC curves or 32 bytes for Ed25519"
        ) from None


def new_api_key(ctx: Context, params: Json, credential_type: str | None = None) -> ApiKey:
    curve = params.get("curveType", "API_KEY_CURVE_P256")
    expiration = params.get("expirationSeconds")
    try:
        seconds = int(expiration) if expiration not in (None, "") else None
    except ValueError:
        seconds = -1
    if seconds is not None and seconds <= 0:
        raise InvalidArgument(f"invalid api key expiration: {expiration!r} (a positive number of seconds)")
    return ApiKey(
        api_key_id=ctx.new_id(),
        name=params["apiKeyName"],
        public_key=normalise_public_key(curve, params["publicKey"]),
        credential_type=credential_type or CURVE_TYPES[curve],
        created_ms=ctx.now_ms,
        expiration_seconds=seconds,
    )


def add_api_keys(ctx: Context, user: User, keys: list[ApiKey]) -> None:
    check_api_keys(user, keys)
    for key in keys:
        ctx.store.add_api_key(ctx.org, user, key)


def check_api_keys(user: User, keys: list[ApiKey]) -> None:
    """Refuse keys over the per-user limits, or already registered for the user."""
    for expiring in (True, False):
        have = sum((k.expiration_seconds is not None) == expiring for k in user.api_keys.values())
        adding = sum((k.expiration_seconds is not None) == expiring for k in keys)
        if have + adding > MAX_KEYS_PER_KIND:
            kind = "short-lived" if expiring else "long-lived"
            raise ResourceExhausted(f"user has exceeded maximum {kind} api keys ({MAX_KEYS_PER_KIND})")
    seen = {k.public_key for k in user.api_keys.values()}
    for key in keys:
        if key.public_key in seen:
            raise InvalidArgument(
                f"api key with public key {key.public_key} already exists for user {user.user_id}",
                error_code="CREDENTIAL_CONFLICT",
            )
        seen.add(key.public_key)


def new_authenticator(ctx: Context, params: Json) -> Authenticator:
    """Register a passkey from its attestation: the credential key comes out of authData."""
    attestation = params["attestation"]
    try:
        att = cbor2.loads(b64url_decode(attestation["attestationObject"]))
        auth_data: bytes = att["authData"]
        id_len = int.from_bytes(auth_data[53:55], "big")
        cose = cbor2.loads(auth_data[55 + id_len :])
        point = b"\x04" + cose[-2] + cose[-3]
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, KeyError, TypeError, IndexError, binascii.Error, cbor2.CBORDecodeError):
        raise InvalidArgument(
            "invalid attestation: attestationObject must be base64url CBOR whose authData carries "
            "an ES256 (P-256) credential public key"
        ) from None
    return authenticator_record(
        ctx,
        params["authenticatorName"],
        attestation["credentialId"],
        point,
        attestation.get("transports") or ["AUTHENTICATOR_TRANSPORT_INTERNAL"],
    )


def authenticator_record(
    ctx: Context, name: str, credential_id: str, point: bytes, transports: list[str]
) -> Authenticator:
    return Authenticator(
        authenticator_id=ctx.new_id(),
        name=name,
        credential_id=credential_id,
        public_key=point,
        cose_public_key=cose_key(point),
        created_ms=ctx.now_ms,
        transports=list(transports),
    )


def cose_key(point: bytes) -> str:
    """base64url COSE_Key of a P-256 point, the form the service shows (``pQECAyYgASFYI…``)."""
    return b64url_encode(cbor2.dumps({1: 2, 3: -7, -1: 1, -2: point[1:33], -3: point[33:65]}))


def add_authenticators(ctx: Context, user: User, auths: list[Authenticator]) -> None:
    check_authenticators(user, auths)
    for auth in auths:
        ctx.store.add_authenticator(ctx.org, user, auth)


def check_authenticators(user: User, auths: list[Authenticator]) -> None:
    if len(user.authenticators) + len(auths) > MAX_AUTHENTICATORS:
        raise ResourceExhausted(f"user has exceeded maximum authenticators ({MAX_AUTHENTICATORS})")


def create_api_keys(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    keys = [new_api_key(ctx, p) for p in params["apiKeys"]]
    add_api_keys(ctx, user, keys)
    return {"apiKeyIds": [k.api_key_id for k in keys]}


def delete_api_keys(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    ids = params["apiKeyIds"]
    ctx.existing(user.api_keys, ids, "api keys", "CREDENTIAL_NOT_FOUND", f"user {user.user_id}")
    for key_id in ids:
        ctx.store.remove_api_key(ctx.org, user, key_id)
    return {"apiKeyIds": list(ids)}


def delete_authenticators(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    ids = params["authenticatorIds"]
    ctx.existing(user.authenticators, ids, "authenticators", "CREDENTIAL_NOT_FOUND", f"user {user.user_id}")
    for auth_id in ids:
        ctx.store.remove_authenticator(ctx.org, user, auth_id)
    return {"authenticatorIds": list(ids)}


def create_oauth2_credential(ctx: Context, params: Json) -> Json:
    cred_id = ctx.new_id()
    fields = {"oauth2CredentialId": cred_id, "organizationId": ctx.org.organization_id, **oauth2_fields(params)}
    ctx.org.oauth2_credentials[cred_id] = Record(cred_id, fields, ctx.now_ms)
    return {"oauth2CredentialId": cred_id}


def update_oauth2_credential(ctx: Context, params: Json) -> Json:
    cred_id = params["oauth2CredentialId"]
    record = oauth2_credential(ctx, cred_id)
    record.fields.update(oauth2_fields(params))
    record.updated_ms = ctx.now_ms
    return {"oauth2CredentialId": cred_id}


def oauth2_credential(ctx: Context, cred_id: str) -> Record:
    return ctx.org.find(ctx.org.oauth2_credentials, cred_id, "oauth2 credential", "OAUTH2_CREDENTIAL_NOT_FOUND")


def oauth2_fields(params: Json) -> Json:
    return {k: params[k] for k in ("provider", "clientId", "encryptedClientSecret")}


def create_fiat_on_ramp_credential(ctx: Context, params: Json) -> Json:
    cred_id = ctx.new_id()
    fields = {"fiatOnrampCredentialId": cred_id, "organizationId": ctx.org.organization_id, **params}
    ctx.org.fiat_credentials[cred_id] = Record(cred_id, fields, ctx.now_ms)
    return {"fiatOnRampCredentialId": cred_id}


def delete_oauth2_credential(ctx: Context, params: Json) -> Json:
    cred_id = params["oauth2CredentialId"]
    if not cred_id:
        raise InvalidArgument("oauth2_credential_id must be set")
    oauth2_credential(ctx, cred_id)
    del ctx.org.oauth2_credentials[cred_id]
    return {"oauth2CredentialId": cred_id}


def fiat_credential(ctx: Context, cred_id: str) -> Record:
    return ctx.org.find(ctx.org.fiat_credentials, cred_id, "fiat on-ramp credential")


def update_fiat_on_ramp_credential(ctx: Context, params: Json) -> Json:
    """Sets the provider, project and keys given; the intent spells ``Onramp``, the result ``OnRamp``."""
    cred_id = params["fiatOnrampCredentialId"]
    record = fiat_credential(ctx, cred_id)
    record.fields.update(params)
    record.updated_ms = ctx.now_ms
    return {"fiatOnRampCredentialId": cred_id}


def delete_fiat_on_ramp_credential(ctx: Context, params: Json) -> Json:
    cred_id = params["fiatOnrampCredentialId"]
    fiat_credential(ctx, cred_id)
    del ctx.org.fiat_credentials[cred_id]
    return {"fiatOnRampCredentialId": cred_id}
