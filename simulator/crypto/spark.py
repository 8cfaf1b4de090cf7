"""Spark's keys and addresses, learned from the public sources.

A Spark address is bech32m (no length limit) over the protobuf ``SparkAddress`` message whose field 1
is the 33-byte compressed identity public key; the prefix names the network (``spark`` on mainnet,
``sparkrt`` on regtest) — ``encodeSparkAddress`` in @buildonspark/spark-sdk. Turnkey derives the
identity key at ``m/8797555'/<account>'/0'`` (tkhq/sdk examples/chain-integrations/with-spark) and
the signer's other keys as siblings: signing leaves under ``/1'`` with the hardened child
``sha256(leaf_id)[:4] mod 2^31``, deposit ``/2'``, static deposits ``/3'/<index>'`` (tkhq/sdk
packages/spark/src/constants.ts and signer.ts).

Identity signatures on a Spark address are BIP-340 Schnorr (``v`` "00"), as the signer's
``signSchnorrWithIdentityKey`` requires.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import coincurve

from simulator.crypto.bech32 import bech32m_data
from simulator.protobuf_wire import length_delimited

FORMATS_BY_HRP = {"ADDRESS_FORMAT_SPARK_MAINNET": "spark", "ADDRESS_FORMAT_SPARK_REGTEST": "sparkrt"}
SPARK_FORMATS = tuple(FORMATS_BY_HRP)
HARDENED = 0x80000000


def address(hrp: str, public_key: bytes) -> str:
    identity = bytes(coincurve.PublicKey(public_key).format(compressed=True))
    return bech32m_data(hrp, b"\x0a" + bytes([len(identity)]) + identity)


FORMATS = {
    name: (("CURVE_SECP256K1",), lambda curve, key, hrp=hrp: address(hrp, key)) for name, hrp in FORMATS_BY_HRP.items()
}


def leaf_child(leaf_id: str) -> int:
    """The hardened child index of a signing leaf under ``/1'``: sha256(leaf id)[:4] mod 2^31."""
    return int.from_bytes(hashlib.sha256(leaf_id.encode()).digest()[:4], "big") % HARDENED


def schnorr(secret: bytes, digest: bytes) -> bytes:
    """BIP-340 over a 32-byte message; aux randomness fixed so that seeded runs repeat."""
    return bytes(coincurve.PrivateKey(secret).sign_schnorr(digest, aux_randomness=b"\x00" * 32))


# --- FROST (frost-secp256k1-tr, as Spark's signer uses it for the user's share) --------------------
#
# The user is the required participant: a signing group of its own, so its Lagrange coefficient is 1;
# its identifier is Identifier::derive("user"). Its key is made even-Y against the untweaked group key,
# the group key is given the BIP-86 taproot tweak (empty merkle root), and the share is computed
# against that tweaked key (signer/spark-frost/src/signing.rs in buildonspark/spark, role 1). Hashes
# are the FROST-secp256k1-SHA256-TR-v1 ciphersuite's (RFC 9591 with the BIP-340 challenge).

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
CONTEXT = b"FROST-secp256k1-SHA256-TR-v1"


def expand_message_xmd(message: bytes, dst: bytes, length: int) -> bytes:
    """RFC 9380 expand_message_xmd with SHA-256."""
    dst_prime = dst + bytes([len(dst)])
    b0 = hashlib.sha256(b"\x00" * 64 + message + length.to_bytes(2, "big") + b"\x00" + dst_prime).digest()
    blocks = [hashlib.sha256(b0 + b"\x01" + dst_prime).digest()]
    while len(blocks) * 32 < length:
        mixed = bytes(a ^ b for a, b in zip(b0, blocks[-1], strict=True))
        blocks.append(hashlib.sha256(mixed + bytes([len(blocks) + 1]) + dst_prime).digest())
    return b"".join(blocks)[:length]


