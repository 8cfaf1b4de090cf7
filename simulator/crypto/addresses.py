"""Address formats: a registry from ADDRESS_FORMAT_* to the curves it takes and its encoder.

``ADDRESS_FORMATS`` is the one list of formats: the request schemas' ``addressFormat`` enum is
generated from its keys, in its order (the interface's), by tools/derive_schemas.py, and
tests/crypto/test_chain_formats.py holds them equal. Any other name is refused as invalid.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import base58
import coincurve
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from simulator.crypto import chain_formats, spark, ton_wallets
from simulator.crypto.hashing import keccak256
from simulator.crypto.hd import InvalidAddressFormat, InvalidCurve

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


SECP, ED = chain_formats.SECP, chain_formats.ED


def _rows(encoders: Mapping[str, tuple[tuple[str, ...], Callable[[str, bytes], str]]]) -> dict[str, AddressFormat]:
    return {name: AddressFormat(curves, encode) for name, (curves, encode) in encoders.items()}


# Each format once, in the interface's order ("Private key": Address format enum, then the swagger's
# Spark formats, which @turnkey/spark creates with create_wallet): the schemas' enum keeps this order.
ADDRESS_FORMATS: dict[str, AddressFormat] = {
    "ADDRESS_FORMAT_UNCOMPRESSED": AddressFormat(EC_CURVES, uncompressed_hex),
    "ADDRESS_FORMAT_COMPRESSED": AddressFormat(("CURVE_SECP256K1", "CURVE_P256", "CURVE_ED25519"), compressed),
    "ADDRESS_FORMAT_ETHEREUM": AddressFormat(SECP, ethereum),
    "ADDRESS_FORMAT_SOLANA": AddressFormat(ED, solana),
    "ADDRESS_FORMAT_COSMOS": AddressFormat(SECP, chain_formats.cosmos("cosmos")),
    "ADDRESS_FORMAT_TRON": AddressFormat(SECP, chain_formats.tron),
    "ADDRESS_FORMAT_SUI": AddressFormat(ED, chain_formats.sui),
    "ADDRESS_FORMAT_APTOS": AddressFormat(ED, chain_formats.aptos),
    **_rows(chain_formats.bitcoin_formats()),  # 4 networks x 5 script types
    "ADDRESS_FORMAT_SEI": AddressFormat(SECP, chain_formats.cosmos("sei")),
    "ADDRESS_FORMAT_XLM": AddressFormat(ED, chain_formats.stellar),
    "ADDRESS_FORMAT_DOGE_MAINNET": AddressFormat(SECP, chain_formats.p2pkh(0x1E)),
    "ADDRESS_FORMAT_DOGE_TESTNET": AddressFormat(SECP, chain_formats.p2pkh(0x71)),
    **_rows(ton_wallets.FORMATS),  # V3R2, V4R2, V5R1
    "ADDRESS_FORMAT_XRP": AddressFormat(SECP, chain_formats.xrp),
    **_rows(spark.FORMATS),  # SPARK_MAINNET, SPARK_REGTEST
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
