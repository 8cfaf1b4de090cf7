"""Reading and verifying the stamp headers over the raw body bytes.

Nothing here looks at state: a stamp is decoded and its signature checked against the key it
names (API keys, and the client key of an attested stamp) or the key the caller looked up
(WebAuthn). ``X-Stamp-Attested`` (@turnkey/core >= 2.7) carries, besides an API-key-like P-256
signature, the token that vouches for the key (an OTP verification token or an OIDC token);
``simulator.auth.attested`` checks that token. ``X-Session`` carries a read-only session token.
"""

from __future__ import annotations

import binascii
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature

from simulator.errors import Unauthenticated
from simulator.http.request_body import too_deep
from simulator.wire import b64url_decode as b64url_decode  # kept here too: the stampers import it from here
from simulator.wire import b64url_encode as b64url_encode

P256 = "SIGNATURE_SCHEME_TK_API_P256"
SECP256K1 = "SIGNATURE_SCHEME_TK_API_SECP256K1"
SECP256K1_EIP191 = "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191"
ED25519 = "SIGNATURE_SCHEME_TK_API_ED25519"
WEBAUTHN = "SIGNATURE_SCHEME_WEBAUTHN"  # our label for votes made with a passkey
API_KEY_SCHEMES = (P256, SECP256K1, SECP256K1_EIP191, ED25519)
ATTESTED_TOKEN = "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN"
ATTESTED_OIDC = "STAMP_ATTESTED_SCHEME_P256_OIDC"
ATTESTED_SCHEMES = (ATTESTED_TOKEN, ATTESTED_OIDC)
READ_ONLY_SESSION = "SESSION_READ_ONLY"  # our label for a request carrying X-Session
STAMP_HEADERS = ("X-Stamp", "X-Stamp-WebAuthn", "X-Stamp-Attested", "X-Session")

NO_STAMP = (  # the catalogue's two messages for it, the general one first
    "no valid authentication signature found for request: "
    "cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header); "
    "stamp_login also takes X-Stamp-Attested, and reads X-Session"
)


@dataclass(frozen=True)
class Stamp:
    """A decoded stamp. ``handle`` is the public key hex (API key) or the credential id (WebAuthn)."""

    header: str
    handle: str
    scheme: str
    signature: str
    webauthn: dict[str, str] | None = None
    attestation: str | None = None  # X-Stamp-Attested: the verification or OIDC token vouching for the key
    session: str | None = None  # X-Session: a read-only session token (handle and signature unused)


def loads_shallow(text: bytes | str) -> Any:
    """A stamp header's JSON; a deeply nested one is a ValueError like any other that does not parse."""
    if too_deep(text):
        raise ValueError("nested too deeply")
    # orjson: 0.4 µs for a stamp where json takes 3 µs (every request reads one); it refuses NaN and invalid
    # UTF-8 with a ValueError, as the service's Go decoder refuses them
    return orjson.loads(text)


def read_stamp(headers: Mapping[str, str]) -> Stamp:
    """Decode whichever one stamp header the request carries (names are case-insensitive)."""
    present = [(name, value) for name in STAMP_HEADERS if (value := headers.get(name)) is not None]
    if not present:
        raise Unauthenticated(NO_STAMP, error_code="SIGNATURE_MISSING")
    if len(present) > 1:
        raise Unauthenticated(
            "malformed activity stamp: send exactly one of X-Stamp or X-Stamp-WebAuthn (or X-Stamp-Attested, "
            "X-Session), not both: got " + " and ".join(name for name, _ in present),
            error_code="SIGNATURE_INVALID",
        )
    name, value = present[0]
    if name == "X-Stamp":
        return _read_api_stamp(value)
    if name == "X-Stamp-Attested":
        return _read_attested_stamp(value)
    if name == "X-Session":
        return Stamp(value, "", READ_ONLY_SESSION, "", session=value.strip())
    return _read_webauthn_stamp(value)


def _read_api_stamp(header: str) -> Stamp:
    try:
        fields = loads_shallow(b64url_decode(header.strip()))
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


def _read_attested_stamp(header: str) -> Stamp:
    try:
        fields = loads_shallow(b64url_decode(header.strip()))
        parts = {k: str(fields[k]) for k in ("publicKeyAttestation", "scheme", "publicKey", "signature")}
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise Unauthenticated(
            "could not extract attested stamp: X-Stamp-Attested must be base64url of JSON "
            '{"publicKeyAttestation", "scheme", "publicKey", "signature"}',
            error_code="SIGNATURE_INVALID",
        ) from None
    if parts["scheme"] not in ATTESTED_SCHEMES:
        raise Unauthenticated(
            f"malformed attested stamp: unknown scheme {parts['scheme']!r}; expected one of "
            f"{', '.join(ATTESTED_SCHEMES)}",
            error_code="SIGNATURE_INVALID",
        )
    return Stamp(
        header,
        parts["publicKey"].lower(),
        parts["scheme"],
        parts["signature"],
        attestation=parts["publicKeyAttestation"],
    )


