"""Credential records as several families make them: API keys and authenticators built from their
parameters, checked against a user's allowance and added (users, sessions, recovery, the scenario
seed and the proxy's configurations), an OAuth 2.0 credential made (the credentials activities and the scenario seed) and looked up (the
credentials and OAuth activities), and a fiat on-ramp credential made."""

from __future__ import annotations

import cbor2
from cryptography.hazmat.primitives.asymmetric import ec

from simulator.auth import passkeys
from simulator.crypto import keys
from simulator.errors import InvalidArgument, ResourceExhausted
from simulator.handler_support.context import Context
from simulator.state.records import ApiKey, Authenticator, Record, User
from simulator.wire import Json, b64url_encode

CURVE_TYPES = {
    "API_KEY_CURVE_P256": "CREDENTIAL_TYPE_API_KEY_P256",
    "API_KEY_CURVE_SECP256K1": "CREDENTIAL_TYPE_API_KEY_SECP256K1",
    "API_KEY_CURVE_ED25519": "CREDENTIAL_TYPE_API_KEY_ED25519",
}
MAX_KEYS_PER_KIND = 10  # per user: 10 long-lived and 10 expiring keys (resource-limits)
MAX_AUTHENTICATORS = 10


EC_API_KEY_CURVES = {
    "API_KEY_CURVE_P256": ("P-256", ec.SECP256R1),
    "API_KEY_CURVE_SECP256K1": ("secp256k1", ec.SECP256K1),
}


def normalise_public_key(curve_type: str, public_key: str) -> str:
    """Lower-case hex as stamps carry it (compressed for EC keys); a refusal names what is wrong.

    A compressed P-256 key is taken as the service takes it: Turnkey's own Python SDK test registers
    ``02`` followed by 32 random bytes (half of which are no point on the curve) and expects success.
    Nothing public says the same of secp256k1, so there the point must be on the curve (the ledger,
    docs/ledger/limits-core.yaml, records the choice).
    """
    problem = f"invalid public key {public_key[:80]!r} for {curve_type}"
    try:
        raw = bytes.fromhex(public_key)
    except ValueError:
        raise InvalidArgument(f"{problem}: not hexadecimal") from None
    if curve_type == "API_KEY_CURVE_ED25519":
        if len(raw) != 32:
            raise InvalidArgument(f"{problem}: wrong length, {len(raw)} bytes where an Ed25519 key has 32")
        return raw.hex()
    name, curve = EC_API_KEY_CURVES[curve_type]
    expected = {33: (2, 3), 65: (4,)}.get(len(raw))
    if expected is None:
        raise InvalidArgument(
            f"{problem}: wrong length, {len(raw)} bytes where a {name} key has 33 (compressed) or 65 (uncompressed)"
        )
    if raw[0] not in expected:
        wanted = " or ".join(f"{p:02x}" for p in expected)
        raise InvalidArgument(
            f"{problem}: wrong prefix {raw[0]:02x}, a {len(raw)}-byte {name} key starts with {wanted}"
        )
    if len(raw) == 33 and curve_type == "API_KEY_CURVE_P256":
        return raw.hex()
    try:
        return keys.compressed_hex(ec.EllipticCurvePublicKey.from_encoded_point(curve(), raw))
    except ValueError:
        raise InvalidArgument(f"{problem}: not a point on the {name} curve") from None


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
        if key.expiration_seconds is not None:
            make_room_for_expiring(ctx, user)
        ctx.store.add_api_key(ctx.org, user, key)


def make_room_for_expiring(ctx: Context, user: User) -> None:
    """An 11th expiring key deletes one of the user's: an expired key first, else the oldest
    (resource limits, sessions overview, e-mail and SMS auth pages; docs/ledger/errors-catalogue.yaml)."""
    expiring = sorted(
        (k for k in user.api_keys.values() if k.expiration_seconds is not None),
        key=lambda k: ((k.expires_at_ms() or 0) > ctx.now_ms, k.created_ms),
    )
    if len(expiring) >= MAX_KEYS_PER_KIND:
        ctx.store.remove_api_key(ctx.org, user, expiring[0].api_key_id)


def check_api_keys(user: User, keys: list[ApiKey]) -> None:
    """Refuse keys over the per-user limits, or already registered for the user. Expiring keys past
    the limit replace older ones (``make_room_for_expiring``): only more than ten in one request is
    refused."""
    for expiring in (True, False):
        have = sum((k.expiration_seconds is not None) == expiring for k in user.api_keys.values())
        adding = sum((k.expiration_seconds is not None) == expiring for k in keys)
        if (0 if expiring else have) + adding > MAX_KEYS_PER_KIND:
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


def new_authenticator(ctx: Context, params: Json, *, challenge_must_match: bool = False) -> Authenticator:
    """Register a passkey from its attestation, checked as a relying party checks it (auth.passkeys).
    Only create_authenticators has always compared the challenge (``challenge_must_match``)."""
    attestation = params["attestation"]
    verified = passkeys.verify_registration(
        attestation,
        params["challenge"],
        passkeys.allowed_origins(ctx.store, ctx.org),
        challenge_must_match=challenge_must_match,
    )
    record = authenticator_record(
        ctx,
        params["authenticatorName"],
        verified.credential_id,
        verified.public_key,
        attestation.get("transports") or ["AUTHENTICATOR_TRANSPORT_INTERNAL"],
    )
    record.attestation_type = verified.fmt
    record.aaguid = verified.aaguid
    return record


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


def oauth2_credential(ctx: Context, cred_id: str) -> Record:
    return ctx.org.find(ctx.org.oauth2_credentials, cred_id, "oauth2 credential", "OAUTH2_CREDENTIAL_NOT_FOUND")


def new_oauth2_credential(ctx: Context, params: Json) -> str:
    """An OAuth 2.0 client credential in ``ctx.org`` (create_oauth2_credential, a scenario's
    ``oauth2Credentials``); its id."""
    cred_id = ctx.new_id()
    fields = {"oauth2CredentialId": cred_id, "organizationId": ctx.org.organization_id, **oauth2_fields(params)}
    ctx.org.oauth2_credentials[cred_id] = Record(cred_id, fields, ctx.now_ms)
    return cred_id


def oauth2_fields(params: Json) -> Json:
    if not params["clientId"]:
        raise InvalidArgument("client_id must be set")  # the error catalogue's message, naming the proto field
    return {k: params[k] for k in ("provider", "clientId", "encryptedClientSecret")}


def new_fiat_on_ramp_credential(ctx: Context, params: Json) -> str:
    """A fiat on-ramp provider credential in ``ctx.org`` (create_fiat_on_ramp_credential, a scenario's
    ``fiatOnRampCredentials``); its id."""
    cred_id = ctx.new_id()
    fields = {"fiatOnrampCredentialId": cred_id, "organizationId": ctx.org.organization_id, **params}
    ctx.org.fiat_credentials[cred_id] = Record(cred_id, fields, ctx.now_ms)
    return cred_id
