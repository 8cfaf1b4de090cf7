"""Verification tokens (issued by verify_otp) as the families that accept one read them: their claims
checked for this organization or an ancestor, and the client signature that binds one to a key
(otp_login, a contact change, a sign-up's create_sub_organization)."""

from __future__ import annotations

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from simulator.auth import attested
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.state.records import User
from simulator.wire import Json


def reachable(ctx: Context, organization_id: str) -> bool:
    """The organization or one of its ancestors (parent-issued codes and tokens serve sub-orgs)."""
    org_id: str | None = ctx.org.organization_id
    while org_id:
        if org_id == organization_id:
            return True
        org_id = ctx.store.orgs[org_id].parent_id
    return False


def verification_claims(ctx: Context, token: str) -> Json:
    try:
        claims = attested.verification_claims(token, ctx.now_ms, ctx.store.used_tokens)
    except ValueError as exc:
        raise InvalidArgument(f"invalid verification token: {exc}") from None
    if not reachable(ctx, str(claims.get("organization_id", ""))):
        raise InvalidArgument("invalid verification token: issued for another organization")
    return claims


def mark_contact_verified(users: list[User], claims: Json) -> None:
    """The users whose e-mail address (or phone number, for an SMS token) is the token's contact get it
    marked verified: what a sign-up with a verification token does (auth-proxy.mdx, "Signup")."""
    sms = claims.get("verification_type") == "OTP_TYPE_SMS"
    contact = str(claims.get("contact", ""))
    for user in users:
        if sms and user.phone_number == contact:
            user.phone_verified = True
        elif not sms and (user.email or "").lower() == contact.lower():
            user.email_verified = True


REFUSED = "invalid client signature: "
RAW_SIGNATURE_HEX = 128  # r‖s, 32 bytes each


def verify_client_signature(signature: Json, claims: Json) -> None:
    """ECDSA P-256 (raw r‖s hex) over the message bytes, by the key the verification token names.

    Each refusal names what is wrong: a missing field, another key than the token's, a DER
    signature (@turnkey/core signs with ``SignatureFormat.Raw``: the service's form is r‖s, and no
    source shows it accepting DER; docs/ledger/client-signature.yaml), or a signature that does not
    verify over the message."""
    if not isinstance(signature, dict):
        raise InvalidArgument(REFUSED + "it must be an object {publicKey, scheme, message, signature}")
    missing = [f for f in ("publicKey", "message", "signature") if not isinstance(signature.get(f), str)]
    if missing:
        raise InvalidArgument(REFUSED + f"{', '.join(missing)} missing (strings expected)")
    named = str(claims.get("public_key", ""))
    if signature["publicKey"].lower() != named.lower():
        raise InvalidArgument(
            REFUSED + f"it must be signed with the key named in the verification token ({named}), "
            f"not {signature['publicKey']}"
        )
    raw = hex_bytes(signature["signature"])
    if raw is None or len(raw) != RAW_SIGNATURE_HEX // 2:
        der = raw is not None and looks_like_der(raw)
        raise InvalidArgument(
            REFUSED
            + ("the signature is DER-encoded; " if der else "")
            + f"it must be the raw r‖s form: {RAW_SIGNATURE_HEX} hex characters (32-byte r then 32-byte s), "
            "as @turnkey/api-key-stamper's sign(message, SignatureFormat.Raw) makes it"
        )
    try:
        der_form = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(named))
        point.verify(der_form, signature["message"].encode(), ec.ECDSA(hashes.SHA256()))
    except (ValueError, InvalidSignature):
        raise InvalidArgument(
            REFUSED + "it does not verify: ECDSA P-256 over SHA-256 of the message's exact bytes, "
            "by the verification token's key"
        ) from None


def hex_bytes(text: str) -> bytes | None:
    try:
        return bytes.fromhex(text.removeprefix("0x"))
    except ValueError:
        return None


def looks_like_der(raw: bytes) -> bool:
    """An ASN.1 SEQUENCE of two INTEGERs, as DER ECDSA signatures are (70 to 72 bytes for P-256)."""
    return len(raw) >= 8 and raw[0] == 0x30 and raw[1] == len(raw) - 2 and raw[2] == 0x02
