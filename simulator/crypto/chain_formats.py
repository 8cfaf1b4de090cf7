"""Address encoders for Bitcoin (4 networks x 5 script types), Dogecoin, Cosmos, Sei, Tron,
XRP, Stellar, Sui and Aptos. ``public_key`` is what ``hd.derive`` gives: a compressed SEC1 key
for secp256k1, 32 raw bytes for Ed25519.

Choices where the service's is not public: P2SH is BIP-49 nested segwit (P2SH-P2WPKH);
single-key P2WSH is ``wsh(pk(K))`` (``<key> OP_CHECKSIG``); P2TR is BIP-86 key-path only; Sui
and Aptos use the Ed25519 single-key scheme flag (Sui 0x00 prefix, Aptos 0x00 suffix).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable

import base58
import coincurve

from simulator.crypto.bech32 import bech32_encode
from simulator.crypto.hashing import keccak256

Encoder = Callable[[str, bytes], str]
SECP, ED = ("CURVE_SECP256K1",), ("CURVE_ED25519",)
NETWORKS = {  # name: (P2PKH version, P2SH version, bech32 human-readable part)
    "MAINNET": (0x00, 0x05, "bc"),
    "TESTNET": (0x6F, 0xC4, "tb"),
    "SIGNET": (0x6F, 0xC4, "tb"),
    "REGTEST": (0x6F, 0xC4, "bcrt"),
}


def hash160(data: bytes) -> bytes:
    # imported on first use: pycryptodome loads cffi and its C parser (~20 ms), which serve's start-up never needs
    from Crypto.Hash import RIPEMD160

    return RIPEMD160.new(hashlib.sha256(data).digest()).digest()


def compressed(public_key: bytes) -> bytes:
    """Refuse anything but a valid compressed secp256k1 key (ValueError)."""
    return bytes(coincurve.PublicKey(public_key).format(compressed=True))


def base58check(version: int, payload: bytes) -> str:
    return str(base58.b58encode_check(bytes([version]) + payload).decode())


def p2pkh(version: int) -> Encoder:
    return lambda curve, key: base58check(version, hash160(compressed(key)))


def p2sh_p2wpkh(version: int) -> Encoder:
    return lambda curve, key: base58check(version, hash160(b"\x00\x14" + hash160(compressed(key))))


def p2wpkh(hrp: str) -> Encoder:
    return lambda curve, key: bech32_encode(hrp, 0, hash160(compressed(key)))


def p2wsh(hrp: str) -> Encoder:
    return lambda curve, key: bech32_encode(hrp, 0, hashlib.sha256(b"\x21" + compressed(key) + b"\xac").digest())


def p2tr(hrp: str) -> Encoder:
    return lambda curve, key: bech32_encode(hrp, 1, taproot_output_key(compressed(key)))


def tagged_hash(tag: str, data: bytes) -> bytes:
    tag_hash = hashlib.sha256(tag.encode()).digest()
    return hashlib.sha256(tag_hash + tag_hash + data).digest()


def taproot_output_key(key: bytes) -> bytes:
    """BIP-86: the internal key with even Y, tweaked by TapTweak(x) with no script tree."""
    x_only = key[1:]
    internal = coincurve.PublicKey(b"\x02" + x_only)
    tweaked = internal.add(tagged_hash("TapTweak", x_only))
    return bytes(tweaked.format(compressed=True))[1:]


def cosmos(hrp: str) -> Encoder:
    return lambda curve, key: bech32_encode(hrp, None, hash160(compressed(key)))


def tron(curve: str, key: bytes) -> str:
    point = bytes(coincurve.PublicKey(key).format(compressed=False))
    return base58check(0x41, keccak256(point[1:])[-20:])


def xrp(curve: str, key: bytes) -> str:
    payload = b"\x00" + hash160(compressed(key))
    return str(base58.b58encode_check(payload, alphabet=base58.RIPPLE_ALPHABET).decode())


def ed25519_key(key: bytes) -> bytes:
    if len(key) != 32:
        raise ValueError(f"an Ed25519 public key has 32 bytes, got {len(key)}")
    return key


def stellar(curve: str, key: bytes) -> str:
    """StrKey: base32 of version byte (6 << 3), the key and its CRC16-XModem, little-endian."""
    payload = bytes([6 << 3]) + ed25519_key(key)
    return base64.b32encode(payload + crc16_xmodem(payload).to_bytes(2, "little")).decode().rstrip("=")


def crc16_xmodem(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def sui(curve: str, key: bytes) -> str:
    return "0x" + hashlib.blake2b(b"\x00" + ed25519_key(key), digest_size=32).hexdigest()


def aptos(curve: str, key: bytes) -> str:
    return "0x" + hashlib.sha3_256(ed25519_key(key) + b"\x00").hexdigest()


def bitcoin_formats() -> dict[str, tuple[tuple[str, ...], Encoder]]:
    out: dict[str, tuple[tuple[str, ...], Encoder]] = {}
    for network, (pkh, sh, hrp) in NETWORKS.items():
        for kind, encoder in (
            ("P2PKH", p2pkh(pkh)),
            ("P2SH", p2sh_p2wpkh(sh)),
            ("P2WPKH", p2wpkh(hrp)),
            ("P2WSH", p2wsh(hrp)),
            ("P2TR", p2tr(hrp)),
        ):
            out[f"ADDRESS_FORMAT_BITCOIN_{network}_{kind}"] = (SECP, encoder)
    return out
