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
from simulator.handling.context import Context
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


def verify_client_signature(signature: Json, claims: Json) -> None:
    """ECDSA P-256 (raw r‖s hex) over the message bytes, by the key the verification token names."""
    try:
        if signature["publicKey"].lower() != str(claims.get("public_key", "")).lower():
            raise ValueError("the signature's key is not the token's")
        raw = bytes.fromhex(signature["signature"])
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(signature["publicKey"]))
        point.verify(der, signature["message"].encode(), ec.ECDSA(hashes.SHA256()))
    except (ValueError, KeyError, TypeError, AttributeError, InvalidSignature):
        raise InvalidArgument(
            "invalid client signature: it must be signed with the key named in the verification token"
        ) from None
