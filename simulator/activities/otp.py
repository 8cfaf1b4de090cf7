"""One-time codes: init_otp(_auth), verify_otp, otp_login and otp_auth.

Codes land in the store's outbox instead of an inbox. Rules as the service documents them:
length 6 to 9 (default 9), Crockford base32 unless ``alphanumeric: false`` (digits), 5-minute
expiry (at most 10), 3 attempts per code, at most 3 active codes per contact and, when the
request names a ``userIdentifier``, at most 3 codes per identifier in 3 minutes (email.mdx, "OTP
rate limits"). The sandbox contact user@example.com always gets 000000; scenarios can fix codes
per contact.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from simulator.crypto import hpke, keys, service_keys, tokens
from simulator.errors import InvalidArgument, NotFound
from simulator.handler_support.context import Context
from simulator.model import documented_rules, session_keys
from simulator.model.email_customization import check_template_variables
from simulator.model.verification_tokens import reachable, verification_claims, verify_client_signature
from simulator.state.records import Otp, User, timestamp
from simulator.wire import Json

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
MAX_ACTIVE, MAX_ATTEMPTS, MAX_PER_IDENTIFIER = 3, 3, 3
INVALID_CODE = "Invalid OTP code"  # @turnkey/core maps this phrase to INVALID_OTP_CODE
SENDER_FIELDS = ("sendFromEmailAddress", "sendFromEmailSenderName", "replyToEmailAddress")  # email.mdx
TOO_MANY = "Max number of OTPs have been initiated please wait and try again"  # @turnkey/core matches it too


@dataclass(frozen=True)
class InitLimit:
    """At most ``count`` codes for one key while they count: the one rule behind both documented
    init_otp limits, read from the codes already sent (so snapshots and resets carry it)."""

    key: Callable[[Otp], str | None]  # what the limit counts by (None: the code is not counted)
    counts: Callable[[Otp, int], bool]  # whether a code still counts at this time (ms)
    count: int


PER_CONTACT = InitLimit(lambda o: o.contact, lambda o, now: not o.used and o.expires_ms > now, MAX_ACTIVE)
IDENTIFIER_WINDOW_MS = 3 * 60 * 1000  # "3 requests per 3 minutes per unique userIdentifier"
PER_IDENTIFIER = InitLimit(
    lambda o: o.user_identifier, lambda o, now: now - o.created_ms < IDENTIFIER_WINDOW_MS, MAX_PER_IDENTIFIER
)


def init_otp(ctx: Context, params: Json) -> Json:
    otp = new_otp(ctx, params)
    if ctx.activity_type == "ACTIVITY_TYPE_INIT_OTP_V3":
        return {"otpId": otp.otp_id, "otpEncryptionTargetBundle": target_bundle(ctx, otp)}
    return {"otpId": otp.otp_id}


def init_otp_auth(ctx: Context, params: Json) -> Json:
    return {"otpId": new_otp(ctx, params).otp_id}


def check_init_limits(ctx: Context, contact: str, identifier: str | None) -> None:
    """Refuse a new code past either documented limit (a refused request is not counted)."""
    for limit, key in ((PER_CONTACT, contact), (PER_IDENTIFIER, identifier)):
        if key is None:
            continue
        counted = sum(1 for o in ctx.store.otps.values() if limit.key(o) == key and limit.counts(o, ctx.now_ms))
        if counted >= limit.count:
            raise InvalidArgument(TOO_MANY, error_code="MAX_OTP_INITIATED")


def require_otp_feature(ctx: Context, otp_type: object, operation: str) -> None:
    """E-mail codes need FEATURE_NAME_OTP_EMAIL_AUTH here and above (SMS codes have a feature of their own)."""
    if otp_type in (None, "OTP_TYPE_EMAIL"):
        documented_rules.require_feature(ctx, documented_rules.OTP_EMAIL_AUTH, operation)


def new_otp(ctx: Context, params: Json) -> Otp:
    require_otp_feature(ctx, params["otpType"], "init_otp")
    contact, now, identifier = params["contact"], ctx.now_ms, params.get("userIdentifier") or None
    check_template_variables(params.get("emailCustomization") or {})
    check_init_limits(ctx, contact, identifier)
    ttl = session_keys.seconds(params.get("expirationSeconds"), 300)
    if ttl > 600:
        raise InvalidArgument(f"invalid expirationSeconds {ttl}: OTP codes expire within 600 seconds")
    otp = Otp(
        ctx.new_id(), ctx.org.organization_id, params["otpType"], contact, code_for(ctx, params), now, now + ttl * 1000
    )
    otp.user_identifier = identifier
    ctx.store.otps[otp.otp_id] = otp
    ctx.store.outbox.append(
        {
            "otpId": otp.otp_id,
            "organizationId": otp.organization_id,
            "channel": otp.otp_type,
            "contact": contact,
            "code": otp.code,
            "sentAt": timestamp(now),
            "appName": params.get("appName", ""),
            "customization": params.get("emailCustomization") or params.get("smsCustomization") or {},
            "sender": {k: params[k] for k in SENDER_FIELDS if params.get(k)},
        }
    )
    return otp


def code_for(ctx: Context, params: Json) -> str:
    fixed = ctx.store.otp_codes.get(params["contact"])
    if fixed is not None:
        return fixed
    length = params.get("otpLength", 9)
    if not 6 <= length <= 9:
        raise InvalidArgument(f"invalid otpLength {length}: between 6 and 9")
    alphabet = CROCKFORD if params.get("alphanumeric", True) else "0123456789"
    return "".join(alphabet[ctx.source.randbelow(len(alphabet))] for _ in range(length))


def target_bundle(ctx: Context, otp: Otp) -> str:
    """V3's encryption target, signed by the simulator's enclave key (clients pin the real one
    unless given an override); its private key stays with the OTP to open the V2 verification."""
    target = keys.new_ec_key(ctx.source, "p256")
    otp.target_key = keys.private_hex(target)
    data = json.dumps({"targetPublic": keys.uncompressed(target).hex()}).encode()
    signature = service_keys.private("enclave").sign(data, ec.ECDSA(hashes.SHA256()))
    return json.dumps(
        {
            "version": "v1.0.0",
            "data": data.hex(),
            "dataSignature": signature.hex(),
            "enclaveQuorumPublic": service_keys.public_hex("enclave"),
        }
    )


def spend(ctx: Context, otp_id: str, code: str) -> Otp:
    """Check a code: unknown, expired, used, wrong and locked codes are refused."""
    otp = ctx.store.otps.get(otp_id)
    if otp is None or not reachable(ctx, otp.organization_id):
        raise NotFound(
            f"OTP {otp_id} not found in organization {ctx.org.organization_id}", error_code="REQUEST_INVALID"
        )
    if otp.used or otp.expires_ms <= ctx.now_ms or otp.attempts >= MAX_ATTEMPTS:
        why = "used" if otp.used else "expired" if otp.expires_ms <= ctx.now_ms else "locked after 3 attempts"
        raise InvalidArgument(f"{INVALID_CODE}: the code is {why}", error_code="REQUEST_INVALID")
    if code.upper() != otp.code.upper():
        otp.attempts += 1
        raise InvalidArgument(
            f"{INVALID_CODE}: {MAX_ATTEMPTS - otp.attempts} attempt(s) left", error_code="REQUEST_INVALID"
        )
    otp.used = True
    return otp


def verify_otp(ctx: Context, params: Json) -> Json:
    """V1 takes the code (and the client's key) in clear; V2 takes them HPKE-sealed to V3's target."""
    code, public_key = params.get("otpCode"), params.get("publicKey")
    known = ctx.store.otps.get(params["otpId"])
    if known is not None:
        require_otp_feature(ctx, known.otp_type, "verify_otp")
    if "encryptedOtpBundle" in params:
        code, public_key = open_otp_bundle(ctx, params["otpId"], params["encryptedOtpBundle"])
    otp = spend(ctx, params["otpId"], str(code))
    ttl = session_keys.seconds(params.get("expirationSeconds"), 3600)
    enclave = "encryptedOtpBundle" in params
    claims = {
        "contact": otp.contact,
        # V2's token comes from the enclave, as the service's: exp a millisecond string, signed by the
        # TLS-fetcher key (the simulator's "enclave"); V1's legacy token: exp in seconds, its own key.
        "exp": str(ctx.now_ms + ttl * 1000) if enclave else ctx.now_ms // 1000 + ttl,
        "id": ctx.new_id(),
        "organization_id": otp.organization_id,
        "verification_type": otp.otp_type,
    }
    if public_key:
        claims["public_key"] = public_key
    key = service_keys.private("enclave" if enclave else "verification")
    return {"verificationToken": tokens.sign(claims, key)}


def open_otp_bundle(ctx: Context, otp_id: str, bundle: str) -> tuple[str, str | None]:
    """``{"encappedPublic", "ciphertext"}`` (hex), sealed to the OTP's target key, holding
    ``{"otp_code", "public_key"}``."""
    otp = ctx.store.otps.get(otp_id)
    if otp is None or otp.target_key is None:
        raise InvalidArgument(f"OTP {otp_id} has no encryption target: start it with ACTIVITY_TYPE_INIT_OTP_V3")
    try:
        sealed = json.loads(bundle)
        plain = hpke.open_sealed(
            keys.ec_key_from_hex("p256", otp.target_key),
            bytes.fromhex(sealed["encappedPublic"]),
            bytes.fromhex(sealed["ciphertext"]),
        )
        payload = json.loads(plain)
        return str(payload["otp_code"]), payload.get("public_key")
    except (ValueError, KeyError, TypeError, InvalidTag):
        raise InvalidArgument(
            f"{INVALID_CODE}: the encrypted OTP bundle does not open with this OTP's target key"
        ) from None


def otp_login(ctx: Context, params: Json) -> Json:
    claims = verification_claims(ctx, params["verificationToken"])
    require_otp_feature(ctx, claims.get("verification_type"), "otp_login")
    user = user_by_contact(ctx, claims)
    signature = params.get("clientSignature")
    if signature is None and (claims.get("public_key") or ctx.activity_type.endswith("_V2")):
        raise InvalidArgument("clientSignature is required: the verification token names a public key")
    if signature is not None:
        check_client_signature(signature, claims, params["publicKey"])
    session_keys.spend_verification_token(ctx, user, claims)
    return session_keys.new_session(ctx, user, params["publicKey"], params, "CREDENTIAL_TYPE_LOGIN")


def user_by_contact(ctx: Context, claims: Json) -> User:
    field = "phone_number" if claims.get("verification_type") == "OTP_TYPE_SMS" else "email"
    for user in ctx.org.users.values():
        if (getattr(user, field) or "").lower() == str(claims["contact"]).lower():
            return user
    raise NotFound(
        f"no user with {field.replace('_', ' ')} {claims['contact']} in organization {ctx.org.organization_id}",
        error_code="REQUEST_INVALID",
    )


def check_client_signature(signature: Json, claims: Json, public_key: str) -> None:
    """The login message names the token and the session key, and the token's key signed it."""
    try:
        message = json.loads(signature["message"])
        found = (message.get("tokenId"), message.get("type"), message.get("login", {}).get("publicKey", "").lower())
    except (ValueError, KeyError, TypeError, AttributeError):
        found = None
    if found != (claims["id"], "USAGE_TYPE_LOGIN", public_key.lower()):
        raise InvalidArgument(
            "invalid client signature: the message must be {login: {publicKey}, tokenId, type: "
            "USAGE_TYPE_LOGIN} for this token and session key"
        )
    verify_client_signature(signature, claims)


def otp_auth(ctx: Context, params: Json) -> Json:
    """A new expiring P-256 key for the user, its private key sealed to targetPublicKey."""
    known = ctx.store.otps.get(params["otpId"])
    if known is not None:
        require_otp_feature(ctx, known.otp_type, "otp_auth")
    otp = spend(ctx, params["otpId"], params["otpCode"])
    user = user_by_contact(ctx, {"contact": otp.contact, "verification_type": otp.otp_type})
    key, bundle = session_keys.sealed_key(ctx, user, params, "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256", "OTP Auth")
    return {"userId": user.user_id, "apiKeyId": key.api_key_id, "credentialBundle": bundle}
