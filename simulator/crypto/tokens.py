"""The JWTs of the login flows: session tokens, OTP verification tokens and OIDC ID tokens.

All are ES256. Session tokens are signed the service's way (raw r‖s over
SHA-256(SHA-256(header.payload)), checked by ``verifySessionJwtSignature`` given the simulator's
notarizer key); the others are standard JWS. The payload segment never contains ``-`` or ``_``,
because the official clients decode it with ``atob``: whitespace in the JSON is varied until
its base64url has neither.
"""

from __future__ import annotations

import hashlib
import json

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

from simulator.wire import Json, b64url_decode, b64url_encode

HEADER = {"alg": "ES256", "typ": "JWT"}


def atob_safe(claims: Json) -> str:
    """base64url of the claims' JSON with no ``-`` or ``_`` (whitespace after separators varies)."""
    for spaces in range(64):
        text = json.dumps(claims, separators=("," + " " * (spaces % 8), ":" + " " * (spaces // 8)))
        encoded = b64url_encode(text.encode())
        if "-" not in encoded and "_" not in encoded:
            return encoded
    raise ValueError("could not encode the claims without '-' or '_'")


def sign(claims: Json, key: ec.EllipticCurvePrivateKey, *, double_hash: bool = False) -> str:
    signing_input = f"{atob_safe(HEADER)}.{atob_safe(claims)}"
    data = hashlib.sha256(signing_input.encode()).digest() if double_hash else signing_input.encode()
    r, s = decode_dss_signature(key.sign(data, ec.ECDSA(hashes.SHA256())))
    return f"{signing_input}.{b64url_encode(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def session_token(claims: Json, notarizer: ec.EllipticCurvePrivateKey) -> str:
    return sign(claims, notarizer, double_hash=True)


def claims_of(token: str) -> Json:
    """The payload, unverified; ValueError when it is not a JWT."""
    try:
        claims = json.loads(b64url_decode(token.split(".")[1]))
    except (ValueError, IndexError) as exc:
        raise ValueError(f"not a JWT: {exc}") from None
    if not isinstance(claims, dict):
        raise ValueError("not a JWT: the payload is not an object")
    return claims


def verify(token: str, public: ec.EllipticCurvePublicKey, *, double_hash: bool = False) -> Json:
    """The claims of a token signed by ``public``'s key; ValueError otherwise."""
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("not a JWT: expected header.payload.signature")
    signing_input = f"{parts[0]}.{parts[1]}".encode()
    data = hashlib.sha256(signing_input).digest() if double_hash else signing_input
    raw = b64url_decode(parts[2])
    if len(raw) != 64:
        raise ValueError("bad signature length")
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        public.verify(der, data, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ValueError("signature does not verify") from None
    return claims_of(token)
