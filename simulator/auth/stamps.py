"""Reading and verifying the two stamp headers over the raw body bytes.

Nothing here looks at state: a stamp is decoded and its signature checked against the key it
names (API keys) or the key the caller looked up (WebAuthn).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed

from simulator.errors import Unauthenticated

P256 = "SIGNATURE_SCHEME_TK_API_P256"
SECP256K1 = "SIGNATURE_SCHEME_TK_API_SECP256K1"
SECP256K1_EIP191 = "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191"
ED25519 = "SIGNATURE_SCHEME_TK_API_ED25519"
WEBAUTHN = "SIGNATURE_SCHEME_WEBAUTHN"  # our label for votes made with a passkey
API_KEY_SCHEMES = (P256, SECP256K1, SECP256K1_EIP191, ED25519)

NO_STAMP = "cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)"


@dataclass(frozen=True)
class Stamp:
    """A decoded stamp. ``handle`` is the public key hex (API key) or the credential id (WebAuthn)."""

    header: str
    handle: str
    scheme: str
    signature: str
    webauthn: dict[str, str] | None = None


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def read_stamp(headers: Mapping[str, str]) -> Stamp:
    """Decode whichever one stamp header the request carries (names are case-insensitive)."""
    api = headers.get("X-Stamp")
    passkey = headers.get("X-Stamp-WebAuthn")
    if api is None and passkey is None:
        raise Unauthenticated(NO_STAMP, error_code="SIGNATURE_MISSING")
    if api is not None and passkey is not None:
        raise Unauthenticated(
            "malformed activity stamp: send exactly one of X-Stamp or X-Stamp-WebAuthn, not both",
            error_code="SIGNATURE_INVALID",
        )
    return _read_api_stamp(api) if api is not None else _read_webauthn_stamp(passkey or "")


def _read_api_stamp(header: str) -> Stamp:
    try:
        fields = json.loads(b64url_decode(header.strip()))
        stamp = Stamp(header, str(fields["publicKey"]).lower(), str(fields["scheme"]), str(fields["signature"]))
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise Unauthenticated(
            'could not extract api key stamp: X-Stamp must be base64url of JSON {"publicKey", "scheme", "signature"}',
            error_code="SIGNATURE_INVALID",
        ) from None
    if stamp.scheme not in API_KEY_SCHEMES:
        raise Unauthenticated(
            f"malformed activity stamp: unknown scheme {stamp.scheme!r}; expected one of {', '.join(API_KEY_SCHEMES)}",
            error_code="SIGNATURE_INVALID",
        )
    return stamp


def _read_webauthn_stamp(header: str) -> Stamp:
    try:
        fields = json.loads(header)
        parts = {k: str(fields[k]) for k in ("authenticatorData", "clientDataJson", "credentialId", "signature")}
    except (ValueError, KeyError, TypeError):
        raise Unauthenticated(
            "could not extract webauthn stamp: X-Stamp-WebAuthn must be JSON with "
            "authenticatorData, clientDataJson, credentialId and signature",
            error_code="SIGNATURE_INVALID",
        ) from None
    return Stamp(header, parts["credentialId"], WEBAUTHN, parts["signature"], parts)


def verify_api_key_stamp(stamp: Stamp, body: bytes) -> None:
    """Check an X-Stamp signature over the exact body bytes, or raise Unauthenticated."""
    try:
        signature = bytes.fromhex(stamp.signature)
        if stamp.scheme == ED25519:
            _ed25519_key(stamp.handle).verify(signature, body)
        elif stamp.scheme == SECP256K1_EIP191:
            digest = eip191_hash(body)
            _ec_key("secp256k1", stamp.handle).verify(signature, digest, ec.ECDSA(Prehashed(hashes.SHA256())))
        else:
            curve = "p256" if stamp.scheme == P256 else "secp256k1"
            _ec_key(curve, stamp.handle).verify(signature, body, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError, TypeError):
        raise Unauthenticated(
            f"could not verify api key signature: the {stamp.scheme} signature does not match "
            "the request body and public key",
            error_code="SIGNATURE_INVALID",
        ) from None


def verify_webauthn_stamp(stamp: Stamp, body: bytes, public_key: bytes) -> None:
    """Check a passkey assertion: challenge = hex SHA-256 of the body, ES256 over authData‖hash."""
    assert stamp.webauthn is not None
    try:
        client_data_raw = b64url_decode(stamp.webauthn["clientDataJson"])
        client_data: dict[str, Any] = json.loads(client_data_raw)
        expected = hashlib.sha256(body).hexdigest().encode()
        if b64url_decode(str(client_data.get("challenge", ""))) != expected:
            raise ValueError("challenge mismatch")
        if client_data.get("type", "webauthn.get") != "webauthn.get":
            raise ValueError("wrong client data type")
        signed = b64url_decode(stamp.webauthn["authenticatorData"]) + hashlib.sha256(client_data_raw).digest()
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), public_key)
        key.verify(b64url_decode(stamp.signature), signed, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError, TypeError, binascii.Error):
        raise Unauthenticated(
            "could not verify WebAuthN signature: the assertion must sign authenticatorData and "
            "the client data whose challenge is the hex SHA-256 of the request body",
            error_code="SIGNATURE_INVALID",
        ) from None


def eip191_hash(message: bytes) -> bytes:
    from Crypto.Hash import keccak

    prefix = b"\x19Ethereum Signed Message:\n" + str(len(message)).encode()
    return keccak.new(digest_bits=256, data=prefix + message).digest()


_CURVES = {"p256": ec.SECP256R1, "secp256k1": ec.SECP256K1}


@lru_cache(maxsize=4096)
def _ec_key(curve: str, public_hex: str) -> ec.EllipticCurvePublicKey:
    return ec.EllipticCurvePublicKey.from_encoded_point(_CURVES[curve](), bytes.fromhex(public_hex))


@lru_cache(maxsize=4096)
def _ed25519_key(public_hex: str) -> ed25519.Ed25519PublicKey:
    return ed25519.Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))
