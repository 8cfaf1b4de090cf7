"""Webhook signatures as the service publishes them (Ed25519, v1), and the receiver's check.

Signed input: ``v1.ed25519.<key id>.<timestamp ms>.<event id>.<raw body>``; the keys are
published as JWKS at GET /public/v1/discovery/webhooks/jwks.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

KEY_ID = "simulator-webhooks-1"
_SECRET = bytes.fromhex("c694ebe8526328c7c3c213dc7044eddd96e1915a7519d14bd110988f3f4e10af")


@lru_cache(maxsize=1)
def private_key() -> ed25519.Ed25519PrivateKey:
    return ed25519.Ed25519PrivateKey.from_private_bytes(_SECRET)


def signed_input(key_id: str, timestamp_ms: str, event_id: str, body: bytes) -> bytes:
    return f"v1.ed25519.{key_id}.{timestamp_ms}.{event_id}.".encode() + body


def sign(timestamp_ms: str, event_id: str, body: bytes) -> str:
    return private_key().sign(signed_input(KEY_ID, timestamp_ms, event_id, body)).hex()


def jwks() -> dict[str, Any]:
    raw = private_key().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return {
        "keys": [
            {
                "kty": "OKP",
                "crv": "Ed25519",
                "alg": "EdDSA",
                "use": "sig",
                "kid": KEY_ID,
                "x": base64.urlsafe_b64encode(raw).decode().rstrip("="),
                "turnkey_signature_algorithm": "ed25519",
                "turnkey_signature_version": "v1",
            }
        ]
    }


def verify_delivery(headers: Mapping[str, str], body: bytes, keys: Mapping[str, Any] | None = None) -> bool:
    """What a receiver should do: find the key by id in the JWKS, check the signature over the
    exact body bytes. Header names are matched case-insensitively."""
    lower = {k.lower(): v for k, v in headers.items()}
    key_id = lower.get("x-turnkey-signature-key-id", "")
    found = [k for k in (keys or jwks())["keys"] if k.get("kid") == key_id]
    if not found or lower.get("x-turnkey-signature-algorithm") != "ed25519":
        return False
    public = ed25519.Ed25519PublicKey.from_public_bytes(base64.urlsafe_b64decode(found[0]["x"] + "=="))
    data = signed_input(key_id, lower.get("x-turnkey-timestamp", ""), lower.get("x-turnkey-event-id", ""), body)
    try:
        public.verify(bytes.fromhex(lower.get("x-turnkey-signature", "")), data)
        return True
    except (InvalidSignature, ValueError):
        return False
