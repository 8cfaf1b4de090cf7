"""Checks of the key material a scenario declares: whole 32-byte keys, valid points, matching pairs.

A short private key is refused rather than padded: ``privateKey: "abc"`` is a typo, not a key.
"""

from __future__ import annotations

import string
from typing import Any

Problem = tuple[tuple[str | int, ...], str]
ORDERS = {
    "p256": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
    "secp256k1": 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141,
}
API_CURVES = {"API_KEY_CURVE_P256": "p256", "API_KEY_CURVE_SECP256K1": "secp256k1", "API_KEY_CURVE_ED25519": "ed25519"}
KEY_CURVES = {"CURVE_P256": "p256", "CURVE_SECP256K1": "secp256k1", "CURVE_ED25519": "ed25519"}


def api_key(spec: Any) -> list[Problem]:
    if not isinstance(spec, dict):
        return []
    curve = API_CURVES.get(spec.get("curve", "API_KEY_CURVE_P256"))
    return [] if curve is None else pair(spec, curve, "a compressed public key (66 hex digits, 02 or 03 first)")


def authenticator(spec: Any) -> list[Problem]:
    if not isinstance(spec, dict):
        return []
    return pair(spec, "p256", "an uncompressed P-256 public key (130 hex digits, 04 first)")


def private_key(spec: Any) -> list[Problem]:
    if not isinstance(spec, dict) or not isinstance(spec.get("privateKey"), str):
        return []
    curve = KEY_CURVES.get(spec.get("curve", ""))
    problem = None if curve is None else scalar_problem(spec["privateKey"], curve)
    return [(("privateKey",), problem)] if problem else []


def pair(spec: dict[str, Any], curve: str, public_form: str) -> list[Problem]:
    private, public = spec.get("privateKey"), spec.get("publicKey")
    problems: list[Problem] = []
    if isinstance(private, str) and (problem := scalar_problem(private, curve)):
        problems.append((("privateKey",), problem))
    if isinstance(public, str) and (problem := point_problem(public, curve, public_form)):
        problems.append((("publicKey",), problem))
    if not problems and isinstance(private, str) and isinstance(public, str):
        derived = public_forms(private, curve)
        if public.lower() not in derived:
            problems.append((("publicKey",), f"does not belong to privateKey, whose public key is {derived[0]}"))
    return problems


def scalar_problem(text: str, curve: str) -> str | None:
    if len(text) != 64 or not all(c in string.hexdigits for c in text):
        return f"expected 64 hex digits (a 32-byte {curve} private key), got {len(text)} characters: {text[:12]!r}"
    if curve in ORDERS and not 0 < int(text, 16) < ORDERS[curve]:
        return f"not a {curve} private key: it must be between 1 and the curve order minus 1"
    return None


def point_problem(text: str, curve: str, expected: str) -> str | None:
    if curve == "ed25519":
        ok = len(text) == 64 and all(c in string.hexdigits for c in text)
        return None if ok else f"expected an Ed25519 public key (64 hex digits), got {len(text)} characters"
    from cryptography.hazmat.primitives.asymmetric import ec

    named = ec.SECP256R1() if curve == "p256" else ec.SECP256K1()
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(named, bytes.fromhex(text))
    except ValueError:
        return f"not a point on {curve}: expected {expected}"
    return None


def public_forms(private: str, curve: str) -> list[str]:
    """The public key of ``private`` as a scenario may write it: compressed first, then uncompressed."""
    from simulator.crypto import keys

    if curve == "ed25519":
        return [keys.public_key_for("CURVE_ED25519", bytes.fromhex(private)).hex()]
    key = keys.ec_key_from_hex(curve, private)
    return [keys.compressed_hex(key), keys.uncompressed(key).hex()]
