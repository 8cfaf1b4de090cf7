"""Address formats: a registry from ADDRESS_FORMAT_* to the curves it takes and its encoder.

Every format the interface names (``ALL_ADDRESS_FORMATS``) has an encoder here
(tests/crypto/test_chain_formats.py holds it so); any other name is refused as invalid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import base58
import coincurve
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from simulator.crypto import chain_formats, spark, ton_wallets
from simulator.crypto.hashing import keccak256
from simulator.crypto.hd import InvalidAddressFormat, InvalidCurve

_BITCOIN = [
    f"ADDRESS_FORMAT_BITCOIN_{net}_{kind}"
    for net in ("MAINNET", "TESTNET", "SIGNET", "REGTEST")
    for kind in ("P2PKH", "P2SH", "P2WPKH", "P2WSH", "P2TR")
]
ALL_ADDRESS_FORMATS = (
    "ADDRESS_FORMAT_UNCOMPRESSED",
    "ADDRESS_FORMAT_COMPRESSED",
    "ADDRESS_FORMAT_ETHEREUM",
    "ADDRESS_FORMAT_SOLANA",
    "ADDRESS_FORMAT_COSMOS",
    "ADDRESS_FORMAT_TRON",
    "ADDRESS_FORMAT_SUI",
    "ADDRESS_FORMAT_APTOS",
    "ADDRESS_FORMAT_SEI",
    "ADDRESS_FORMAT_XLM",
    "ADDRESS_FORMAT_DOGE_MAINNET",
    "ADDRESS_FORMAT_DOGE_TESTNET",
    "ADDRESS_FORMAT_TON_V3R2",
    "ADDRESS_FORMAT_TON_V4R2",
    "ADDRESS_FORMAT_TON_V5R1",
    "ADDRESS_FORMAT_XRP",
    "ADDRESS_FORMAT_SPARK_MAINNET",
    "ADDRESS_FORMAT_SPARK_REGTEST",
    *_BITCOIN,
)
EC_CURVES = ("CURVE_SECP256K1", "CURVE_P256")
_EC_CLASSES = {"CURVE_SECP256K1": ec.SECP256K1, "CURVE_P256": ec.SECP256R1}


@dataclass(frozen=True)
class AddressFormat:
    curves: tuple[str, ...]
    encode: Callable[[str, bytes], str]  # (curve, public key as hd.derive gives it) -> address


def uncompressed(curve: str, public_key: bytes) -> bytes:
    if curve == "CURVE_SECP256K1":
        return bytes(coincurve.PublicKey(public_key).format(compressed=False))
    point = ec.EllipticCurvePublicKey.from_encoded_point(_EC_CLASSES[curve](), public_key)
    return point.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def ethereum(curve: str, public_key: bytes) -> str:
    """EIP-55 checksummed address: the last 20 bytes of keccak-256 of the point's X‖Y."""
    plain = keccak256(uncompressed(curve, public_key)[1:])[-20:].hex()
    digest = keccak256(plain.encode()).hex()
    return "0x" + "".join(c.upper() if int(digest[i], 16) >= 8 else c for i, c in enumerate(plain))


def solana(curve: str, public_key: bytes) -> str:
    return str(base58.b58encode(chain_formats.ed25519_key(public_key)).decode())


def compressed(curve: str, public_key: bytes) -> str:
    return public_key.hex()


def uncompressed_hex(curve: str, public_key: bytes) -> str:
    return uncompressed(curve, public_key).hex()


ADDRESS_FORMATS: dict[str, AddressFormat] = {
    "ADDRESS_FORMAT_ETHEREUM": AddressFormat(("CURVE_SECP256K1",), ethereum),
    "ADDRESS_FORMAT_SOLANA": AddressFormat(("CURVE_ED25519",), solana),
    "ADDRESS_FORMAT_COMPRESSED": AddressFormat(("CURVE_SECP256K1", "CURVE_P256", "CURVE_ED25519"), compressed),
    "ADDRESS_FORMAT_UNCOMPRESSED": AddressFormat(EC_CURVES, uncompressed_hex),
    **{name: AddressFormat(curves, encoder) for name, (curves, encoder) in chain_formats.FORMATS.items()},
    **{name: AddressFormat(curves, encoder) for name, (curves, encoder) in ton_wallets.FORMATS.items()},
    **{name: AddressFormat(curves, encoder) for name, (curves, encoder) in spark.FORMATS.items()},
}


def address_for(address_format: str, curve: str, public_key: bytes) -> str:
    """The address of ``public_key`` in ``address_format``, or the service's refusal."""
    fmt = ADDRESS_FORMATS.get(address_format)
    if fmt is None:
        raise InvalidAddressFormat(f"invalid address format: {address_format!r}")
    if curve not in fmt.curves:
        raise InvalidCurve(f"invalid curve: {address_format} requires {' or '.join(fmt.curves)}, got {curve}")
    return fmt.encode(curve, public_key)


def public_key_hex(curve: str, public_key: bytes) -> str:
    """What the API shows as an account's publicKey: compressed hex (EC) or 32-byte hex (Ed25519)."""
    return public_key.hex()
