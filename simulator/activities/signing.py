"""Signing raw payloads with the real keys behind wallet accounts and private keys.

Signatures are deterministic (RFC 6979 for ECDSA, Ed25519 by construction), so a seeded run
repeats them. secp256k1 signatures are low-S with ``v`` the recovery id ("00"/"01"), as
Ethereum expects; Ed25519 splits the 64-byte signature into ``r`` and ``s`` with ``v`` "00";
P-256 has ``v`` "00" (its recovery id is not computed).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import coincurve
from cryptography.hazmat.primitives.asymmetric import ed25519

from simulator.activities.versions import adapted
from simulator.chains.bitcoin import tweaked_key
from simulator.crypto import spark
from simulator.crypto.hashing import keccak256
from simulator.errors import InvalidArgument, Unimplemented
from simulator.handler_support.context import Context
from simulator.model.signatures import ecdsa, payload_view, signer
from simulator.model.signer_views import signer_context
from simulator.wire import Json

HASHES: dict[str, Callable[[bytes], bytes]] = {
    "HASH_FUNCTION_KECCAK256": keccak256,
    "HASH_FUNCTION_SHA256": lambda data: hashlib.sha256(data).digest(),
    "HASH_FUNCTION_NO_OP": lambda data: data,
    "HASH_FUNCTION_NOT_APPLICABLE": lambda data: data,
}


# docs: features/networks/bitcoin.mdx, "Schnorr signatures and tweaks": a taproot address in signWith signs
# BIP-340 Schnorr with the BIP-341 key-path tweak applied, as tkhq/sdk's with-bitcoin TurnkeySigner relies on
TAPROOT_FORMATS = tuple(f"ADDRESS_FORMAT_BITCOIN_{net}_P2TR" for net in ("MAINNET", "TESTNET", "SIGNET", "REGTEST"))


@adapted
def sign_raw_payload(ctx: Context, params: Json) -> Json:
    curve, secret, address_format = signer(ctx, params["signWith"])
    if address_format in spark.SPARK_FORMATS or address_format in TAPROOT_FORMATS:
        return sign_schnorr(schnorr_secret(secret, address_format), *raw_request(params, params["payload"]))
    return sign(curve, secret, params["payload"], params["encoding"], params["hashFunction"])


def sign_raw_payloads(ctx: Context, params: Json) -> Json:
    curve, secret, address_format = signer(ctx, params["signWith"])
    if address_format in spark.SPARK_FORMATS or address_format in TAPROOT_FORMATS:
        key = schnorr_secret(secret, address_format)
        return {"signatures": [sign_schnorr(key, *raw_request(params, p)) for p in params["payloads"]]}
    return {
        "signatures": [sign(curve, secret, p, params["encoding"], params["hashFunction"]) for p in params["payloads"]]
    }


def raw_request(params: Json, payload: str) -> tuple[str, str, str]:
    return payload, params["encoding"], params["hashFunction"]


def schnorr_secret(secret: bytes, address_format: str | None) -> bytes:
    """A taproot address's key-path secret (tweaked, as its output key commits to); a Spark key signs as it is."""
    if address_format not in TAPROOT_FORMATS:
        return secret
    key = coincurve.PrivateKey(secret)
    return bytes(tweaked_key(key, key.public_key.format()).secret)


def sign_schnorr(secret: bytes, payload: str, encoding: str, hash_function: str) -> Json:
    if encoding in STANDARD_ENCODINGS or hash_function == "HASH_FUNCTION_NOT_APPLICABLE":
        raise InvalidArgument(
            f"invalid signing request: a Spark or taproot address signs BIP-340 Schnorr over a 32-byte digest, "
            f"not {encoding} with {hash_function}"
        )
    digest: bytes = HASHES[hash_function](payload_bytes(payload, encoding))
    if len(digest) != 32:
        raise InvalidArgument(
            f"invalid payload: with {hash_function} the payload must be a 32-byte digest, got {len(digest)} bytes"
        )
    signature = spark.schnorr(secret, digest)
    return {"r": signature[:32].hex(), "s": signature[32:].hex(), "v": "00"}


STANDARD_ENCODINGS = ("PAYLOAD_ENCODING_EIP712", "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION")


def sign(curve: str, secret: bytes, payload: str, encoding: str, hash_function: str) -> Json:
    if encoding in STANDARD_ENCODINGS:
        return sign_standard(curve, secret, payload, encoding, hash_function)
    message = payload_bytes(payload, encoding)
    if curve == "CURVE_ED25519":
        if hash_function not in ("HASH_FUNCTION_NOT_APPLICABLE", "HASH_FUNCTION_NO_OP"):
            raise InvalidArgument(
                f"invalid hash function {hash_function}: Ed25519 signs the payload itself; "
                "use HASH_FUNCTION_NOT_APPLICABLE"
            )
        signature = ed25519.Ed25519PrivateKey.from_private_bytes(secret).sign(message)
        return {"r": signature[:32].hex(), "s": signature[32:].hex(), "v": "00"}
    if hash_function == "HASH_FUNCTION_NOT_APPLICABLE":
        raise InvalidArgument(
            f"invalid hash function {hash_function}: it is for Ed25519 keys; ECDSA keys sign a "
            "digest (HASH_FUNCTION_KECCAK256, HASH_FUNCTION_SHA256 or HASH_FUNCTION_NO_OP)"
        )
    digest: bytes = HASHES[hash_function](message)
    if len(digest) != 32:
        raise InvalidArgument(
            f"invalid payload: with {hash_function} the payload must be a 32-byte digest, got {len(digest)} bytes"
        )
    return ecdsa(curve, secret, digest)


def sign_standard(curve: str, secret: bytes, payload: str, encoding: str, hash_function: str) -> Json:
    """EIP-712 typed data and EIP-7702 authorizations: hashed by their standard, v the y-parity."""
    if hash_function != "HASH_FUNCTION_NO_OP":
        raise InvalidArgument(
            f"invalid hash function {hash_function}: {encoding} payloads are hashed by their standard; "
            "use HASH_FUNCTION_NO_OP"
        )
    if curve != "CURVE_SECP256K1":
        raise InvalidArgument(
            f"invalid signing key: {encoding} payloads are signed with CURVE_SECP256K1 keys, not {curve}"
        )
    return ecdsa(curve, secret, standard_digest(payload, encoding))


def standard_digest(payload: str, encoding: str) -> bytes:
    from simulator.chains import eip712, eth_authorization

    if encoding == "PAYLOAD_ENCODING_EIP712":
        return eip712.typed_data_digest(payload)
    return eth_authorization.authorization_digest(payload)


def payload_bytes(payload: str, encoding: str) -> bytes:
    if encoding == "PAYLOAD_ENCODING_TEXT_UTF8":
        return payload.encode()
    if encoding == "PAYLOAD_ENCODING_HEXADECIMAL":
        text = payload[2:] if payload.lower().startswith("0x") else payload
        try:
            return bytes.fromhex(text)
        except ValueError:
            raise InvalidArgument(f"invalid payload encoding: {payload[:80]!r} is not hexadecimal") from None
    raise Unimplemented(f"payload encoding {encoding} is not supported by the simulator yet")


@adapted
def payload_policy_context(ctx: Context, params: Json) -> Json:
    """sign_raw_payload(s): the signing targets, and typed data or an authorization as policies read them."""
    payloads = params.get("payloads") or [params.get("payload", "")]
    try:
        view = payload_view(payloads[0], params["encoding"]) if payloads else {}
    except InvalidArgument:
        view = {}  # the handler refuses the payload with the precise reason
    return {**view, **signer_context(ctx, params["signWith"])}
