"""Key pairs drawn from the seeded source, and their hex encodings as stamps carry them."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from simulator.clock import Source

if TYPE_CHECKING:
    import coincurve

_ORDERS = {
    "p256": (ec.SECP256R1, 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551),
    "secp256k1": (ec.SECP256K1, 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141),
}


@functools.lru_cache(maxsize=2048)
def secp256k1_signer(secret: bytes) -> coincurve.PrivateKey:
    """libsecp256k1's key object for ``secret``, kept: making one computes two public keys (plain
    and x-only), as costly as the signature itself, and an account signs again and again."""
    import coincurve  # imported on first use: serve's start-up signs nothing with secp256k1

    return coincurve.PrivateKey(secret)


def new_ec_key(source: Source, curve: str) -> ec.EllipticCurvePrivateKey:
    """A P-256 or secp256k1 key whose scalar comes from the seeded source."""
    return ec.derive_private_key(_scalar(source, curve), _ORDERS[curve][0]())


def _scalar(source: Source, curve: str) -> int:
    order = _ORDERS[curve][1]
    return int.from_bytes(source.bytes(32), "big") % (order - 1) + 1


def new_secret(source: Source, curve: str) -> bytes:
    """A private key for ``curve`` from the seeded source (a valid scalar for EC curves)."""
    if curve == "CURVE_ED25519":
        return source.bytes(32)
    name = "p256" if curve == "CURVE_P256" else "secp256k1"
    return _scalar(source, name).to_bytes(32, "big")


def ec_key_from_hex(curve: str, private_hex: str) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int(private_hex, 16), _ORDERS[curve][0]())


def public_key_for(curve: str, secret: bytes) -> bytes:
    """The public key of a raw secret: compressed SEC1 for EC curves, 32 raw bytes for Ed25519."""
    from simulator.crypto import hd  # imported on first use: BIP-32 and BIP-39 are not on serve's start path

    return hd.public_key_of(curve, secret)


def private_hex(key: ec.EllipticCurvePrivateKey) -> str:
    return f"{key.private_numbers().private_value:064x}"


def compressed_hex(key: ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey) -> str:
    public = key.public_key() if isinstance(key, ec.EllipticCurvePrivateKey) else key
    return public.public_bytes(Encoding.X962, PublicFormat.CompressedPoint).hex()


def uncompressed(key: ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey) -> bytes:
    public = key.public_key() if isinstance(key, ec.EllipticCurvePrivateKey) else key
    return public.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