def hash_to_scalar(tag: bytes, message: bytes) -> int:
    return int.from_bytes(expand_message_xmd(message, CONTEXT + tag, 48), "big") % N


def tagged(tag: str, data: bytes) -> bytes:
    tag_hash = hashlib.sha256(tag.encode()).digest()
    return hashlib.sha256(tag_hash + tag_hash + data).digest()


USER_ID = hash_to_scalar(b"id", b"user")


def scalar_bytes(value: int) -> bytes:
    return value.to_bytes(32, "big")


def point_mul(value: int, base: coincurve.PublicKey | None = None) -> coincurve.PublicKey:
    if base is None:
        return coincurve.PublicKey.from_secret(scalar_bytes(value % N))
    return base.multiply(scalar_bytes(value % N))


def odd(point: coincurve.PublicKey) -> bool:
    return bytes(point.format(compressed=True))[0] == 3


def negate(point: coincurve.PublicKey) -> coincurve.PublicKey:
    raw = bytes(point.format(compressed=True))
    return coincurve.PublicKey(bytes([raw[0] ^ 1]) + raw[1:])


def tweaked_group_key(verifying_key: coincurve.PublicKey) -> coincurve.PublicKey:
    """BIP-86: the key with even Y plus TapTweak(x)·G, made even-Y as the tr ciphersuite signs with it."""
    x_only = bytes(verifying_key.format(compressed=True))[1:]
    even = coincurve.PublicKey(b"\x02" + x_only)
    tweaked = coincurve.PublicKey.combine_keys([even, point_mul(int.from_bytes(tagged("TapTweak", x_only), "big"))])
    return tweaked


def frost_nonces(secret: bytes, binding: bytes) -> tuple[int, int]:
    """Deterministic hiding and binding nonces: HMAC of the key over what the request binds."""
    import hmac

    def one(label: bytes) -> int:
        value = 0
        counter = 0
        while not value:
            mac = hmac.new(secret, b"spark-frost-nonce/" + label + bytes([counter]) + binding, hashlib.sha512)
            value = int.from_bytes(mac.digest(), "big") % N
            counter += 1
        return value

    return one(b"hiding"), one(b"binding")


def frost_user_share(
    secret: bytes,
    message: bytes,
    verifying_key: bytes,
    operator_commitments: list[tuple[int, bytes, bytes]],
    nonces: tuple[int, int],
    adaptor: bytes | None = None,
) -> tuple[bytes, bytes, bytes]:
    """The user's signature share and its (hiding, binding) commitments, as Spark's FROST defines them.

    ``operator_commitments`` are (identifier, hiding point, binding point); ``verifying_key`` is the
    aggregate untweaked key (operators' plus the user's)."""
    hiding_nonce, binding_nonce = nonces
    hiding_point, binding_point = point_mul(hiding_nonce), point_mul(binding_nonce)
    group = coincurve.PublicKey(verifying_key)
    share = int.from_bytes(secret, "big")
    if odd(group):
        share = N - share
    tweaked = tweaked_group_key(group)
    if odd(tweaked):
        share, tweaked = N - share, negate(tweaked)
    commitments = sorted(
        [(USER_ID, bytes(hiding_point.format()), bytes(binding_point.format())), *operator_commitments]
    )
    encoded = b"".join(scalar_bytes(i) + d + e for i, d, e in commitments)
    prefix = (
        bytes(tweaked.format(compressed=True))
        + hashlib.sha256(CONTEXT + b"msg" + message).digest()
        + hashlib.sha256(CONTEXT + b"com" + encoded).digest()
    )
    rho = {i: hash_to_scalar(b"rho", prefix + scalar_bytes(i)) for i, _, _ in commitments}
    nonce_point = coincurve.PublicKey.combine_keys(
        [
            coincurve.PublicKey.combine_keys([coincurve.PublicKey(d), point_mul(rho[i], coincurve.PublicKey(e))])
            for i, d, e in commitments
        ]
    )
    if adaptor:
        nonce_point = coincurve.PublicKey.combine_keys([nonce_point, coincurve.PublicKey(adaptor)])
    if odd(nonce_point):
        hiding_nonce, binding_nonce = N - hiding_nonce, N - binding_nonce
    x = bytes(nonce_point.format(compressed=True))[1:]
    challenge = int.from_bytes(tagged("BIP0340/challenge", x + bytes(tweaked.format())[1:] + message), "big") % N
    z = (hiding_nonce + binding_nonce * rho[USER_ID] + share * challenge) % N
    return scalar_bytes(z), bytes(hiding_point.format()), bytes(binding_point.format())


