"""HPKE (RFC 9180, base mode) as the service uses it for credential bundles.

Suite DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM, info ``turnkey_hpke``, and the
service's own AAD: the encapsulated key and the receiver key, both uncompressed (65 bytes each).
A credential bundle is base58check(compressed encapsulated key ‖ ciphertext and tag).
"""

from __future__ import annotations

import hashlib
import hmac

import base58
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from simulator.crypto import keys

INFO = b"turnkey_hpke"
_KEM_SUITE = b"KEM" + (0x0010).to_bytes(2, "big")
_HPKE_SUITE = b"HPKE" + (0x0010).to_bytes(2, "big") + (0x0001).to_bytes(2, "big") + (0x0002).to_bytes(2, "big")


def _extract(salt: bytes, ikm: bytes) -> bytes:
    return hmac.new(salt or bytes(32), ikm, hashlib.sha256).digest()


def _expand(prk: bytes, info: bytes, length: int) -> bytes:
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out, counter = out + block, counter + 1
    return out[:length]


def _labeled_extract(suite: bytes, salt: bytes, label: bytes, ikm: bytes) -> bytes:
    return _extract(salt, b"HPKE-v1" + suite + label + ikm)


def _labeled_expand(suite: bytes, prk: bytes, label: bytes, info: bytes, length: int) -> bytes:
    return _expand(prk, length.to_bytes(2, "big") + b"HPKE-v1" + suite + label + info, length)


def _key_and_nonce(dh: bytes, enc: bytes, receiver: bytes) -> tuple[bytes, bytes]:
    eae_prk = _labeled_extract(_KEM_SUITE, b"", b"eae_prk", dh)
    shared = _labeled_expand(_KEM_SUITE, eae_prk, b"shared_secret", enc + receiver, 32)
    context = (
        b"\x00"
        + _labeled_extract(_HPKE_SUITE, b"", b"psk_id_hash", b"")
        + _labeled_extract(_HPKE_SUITE, b"", b"info_hash", INFO)
    )
    secret = _labeled_extract(_HPKE_SUITE, shared, b"secret", b"")
    return (
        _labeled_expand(_HPKE_SUITE, secret, b"key", context, 32),
        _labeled_expand(_HPKE_SUITE, secret, b"base_nonce", context, 12),
    )


def receiver_point(public_hex: str) -> bytes:
    """The receiver key, given compressed or uncompressed hex, as 65 uncompressed bytes."""
    try:
        point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(public_hex))
    except ValueError:
        raise ValueError(f"not a P-256 public key: {public_hex[:80]!r}") from None
    return keys.uncompressed(point)


def seal(receiver_hex: str, plaintext: bytes, ephemeral: ec.EllipticCurvePrivateKey) -> tuple[bytes, bytes]:
    """(encapsulated key, ciphertext) for the receiver, with the service's AAD."""
    receiver = receiver_point(receiver_hex)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), receiver)
    enc = keys.uncompressed(ephemeral)
    key, nonce = _key_and_nonce(ephemeral.exchange(ec.ECDH(), public), enc, receiver)
    return enc, AESGCM(key).encrypt(nonce, plaintext, enc + receiver)


def open_sealed(private: ec.EllipticCurvePrivateKey, enc: bytes, ciphertext: bytes) -> bytes:
    """The receiver's side (for tests and the proxy key): raises on a wrong key or tampering."""
    receiver = keys.uncompressed(private)
    sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), enc)
    enc = keys.uncompressed(sender)
    key, nonce = _key_and_nonce(private.exchange(ec.ECDH(), sender), enc, receiver)
    return AESGCM(key).decrypt(nonce, ciphertext, enc + receiver)


def credential_bundle(receiver_hex: str, plaintext: bytes, ephemeral: ec.EllipticCurvePrivateKey) -> str:
    enc, ciphertext = seal(receiver_hex, plaintext, ephemeral)
    compressed = bytes.fromhex(keys.compressed_hex(ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), enc)))
    return str(base58.b58encode_check(compressed + ciphertext).decode())


def open_credential_bundle(bundle: str, private: ec.EllipticCurvePrivateKey) -> bytes:
    raw = base58.b58decode_check(bundle)
    return open_sealed(private, raw[:33], raw[33:])