def _read_webauthn_stamp(header: str) -> Stamp:
    try:
        fields = loads_shallow(header)
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
            _ec_key("secp256k1", stamp.handle).verify(minimal_der(signature), digest, ECDSA_PREHASHED_SHA256)
        else:
            curve = "p256" if stamp.scheme in (P256, *ATTESTED_SCHEMES) else "secp256k1"
            _ec_key(curve, stamp.handle).verify(minimal_der(signature), body, ECDSA_SHA256)
    except (InvalidSignature, ValueError, TypeError):
        raise Unauthenticated(
            f"could not verify api key signature: the {stamp.scheme} signature does not match "
            "the request body and public key",
            error_code="SIGNATURE_INVALID",
        ) from None


def verify_webauthn_stamp(stamp: Stamp, body: bytes, public_key: bytes) -> None:
    """Check a passkey assertion: challenge = hex SHA-256 of the body, ES256 over authData‖hash.

    The refusal names the check that failed (client data, challenge, type or signature).
    """
    assert stamp.webauthn is not None
    try:
        failed = "clientDataJson (base64url JSON)"
        client_data_raw = b64url_decode(stamp.webauthn["clientDataJson"])
        client_data: dict[str, Any] = loads_shallow(client_data_raw)
        expected = hashlib.sha256(body).hexdigest().encode()
        failed = "challenge (clientDataJson.challenge is not the hex SHA-256 of the request body)"
        if b64url_decode(str(client_data.get("challenge", ""))) != expected:
            raise ValueError("challenge mismatch")
        failed = f"type (clientDataJson.type {client_data.get('type')!r} is not 'webauthn.get')"
        if client_data.get("type", "webauthn.get") != "webauthn.get":
            raise ValueError("wrong client data type")
        failed = "signature (it does not verify with the passkey's registered key)"
        signed = b64url_decode(stamp.webauthn["authenticatorData"]) + hashlib.sha256(client_data_raw).digest()
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), public_key)
        key.verify(b64url_decode(stamp.signature), signed, ECDSA_SHA256)
    except (InvalidSignature, ValueError, TypeError, AttributeError, binascii.Error):
        raise Unauthenticated(
            f"could not verify WebAuthN signature: {failed}; the assertion must sign authenticatorData "
            "and the client data whose challenge is the hex SHA-256 of the request body",
            error_code="SIGNATURE_INVALID",
        ) from None


def minimal_der(signature: bytes) -> bytes:
    """An ECDSA DER signature with its INTEGERs in minimal form.

    @turnkey/crypto's toDerSignature (which @turnkey/core's wallet stamper uses) copies r and s as
    32 bytes each, so an r or s that starts with a zero byte (about one signature in 128) keeps it:
    DER says no, and OpenSSL refuses the encoding. The numbers, and so the signature check, are the
    same either way, so the check takes them as they are (see the README's fidelity notes).
    Anything that is not a SEQUENCE of two INTEGERs is returned unchanged, for OpenSSL to refuse.
    """
    if len(signature) < 8 or signature[0] != 0x30 or signature[1] != len(signature) - 2:
        return signature
    if not _may_be_padded(signature):  # nearly every signature: nothing to re-encode, OpenSSL checks the rest
        return signature
    numbers: list[int] = []
    padded = False  # a needless leading zero byte: the only thing re-encoding changes
    at = 2
    while at < len(signature) and len(numbers) < 2:
        size = signature[at + 1] if at + 1 < len(signature) else 0
        value = signature[at + 2 : at + 2 + size]
        if signature[at] != 0x02 or size == 0 or len(value) != size or value[0] & 0x80:
            return signature
        padded = padded or (size > 1 and value[0] == 0 and not value[1] & 0x80)
        numbers.append(int.from_bytes(value, "big"))
        at += 2 + size
    if len(numbers) != 2 or at != len(signature) or not padded:
        return signature
    return encode_dss_signature(numbers[0], numbers[1])


def _may_be_padded(signature: bytes) -> bool:
    """Whether r or s, read where a well-formed signature has them, starts with a needless zero byte (the same
    bytes the full reading in ``minimal_der`` looks at; anything malformed is left to it)."""
    r_size = signature[3]
    s_at = 4 + r_size
    if s_at + 2 >= len(signature):
        return True
    s_size = signature[s_at + 1]
    return (r_size > 1 and signature[4] == 0 and not signature[5] & 0x80) or (
        s_size > 1 and signature[s_at + 2] == 0 and (s_at + 3 >= len(signature) or not signature[s_at + 3] & 0x80)
    )


def eip191_hash(message: bytes) -> bytes:
    from Crypto.Hash import keccak

    prefix = b"\x19Ethereum Signed Message:\n" + str(len(message)).encode()
    return keccak.new(digest_bits=256, data=prefix + message).digest()


_CURVES = {"p256": ec.SECP256R1, "secp256k1": ec.SECP256K1}
# made once: building the algorithm objects cost a few µs on every stamp (they hold no state between checks)
ECDSA_SHA256 = ec.ECDSA(hashes.SHA256())
ECDSA_PREHASHED_SHA256 = ec.ECDSA(Prehashed(hashes.SHA256()))


@lru_cache(maxsize=4096)
def _ec_key(curve: str, public_hex: str) -> ec.EllipticCurvePublicKey:
    return ec.EllipticCurvePublicKey.from_encoded_point(_CURVES[curve](), bytes.fromhex(public_hex))


@lru_cache(maxsize=4096)
def _ed25519_key(public_hex: str) -> ed25519.Ed25519PublicKey:
    return ed25519.Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))
