"""The fake OAuth 2.0 / OIDC provider tests use instead of Google, Apple, X or Discord.

    code = oauth_provider.authorize(sim, subject="123", email="a@example.com",
                                    code_challenge=s256(verifier), redirect_uri="http://localhost/cb")
    token = oauth_provider.id_token(sim, subject="123", audience="client-id", nonce=sha256(pub_hex))

Tokens are ES256, issued by ``service_keys.PROVIDER_ISSUER`` and verifiable with ``jwks()``.
"""

from __future__ import annotations

import base64
import hashlib
import threading
from typing import Any, Protocol

from simulator.clock import Clock, Source
from simulator.crypto import service_keys, tokens
from simulator.crypto.keys import uncompressed
from simulator.state.store import Store
from simulator.wire import Json


class Simulator(Protocol):
    """What the provider keeps its codes in (a ``simulator.Simulator`` is one)."""

    clock: Clock
    source: Source
    lock: threading.RLock

    @property
    def store(self) -> Store: ...


def authorize(
    sim: Simulator,
    subject: str,
    *,
    email: str | None = None,
    code_challenge: str | None = None,
    redirect_uri: str | None = None,
    fail: str | None = None,
) -> str:
    """An authorization code for ``subject``; ``fail`` makes its exchange fail with that reason."""
    with sim.lock:
        code = f"simcode-{sim.source.uuid4()}"
        sim.store.oauth_codes[code] = {
            "subject": subject,
            "email": email,
            "codeChallenge": code_challenge,
            "redirectUri": redirect_uri,
            "failure": fail,
        }
        return code


def id_token(
    sim: Simulator,
    subject: str,
    audience: str,
    *,
    nonce: str | None = None,
    email: str | None = None,
    lifetime_seconds: int = 3600,
    **claims: Any,
) -> str:
    """An ID token as a provider would hand the browser (for oauth_login and sub-org sign-up)."""
    now = sim.clock.now_ms() // 1000
    body: Json = {
        "iss": service_keys.PROVIDER_ISSUER,
        "sub": subject,
        "aud": audience,
        "iat": now,
        "exp": now + lifetime_seconds,
        **claims,
    }
    if nonce is not None:
        body["nonce"] = nonce
    if email is not None:
        body["email"] = email
    return tokens.sign(body, service_keys.private("oauth-provider"))


def nonce_for(public_key_hex: str) -> str:
    """The nonce oauth_login expects: lowercase hex SHA-256 of the public key's hex string."""
    return hashlib.sha256(public_key_hex.encode()).hexdigest()


def s256(verifier: str) -> str:
    """The PKCE S256 code challenge of a code verifier."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def jwks() -> Json:
    """The provider's and the simulated service issuer's signing keys, as a JWKS."""
    out = []
    for kid in ("oauth-provider", "turnkey-oauth-issuer"):
        point = uncompressed(service_keys.private(kid))
        out.append(
            {
                "kty": "EC",
                "crv": "P-256",
                "alg": "ES256",
                "use": "sig",
                "kid": kid,
                "x": base64.urlsafe_b64encode(point[1:33]).decode().rstrip("="),
                "y": base64.urlsafe_b64encode(point[33:]).decode().rstrip("="),
            }
        )
    return {"keys": out}