# --- Feldman shares and ECIES, as the Spark SDK sends them to operators -----------------------------


def feldman_split(secret: int, threshold: int, count: int, draw: Callable[[], int]) -> tuple[list[int], list[bytes]]:
    """Shares f(1)..f(count) of a random degree threshold-1 polynomial with f(0) = secret, and the
    proofs: each coefficient times G, compressed (split_secret_with_proofs in the Spark SDK)."""
    coefficients = [secret % N] + [draw() for _ in range(threshold - 1)]
    shares = [sum(c * pow(x, k, N) for k, c in enumerate(coefficients)) % N for x in range(1, count + 1)]
    return shares, [bytes(point_mul(c).format()) for c in coefficients]


def secret_share_message(share: int, proofs: list[bytes]) -> bytes:
    """The protobuf ``spark.SecretShare``: secret_share (1, bytes) and proofs (2, repeated bytes)."""
    return length_delimited(1, scalar_bytes(share)) + b"".join(length_delimited(2, proof) for proof in proofs)


def ecies_encrypt(recipient: bytes, plaintext: bytes, ephemeral: bytes, nonce: bytes) -> bytes:
    """ECIES as Spark's encrypt_ecies (the Rust ecies crate's defaults): an uncompressed ephemeral key,
    HKDF-SHA256 over it and the uncompressed shared point, AES-256-GCM with a 16-byte nonce;
    ephemeral ‖ nonce ‖ tag ‖ ciphertext."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    ephemeral_public = bytes(coincurve.PublicKey.from_secret(ephemeral).format(compressed=False))
    shared = bytes(coincurve.PublicKey(recipient).multiply(ephemeral).format(compressed=False))
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"").derive(ephemeral_public + shared)
    sealed = AESGCM(key).encrypt(nonce, plaintext, None)
    return ephemeral_public + nonce + sealed[-16:] + sealed[:-16]


def protobuf_string(field: int, value: str) -> bytes:
    return length_delimited(field, value.encode())


def signing_payload(kind: str, transfer_id: str, packages: dict[str, bytes]) -> bytes:
    """getTransferPackageSigningPayload / getClaimPackageSigningPayload of the Spark SDK: a tagged,
    length-prefixed SHA-256 over the transfer id's 16 bytes and the operator map sorted by key."""

    def framed(data: bytes) -> bytes:
        return len(data).to_bytes(8, "big") + data

    tag = hashlib.sha256(b"".join(framed(part.encode()) for part in ("spark", kind, "signing payload"))).digest()
    body = framed(bytes.fromhex(transfer_id.replace("-", ""))) + framed(len(packages).to_bytes(8, "big"))
    for key in sorted(packages, key=lambda k: k.encode()):
        body += framed(key.encode()) + framed(packages[key])
    return hashlib.sha256(tag + tag + body).digest()


def ecies_decrypt(secret: bytes, sealed: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    ephemeral, nonce, tag, body = sealed[:65], sealed[65:81], sealed[81:97], sealed[97:]
    shared = bytes(coincurve.PublicKey(ephemeral).multiply(secret).format(compressed=False))
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"").derive(ephemeral + shared)
    return AESGCM(key).decrypt(nonce, body + tag, None)
