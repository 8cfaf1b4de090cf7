"""Helpers for tests: stamping requests as the official clients do, and a small HTTP client.

These produce real stamps (the simulator verifies them), so they also serve tests of other
servers that speak the same protocol.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from simulator.auth import stamps
from simulator.crypto import keys
from simulator.crypto.bundles import BundleError as BundleError
from simulator.crypto.enduser import ClientKeyPair as ClientKeyPair
from simulator.crypto.enduser import decrypt_credential_bundle as decrypt_credential_bundle
from simulator.crypto.enduser import decrypt_export_bundle as decrypt_export_bundle
from simulator.crypto.enduser import encrypt_otp_code_to_bundle as encrypt_otp_code_to_bundle
from simulator.crypto.enduser import encrypt_private_key_to_bundle as encrypt_private_key_to_bundle
from simulator.crypto.enduser import encrypt_wallet_to_bundle as encrypt_wallet_to_bundle
from simulator.crypto.enduser import jwt_claims as jwt_claims
from simulator.wire import Json

_SCHEMES = {"p256": stamps.P256, "secp256k1": stamps.SECP256K1, "ed25519": stamps.ED25519}


@dataclass(frozen=True)
class ApiKeyStamper:
    """X-Stamp for an API key: base64url JSON of the DER signature over the exact body."""

    private_key: str  # hex
    curve: str = "p256"  # p256, secp256k1 or ed25519

    @property
    def public_key(self) -> str:
        curve = {"p256": "CURVE_P256", "secp256k1": "CURVE_SECP256K1"}.get(self.curve, "CURVE_ED25519")
        return keys.public_key_for(curve, bytes.fromhex(self.private_key)).hex()

    def stamp(self, body: bytes) -> tuple[str, str]:
        if self.curve == "ed25519":
            signature = ed25519.Ed25519PrivateKey.from_private_bytes(bytes.fromhex(self.private_key)).sign(body)
        else:
            key = keys.ec_key_from_hex(self.curve, self.private_key)
            signature = key.sign(body, ec.ECDSA(hashes.SHA256()))
        fields = {"publicKey": self.public_key, "scheme": _SCHEMES[self.curve], "signature": signature.hex()}
        return "X-Stamp", stamps.b64url_encode(json.dumps(fields).encode())


@dataclass(frozen=True)
class PasskeyStamper:
    """X-Stamp-WebAuthn as a browser passkey makes it: challenge = hex SHA-256 of the body.

    ``rp_id`` defaults to the origin's host, as a browser's default ``rp.id`` is.
    """

    credential_id: str
    private_key: str  # hex P-256 scalar
    origin: str = "http://localhost"
    rp_id: str = ""

    @property
    def rp_id_hash(self) -> bytes:
        return hashlib.sha256((self.rp_id or urlsplit(self.origin).hostname or "localhost").encode()).digest()

    def stamp(self, body: bytes) -> tuple[str, str]:
        challenge = stamps.b64url_encode(hashlib.sha256(body).hexdigest().encode())
        client_data = json.dumps({"type": "webauthn.get", "challenge": challenge, "origin": self.origin}).encode()
        auth_data = self.rp_id_hash + b"\x05" + (1).to_bytes(4, "big")
        key = keys.ec_key_from_hex("p256", self.private_key)
        signature = key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        fields = {
            "authenticatorData": stamps.b64url_encode(auth_data),
            "clientDataJson": stamps.b64url_encode(client_data),
            "credentialId": self.credential_id,
            "signature": stamps.b64url_encode(signature),
        }
        return "X-Stamp-WebAuthn", json.dumps(fields)

    def attestation(self, challenge: str = "", fmt: str = "none") -> Json:
        """A registration (``attestation`` of create_users' authenticators) for this passkey.

        ``fmt="packed"`` makes a packed self attestation (signed by the credential key itself),
        as many platform authenticators do; the default is ``none``, as browsers send by default.
        """
        point = keys.uncompressed(keys.ec_key_from_hex("p256", self.private_key))
        cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: point[1:33], -3: point[33:]})
        cred = stamps.b64url_decode(self.credential_id)
        auth_data = (
            self.rp_id_hash + b"\x45" + (0).to_bytes(4, "big") + bytes(16) + len(cred).to_bytes(2, "big") + cred + cose
        )
        client_data = json.dumps({"type": "webauthn.create", "challenge": challenge, "origin": self.origin}).encode()
        statement: Json = {}
        if fmt == "packed":
            key = keys.ec_key_from_hex("p256", self.private_key)
            signed = auth_data + hashlib.sha256(client_data).digest()
            statement = {"alg": -7, "sig": key.sign(signed, ec.ECDSA(hashes.SHA256()))}
        elif fmt != "none":
            raise ValueError(f"fmt must be 'none' or 'packed', not {fmt!r}")
        return {
            "credentialId": self.credential_id,
            "clientDataJson": stamps.b64url_encode(client_data),
            "attestationObject": stamps.b64url_encode(
                cbor2.dumps({"fmt": fmt, "attStmt": statement, "authData": auth_data})
            ),
            "transports": ["AUTHENTICATOR_TRANSPORT_INTERNAL"],
        }


@dataclass
class Response:
    status: int
    body: Any
    headers: dict[str, str]


class SimulatorClient:
    """A minimal stamped client over http.client: ``submit`` activities, ``query`` reads."""

    def __init__(self, base_url: str, stamper: ApiKeyStamper | PasskeyStamper | None, organization_id: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.stamper = stamper
        self.organization_id = organization_id

    def submit(self, op: str, activity_type: str, parameters: Json, **extra: Any) -> Response:
        body = {
            "parameters": parameters,
            "organizationId": extra.pop("organizationId", self.organization_id),
            "timestampMs": extra.pop("timestampMs", str(int(time.time() * 1000))),
            "type": activity_type,
            **extra,
        }
        return self.post(f"/public/v1/submit/{op}", json.dumps(body).encode())

    def query(self, op: str, **fields: Any) -> Response:
        body = {"organizationId": fields.pop("organizationId", self.organization_id), **fields}
        return self.post(f"/public/v1/query/{op}", json.dumps(body).encode())

    def post(self, path: str, raw: bytes, headers: dict[str, str] | None = None, method: str = "POST") -> Response:
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        if self.stamper is not None:
            name, value = self.stamper.stamp(raw)
            all_headers.setdefault(name, value)
        status, data, headers_out = self._send(method, path, raw, all_headers)
        parsed = (
            json.loads(data) if data and headers_out.get("content-type", "").startswith("application/json") else data
        )
        return Response(status, parsed, headers_out)

    def _send(self, method: str, path: str, raw: bytes, headers: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
        url = urlsplit(self.base_url)
        conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port or 80, timeout=30)
        try:
            conn.request(method, url.path + path, body=raw, headers=headers)
            reply = conn.getresponse()
            return reply.status, reply.read(), {k.lower(): v for k, v in reply.getheaders()}
        finally:
            conn.close()


class InProcessClient(SimulatorClient):
    """The same client over a Flask test client: no sockets, no threads (the fastest transport)."""

    def __init__(self, app: Any, stamper: ApiKeyStamper | PasskeyStamper | None, organization_id: str) -> None:
        super().__init__("http://in-process", stamper, organization_id)
        self._client = app.test_client()

    def _send(self, method: str, path: str, raw: bytes, headers: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
        reply = self._client.open(path, method=method, data=raw, headers=headers)
        return reply.status_code, reply.get_data(), {k.lower(): v for k, v in reply.headers.items()}


# end-user sessions: stamping with the key a login or a credential bundle gave ------------------------
def stamper_from_credential_bundle(credential_bundle: str, embedded_key: str) -> ApiKeyStamper:
    """The API key an otp_auth (or oauth) credential bundle carries, ready to stamp."""
    return ApiKeyStamper(decrypt_credential_bundle(credential_bundle, embedded_key))


def session_stamper(session: str, private_key: str) -> ApiKeyStamper:
    """A stamper for a login session (otp_login, oauth_login, stamp_login): the client's own key,
    which must be the one the session JWT names."""
    stamper = ApiKeyStamper(private_key)
    named = str(jwt_claims(session).get("public_key", ""))
    if named.lower() != stamper.public_key.lower():
        raise BundleError(f"the session names public key {named}, not this key's {stamper.public_key}")
    return stamper


def session_client(base_url: str, session: str, private_key: str) -> SimulatorClient:
    """A client stamping with the session key against the session's organization, as @turnkey/core does."""
    organization_id = str(jwt_claims(session)["organization_id"])
    return SimulatorClient(base_url, session_stamper(session, private_key), organization_id)


def login_client_signature(verification_token: str, session_public_key: str, token_private_key: str) -> Json:
    """otp_login's ``clientSignature``: the login message for this token and session key, signed
    (raw r‖s hex) by the key the verification token names."""
    message = json.dumps(
        {
            "login": {"publicKey": session_public_key},
            "tokenId": jwt_claims(verification_token)["id"],
            "type": "USAGE_TYPE_LOGIN",
        },
        separators=(",", ":"),
    )
    der = keys.ec_key_from_hex("p256", token_private_key).sign(message.encode(), ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    return {
        "publicKey": ClientKeyPair.from_private_key(token_private_key).public_key,
        "scheme": "CLIENT_SIGNATURE_SCHEME_API_P256",
        "message": message,
        "signature": (r.to_bytes(32, "big") + s.to_bytes(32, "big")).hex(),
    }
