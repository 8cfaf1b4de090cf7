"""HPKE (RFC 9180, base mode) as the service uses it for every enclave envelope, on pyhpke.

Suite DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM, info ``turnkey_hpke``, and the
service's own AAD: the encapsulated key and the receiver key, both uncompressed (65 bytes each).
A credential bundle is base58check(compressed encapsulated key ‖ ciphertext and tag).

pyhpke (a maintained RFC 9180 implementation) does the key schedule; it is the one HPKE of the
project, shared by the server and the test helpers. The ephemeral key is passed in, so sealing
stays deterministic under the simulator's seeded source. pyhpke is imported on first use to keep
the simulator's start light.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import base58
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric import ec

from simulator.crypto import keys

if TYPE_CHECKING:
    from pyhpke import CipherSuite

INFO = b"turnkey_hpke"


@cache
def _suite() -> CipherSuite:
    from pyhpke import AEADId, CipherSuite, KDFId, KEMId

    return CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)


def receiver_point(public_hex: str) -> bytes:
    """The receiver key, given compressed or uncompressed hex, as 65 uncompressed bytes."""
    try:
        point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(public_hex))
    except (ValueError, TypeError):
        raise ValueError(f"not a P-256 public key: {str(public_hex)[:80]!r}") from None
    return keys.uncompressed(point)


def seal(receiver_hex: str, plaintext: bytes, ephemeral: ec.EllipticCurvePrivateKey) -> tuple[bytes, bytes]:
    """(encapsulated key, ciphertext) for the receiver, with the service's AAD."""
    from pyhpke import KEMKey, KEMKeyPair

    receiver = receiver_point(receiver_hex)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), receiver)
    pair = KEMKeyPair(
        KEMKey.from_pyca_cryptography_key(ephemeral), KEMKey.from_pyca_cryptography_key(ephemeral.public_key())
    )
    enc, sender = _suite().create_sender_context(KEMKey.from_pyca_cryptography_key(public), INFO, eks=pair)
    return enc, sender.seal(plaintext, enc + receiver)


def open_sealed(private: ec.EllipticCurvePrivateKey, enc: bytes, ciphertext: bytes) -> bytes:
    """The receiver's side: ValueError for a malformed key, InvalidTag for a wrong key or tampering."""
    from pyhpke import KEMKey, OpenError

    sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), enc)
    enc = keys.uncompressed(sender)
    try:
        recipient = _suite().create_recipient_context(enc, KEMKey.from_pyca_cryptography_key(private), INFO)
        return bytes(recipient.open(ciphertext, enc + keys.uncompressed(private)))
    except OpenError:
        raise InvalidTag() from None


def credential_bundle(receiver_hex: str, plaintext: bytes, ephemeral: ec.EllipticCurvePrivateKey) -> str:
    enc, ciphertext = seal(receiver_hex, plaintext, ephemeral)
    return str(base58.b58encode_check(bytes.fromhex(keys.compressed_hex(ephemeral)) + ciphertext).decode())


def open_credential_bundle(bundle: str, private: ec.EllipticCurvePrivateKey) -> bytes:
    raw = base58.b58decode_check(bundle)
    return open_sealed(private, raw[:33], raw[33:])
