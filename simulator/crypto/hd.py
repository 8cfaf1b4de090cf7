"""Hierarchical deterministic keys: BIP-39 seeds, BIP-32 (secp256k1), SLIP-10 (Ed25519, P-256).

Ed25519 derivation is SLIP-10, which defines hardened derivation only. Turnkey's documented
defaults include paths with unhardened elements for Ed25519 chains (Sui ``m/44'/784'/0'/0/0``,
Aptos ``m/44'/637'/0'/0'/0``); as several wallets do, every Ed25519 element is treated as
hardened, so those paths derive instead of failing. Solana's all-hardened paths are unaffected.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from dataclasses import dataclass

import coincurve
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from mnemonic import Mnemonic

from simulator.wire import decimal_digits

MNEMONIC_LENGTHS = {12: 16, 15: 20, 18: 24, 21: 28, 24: 32}  # words -> entropy bytes
HARDENED = 0x80000000
_CURVES = {
    "CURVE_SECP256K1": (
        b"Bitcoin seed",
        ec.SECP256K1,
        0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141,
    ),
    "CURVE_P256": (b"Nist256p1 seed", ec.SECP256R1, 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551),
    "CURVE_ED25519": (b"ed25519 seed", None, 0),
}
_ENGLISH = Mnemonic("english")
_WORD_INDEX = {word: i for i, word in enumerate(_ENGLISH.wordlist)}


class DerivationError(ValueError):
    """A request the service refuses: the message starts with the service's phrase."""


class InvalidPath(DerivationError):
    pass


class InvalidCurve(DerivationError):
    pass


class InvalidAddressFormat(DerivationError):
    pass


@dataclass(frozen=True)
class DerivedKey:
    private_key: bytes
    public_key: bytes  # compressed SEC1 (33 bytes) for EC curves, raw 32 bytes for Ed25519
    chain_code: bytes
    curve: str


def generate_mnemonic(entropy: bytes) -> str:
    """BIP-39 English words for the given entropy (16 to 32 bytes, a multiple of 4)."""
    if len(entropy) not in MNEMONIC_LENGTHS.values():
        raise DerivationError(f"invalid mnemonic entropy: {len(entropy)} bytes")
    return str(_ENGLISH.to_mnemonic(entropy))


def is_valid_mnemonic(words: str) -> bool:
    """English words of a listed length whose last bits are the SHA-256 checksum (BIP-39)."""
    indexes = [_WORD_INDEX.get(w) for w in words.split()]
    if len(indexes) not in MNEMONIC_LENGTHS or None in indexes:
        return False
    bits = "".join(f"{i:011b}" for i in indexes)
    checksum_bits = len(bits) // 33
    entropy = int(bits[:-checksum_bits], 2).to_bytes(MNEMONIC_LENGTHS[len(indexes)], "big")
    expected = f"{hashlib.sha256(entropy).digest()[0]:08b}"[:checksum_bits]
    return bits[-checksum_bits:] == expected


def mnemonic_to_seed(words: str, passphrase: str = "") -> bytes:
    """The BIP-39 seed (PBKDF2-HMAC-SHA512, 2048 rounds); refuses words with a bad checksum."""
    if not is_valid_mnemonic(words):
        raise DerivationError("invalid mnemonic: not BIP-39 English words with a valid checksum")
    return bytes(Mnemonic.to_seed(words, passphrase))


def parse_path(path: str) -> tuple[int, ...]:
    """``m/44'/60'/0'/0/0`` as indexes; ``'``, ``h`` and ``H`` mark hardened elements."""
    parts = path.strip().split("/")
    if parts[0] != "m" or len(parts) > 256:
        raise InvalidPath(f"invalid path format: {path!r} must start with 'm/' (e.g. m/44'/60'/0'/0/0)")
    indexes = []
    for part in parts[1:]:
        hardened = part[-1:] in ("'", "h", "H")
        digits = part[:-1] if hardened else part
        if not decimal_digits(digits, 10) or int(digits) >= HARDENED:
            raise InvalidPath(f"invalid path format: {path!r} has a bad element {part!r}")
        indexes.append(int(digits) + (HARDENED if hardened else 0))
    return tuple(indexes)


def public_key_of(curve: str, key: bytes) -> bytes:
    """The public key of a raw private key, in the form ``derive`` gives it."""
    return _public(curve, key)


def derive(seed: bytes, curve: str, path: str) -> DerivedKey:
    """The key at ``path`` below the master key of ``seed`` on ``curve``."""
    return _derive(seed, curve, path)


# Every signature derives its account's key again (the store keeps only the wallet's seed), and
# a derivation costs five HMAC-SHA512s and as many point multiplications: keep the recent ones.
# A pure function of its arguments, so the cache changes no answer; its size bounds the memory.
@functools.lru_cache(maxsize=2048)
def _derive(seed: bytes, curve: str, path: str) -> DerivedKey:
    if curve not in _CURVES:
        raise InvalidCurve(f"invalid curve: {curve!r}; expected one of {', '.join(_CURVES)}")
    indexes = parse_path(path)
    key, chain = _master(seed, curve)
    for index in indexes:
        key, chain = _child(curve, key, chain, index)
    return DerivedKey(key, _public(curve, key), chain, curve)


def _master(seed: bytes, curve: str) -> tuple[bytes, bytes]:
    label, _, order = _CURVES[curve]
    data = seed
    while True:
        digest = hmac.new(label, data, hashlib.sha512).digest()
        key, chain = digest[:32], digest[32:]
        if curve == "CURVE_ED25519" or 0 < int.from_bytes(key, "big") < order:
            return key, chain
        data = digest  # SLIP-10: retry with I as the data when the key is invalid


def _child(curve: str, key: bytes, chain: bytes, index: int) -> tuple[bytes, bytes]:
    if curve == "CURVE_ED25519":
        index |= HARDENED
        return _split(hmac.new(chain, b"\x00" + key + index.to_bytes(4, "big"), hashlib.sha512).digest())
    _, _, order = _CURVES[curve]
    prefix = b"\x00" + key if index >= HARDENED else _public(curve, key)
    data = prefix + index.to_bytes(4, "big")
    while True:
        il, ir = _split(hmac.new(chain, data, hashlib.sha512).digest())
        child = (int.from_bytes(il, "big") + int.from_bytes(key, "big")) % order
        if int.from_bytes(il, "big") < order and child != 0:
            return child.to_bytes(32, "big"), ir
        data = b"\x01" + ir + index.to_bytes(4, "big")  # SLIP-10 rule for an invalid child


def _split(digest: bytes) -> tuple[bytes, bytes]:
    return digest[:32], digest[32:]


def _public(curve: str, key: bytes) -> bytes:
    if curve == "CURVE_SECP256K1":
        # libsecp256k1 is ~40x faster than OpenSSL's generic curve code here.
        return bytes(coincurve.PublicKey.from_secret(key).format(compressed=True))
    _, curve_cls, _ = _CURVES[curve]
    if curve_cls is None:
        public = ed25519.Ed25519PrivateKey.from_private_bytes(key).public_key()
        return public.public_bytes(Encoding.Raw, PublicFormat.Raw)
    private = ec.derive_private_key(int.from_bytes(key, "big"), curve_cls())
    return private.public_key().public_bytes(Encoding.X962, PublicFormat.CompressedPoint)
