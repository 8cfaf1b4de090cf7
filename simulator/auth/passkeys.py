"""Passkeys as browsers make them: the one check of a registration, and the origin / rp id rules.

Every activity that registers a passkey (create_authenticators, create_users,
create_sub_organization and the auth proxy's signup through it, recover_user) hands its
``attestation`` and ``challenge`` to :func:`verify_registration`. Passkey stamps
(``X-Stamp-WebAuthn``) are checked by ``stamps.verify_webauthn_stamp`` and then by
:func:`check_assertion` for the same origin and rp id rules.

What the service documents, and what the simulator had to choose, is in
``docs/ledger/passkeys.yaml``. In short:

- allowed origins come from ``FEATURE_NAME_WEBAUTHN_ORIGINS`` of the organization or the
  nearest ancestor that sets it; unset means every origin ("*"), as the service's default;
- the rp id is never sent to the service, so the rpIdHash is checked against what a browser
  allows: SHA-256 of the origin's host or of one of its parent domains;
- attestation statements are verified by py_webauthn (Duo Labs) per format: ``none``,
  ``packed`` (self and x5c), ``fido-u2f``, ``apple``, ``tpm``, ``android-key``,
  ``android-safetynet``. No trust anchors are configured for packed / fido-u2f / tpm
  certificates: the service names none, so a chain is checked for its own consistency only.
"""

from __future__ import annotations

import binascii
import hashlib
import ipaddress
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn
from urllib.parse import urlsplit

import cbor2
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

from simulator.errors import InvalidArgument, Unauthenticated
from simulator.http.request_body import too_deep
from simulator.state.store import Organization, Store
from simulator.wire import b64url_decode, b64url_encode

log = logging.getLogger("simulator")

WEBAUTHN_ORIGINS = "FEATURE_NAME_WEBAUTHN_ORIGINS"
REFUSED = "invalid authenticator attestation"
# The formats py_webauthn verifies; anything else is refused by name.
FORMATS = ("none", "packed", "fido-u2f", "apple", "tpm", "android-key", "android-safetynet")
ES256, RS256 = -7, -257
FIDO_AAGUID_OID = x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")  # id-fido-gen-ce-aaguid


@dataclass(frozen=True)
class Registration:
    """What a verified registration yields: the credential and where it came from."""

    credential_id: str  # base64url, as the request named it
    public_key: bytes  # uncompressed P-256 point, the key stamps are checked against
    fmt: str
    aaguid: str
    origin: str | None


# --- origins and rp ids, shared by registrations and assertions --------------------------------


def allowed_origins(store: Store, org: Organization) -> list[str] | None:
    """The origins passkeys of ``org`` may be used on; ``None`` means any ("*").

    The feature is read from the organization, else from the nearest ancestor that sets it
    ("Parent organization feature applies to all sub-organizations"). The value is one origin
    or several separated by commas or spaces (or a JSON list).
    """
    seen: set[str] = set()
    current: Organization | None = org
    while current is not None and current.organization_id not in seen:
        seen.add(current.organization_id)
        value = current.features.get(WEBAUTHN_ORIGINS)
        if value is not None:
            origins = _origin_list(value)
            return None if not origins or "*" in origins else origins
        current = store.orgs.get(current.parent_id) if current.parent_id else None
    return None


def _origin_list(value: str) -> list[str]:
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    items = parsed if isinstance(parsed, list) else value.replace(",", " ").split()
    return [normal_origin(str(item)) for item in items if str(item).strip()]


def normal_origin(origin: str) -> str:
    """Scheme and host compared case-insensitively, and no trailing slash."""
    text = origin.strip().rstrip("/")
    parts = urlsplit(text)
    if parts.scheme in ("http", "https") and parts.netloc:
        return f"{parts.scheme.lower()}://{parts.netloc.lower()}"
    return text


def origin_problem(origin: str | None, allowed: Sequence[str] | None) -> str | None:
    """Why ``origin`` is not allowed, or ``None`` when it is."""
    if allowed is None:
        return None
    if not origin:
        return f"clientDataJson has no origin; {WEBAUTHN_ORIGINS} allows only {', '.join(allowed)}"
    if normal_origin(origin) in allowed:
        return None
    return f"origin {origin} does not match the organization's {WEBAUTHN_ORIGINS} ({', '.join(allowed)})"


def rp_ids_for(origin: str) -> list[str] | None:
    """The rp ids a browser lets a page on ``origin`` use: its host and each parent domain.

    ``None`` for what is not a web origin (``android:apk-key-hash:…`` from native apps): the
    rp id cannot be derived from it, so it is not checked.
    """
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower()
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        labels = host.split(".")
        return [".".join(labels[i:]) for i in range(len(labels))]


def rp_id_problem(rp_id_hash: bytes, origin: str | None) -> str | None:
    """Why the authenticator data's rpIdHash cannot come from a page on ``origin``, or ``None``."""
    if not origin:
        return None
    candidates = rp_ids_for(origin)
    if candidates is None or any(hashlib.sha256(c.encode()).digest() == rp_id_hash for c in candidates):
        return None
    return (
        f"rpIdHash does not match rp id {candidates[0]} or a parent domain of it "
        f"(the origin is {origin}; a browser allows no other rp id there)"
    )


# --- registrations ------------------------------------------------------------------------------


def verify_registration(
    attestation: Mapping[str, Any],
    challenge: str,
    allowed: Sequence[str] | None,
    *,
    challenge_must_match: bool = True,
) -> Registration:
    """Check a passkey registration as a relying party does, or raise InvalidArgument naming the check.

    ``challenge`` is the intent's (base64url, as the SDKs send it); ``allowed`` comes from
    :func:`allowed_origins`. ``challenge_must_match=False`` (the activities that register a passkey
    along with a user, a sub-organization or a recovery, which never compared it: the docs call the
    challenge "not meaningful" there) logs a mismatch as a warning instead of refusing it.
    """
    raw_object, obj = _attestation_object(attestation)
    auth_data: bytes = obj["authData"]
    client_raw, client_data = _client_data(attestation)
    origin = client_data.get("origin")
    origin = origin if isinstance(origin, str) else None
    if client_data.get("type") != "webauthn.create":
        _refuse(f"clientDataJson type {client_data.get('type')!r} is not 'webauthn.create'")
    if _unpadded(client_data.get("challenge")) != _unpadded(challenge):
        mismatch = (
            f"clientDataJson challenge {client_data.get('challenge')!r} does not match the "
            f"challenge {challenge!r} of the request"
        )
        if challenge_must_match:
            _refuse(mismatch)
        log.warning("passkey registration accepted although its %s", mismatch)
    for problem in (origin_problem(origin, allowed), rp_id_problem(auth_data[:32], origin)):
        if problem:
            _refuse(problem)
    fmt = obj["fmt"]
    if fmt not in FORMATS:
        _refuse(f"attestation format {fmt!r} not supported (supported: {', '.join(FORMATS)})")
    parsed = _parsed(raw_object)
    credential = parsed.auth_data.attested_credential_data
    if credential is None:
        _refuse("authData carries no attested credential data (the AT flag is not set)")
    given_id = str(attestation.get("credentialId", ""))
    raw_id = b64url_encode(credential.credential_id)
    if _unpadded(given_id) == b64url_encode(cbor2.dumps(credential.credential_id)):
        # The swagger calls it "cbor encoded then base64 url encoded"; the SDKs send the
        # browser's credential.id (base64url of the raw id), which is what stamps name.
        given_id = raw_id
    if _unpadded(given_id) != raw_id:
        _refuse(f"credentialId {given_id} does not match the credential id in authData ({raw_id})")
    point = _es256_point(credential.credential_public_key)
    _verify_statement(fmt, parsed, raw_object, client_raw, credential)
    aaguid = credential.aaguid.hex()
    return Registration(
        credential_id=given_id,
        public_key=point,
        fmt=fmt,
        aaguid=f"{aaguid[:8]}-{aaguid[8:12]}-{aaguid[12:16]}-{aaguid[16:20]}-{aaguid[20:]}",
        origin=origin,
    )


def _refuse(problem: str) -> NoReturn:
    raise InvalidArgument(f"{REFUSED}: {problem}")


def _unpadded(value: object) -> str:
    """base64 or base64url text compared as base64url without padding (the SDKs differ)."""
    return str(value).strip().rstrip("=").replace("+", "-").replace("/", "_") if isinstance(value, str) else ""


def _attestation_object(attestation: Mapping[str, Any]) -> tuple[bytes, dict[str, Any]]:
    try:
        raw = b64url_decode(str(attestation["attestationObject"]))
        obj = cbor2.loads(raw)
    except (ValueError, KeyError, TypeError, binascii.Error, cbor2.CBORDecodeError):
        obj = None
    if not isinstance(obj, dict) or not isinstance(obj.get("fmt"), str):
        _refuse("invalid attestationObject: expected base64url CBOR {fmt, attStmt, authData}")
    if not isinstance(obj.get("authData"), bytes) or len(obj["authData"]) < 37:
        raise InvalidArgument(
            f"missing parameter: user authenticator attestation auth data ({REFUSED}: "
            "invalid attestationObject: authData must be at least 37 bytes)"
        )
    if not isinstance(obj.get("attStmt", {}), dict):
        _refuse("invalid attestationObject: attStmt must be a map")
    return raw, obj


def _client_data(attestation: Mapping[str, Any]) -> tuple[bytes, dict[str, Any]]:
    try:
        raw = b64url_decode(str(attestation["clientDataJson"]))
        data = None if too_deep(raw) else json.loads(raw)
    except (ValueError, KeyError, TypeError, binascii.Error):
        data = None
    if not isinstance(data, dict):
        _refuse("clientDataJson must be base64url of the JSON the browser gave")
    return raw, data


def _parsed(raw_object: bytes) -> Any:
    from webauthn.helpers import parse_attestation_object

    try:
        return parse_attestation_object(raw_object)
    except Exception as err:  # the library raises its own errors and plain ones alike on bad input
        _refuse(f"invalid attestationObject: {err}")


def _es256_point(cose: bytes) -> bytes:
    """The uncompressed P-256 point of an ES256 COSE key; other keys are refused by name."""
    try:
        key = cbor2.loads(cose)
        alg, kty, crv = key.get(3), key.get(1), key.get(-1)
    except (ValueError, TypeError, AttributeError, cbor2.CBORDecodeError):
        alg = kty = crv = None
    if alg == RS256:
        _refuse(
            "credential public key alg -257 (RS256) is not supported by the simulator: the service "
            "accepts RS256 passkeys, the simulator verifies ES256 (-7) only"
        )
    if alg != ES256 or kty != 2 or crv != 1:
        _refuse(f"credential public key must be ES256 (COSE alg -7, P-256), got alg {alg!r}")
    try:
        point = b"\x04" + bytes(key[-2]) + bytes(key[-3])
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, TypeError, KeyError):
        _refuse("credential public key is not a point on P-256")
    return point


def _verify_statement(fmt: str, parsed: Any, raw_object: bytes, client_raw: bytes, credential: Any) -> None:
    """The attestation statement, by py_webauthn's verifier for its format."""
    statement = parsed.att_stmt
    if fmt == "none":
        if any(getattr(statement, name) is not None for name in vars(statement)):
            _refuse("none attestation carries an attestation statement (attStmt must be empty)")
        return
    if fmt == "packed" and statement.x5c:
        _check_packed_certificates(statement.x5c, credential.aaguid)
    try:
        verified = _format_verifier(fmt)(parsed, raw_object, client_raw, credential)
    except Exception as err:  # py_webauthn raises its own, cryptography's and plain errors on bad input
        detail = str(err) or type(err).__name__
        if "signature" in detail.lower():
            _refuse(f"{fmt} attestation signature invalid ({detail})")
        _refuse(f"{fmt} attestation statement invalid: {detail}")
    if not verified:
        _refuse(f"{fmt} attestation statement could not be verified")


def _format_verifier(fmt: str) -> Any:
    from webauthn.registration.formats import android_key, android_safetynet, apple, fido_u2f, packed, tpm

    def common(parsed: Any, raw: bytes, client: bytes, cred: Any) -> dict[str, Any]:
        return {
            "attestation_statement": parsed.att_stmt,
            "attestation_object": raw,
            "client_data_json": client,
            "credential_public_key": cred.credential_public_key,
            "pem_root_certs_bytes": [],
        }

    def u2f(parsed: Any, raw: bytes, client: bytes, cred: Any) -> bool:
        return fido_u2f.verify_fido_u2f(
            attestation_statement=parsed.att_stmt,
            client_data_json=client,
            rp_id_hash=parsed.auth_data.rp_id_hash,
            credential_id=cred.credential_id,
            credential_public_key=cred.credential_public_key,
            aaguid=cred.aaguid,
            pem_root_certs_bytes=[],
        )

    def safetynet(parsed: Any, raw: bytes, client: bytes, cred: Any) -> bool:
        return android_safetynet.verify_android_safetynet(
            attestation_statement=parsed.att_stmt,
            attestation_object=raw,
            client_data_json=client,
            pem_root_certs_bytes=[],
        )

    verifiers: dict[str, Any] = {
        "packed": lambda *a: packed.verify_packed(**common(*a)),
        "tpm": lambda *a: tpm.verify_tpm(**common(*a)),
        "apple": lambda *a: apple.verify_apple(**common(*a)),
        "android-key": lambda *a: android_key.verify_android_key(**common(*a)),
        "fido-u2f": u2f,
        "android-safetynet": safetynet,
    }
    return verifiers[fmt]


def _check_packed_certificates(x5c: list[bytes], aaguid: bytes) -> None:
    """WebAuthn §8.2.1's requirements on the attestation certificate, and a chain that holds together."""
    try:
        certs = [x509.load_der_x509_certificate(der) for der in x5c]
    except ValueError:
        _refuse("packed attestation x5c holds something that is not a DER certificate")
    leaf = certs[0]
    if leaf.version != x509.Version.v3:
        _refuse("packed attestation certificate must be X.509 version 3")
    units = [a.value for a in leaf.subject.get_attributes_for_oid(x509.NameOID.ORGANIZATIONAL_UNIT_NAME)]
    if "Authenticator Attestation" not in units:
        _refuse("packed attestation certificate subject must have OU=Authenticator Attestation")
    try:
        if leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca:
            _refuse("packed attestation certificate must not be a CA (basicConstraints CA=true)")
    except x509.ExtensionNotFound:
        pass
    try:
        extension = leaf.extensions.get_extension_for_oid(FIDO_AAGUID_OID)
    except x509.ExtensionNotFound:
        extension = None
    if extension is not None:
        value = extension.value.value if isinstance(extension.value, x509.UnrecognizedExtension) else b""
        # The extension holds an OCTET STRING of the 16-byte AAGUID (DER: 04 10 ‖ aaguid).
        if extension.critical or value[-16:] != aaguid or len(value) != 18:
            _refuse("packed attestation certificate's AAGUID extension does not match the aaguid in authData")
    for index, (cert, issuer) in enumerate(zip(certs, certs[1:], strict=False)):
        try:
            cert.verify_directly_issued_by(issuer)
        except Exception as err:  # InvalidSignature, or an issuer key or algorithm it cannot use
            _refuse(
                f"packed attestation certificate chain broken: certificate {index} is not signed by "
                f"certificate {index + 1} ({type(err).__name__})"
            )


# --- assertions ---------------------------------------------------------------------------------


def check_assertion(webauthn: Mapping[str, str], allowed: Sequence[str] | None) -> None:
    """The origin and rpIdHash of a passkey stamp whose signature has been verified."""
    try:
        client_data = json.loads(b64url_decode(webauthn["clientDataJson"]))
        auth_data = b64url_decode(webauthn["authenticatorData"])
    except (ValueError, KeyError, TypeError, binascii.Error):
        client_data, auth_data = {}, b""
    origin = client_data.get("origin") if isinstance(client_data, dict) else None
    origin = origin if isinstance(origin, str) else None
    for problem in (origin_problem(origin, allowed), rp_id_problem(auth_data[:32], origin)):
        if problem:
            raise Unauthenticated(f"could not verify WebAuthN signature: {problem}", error_code="SIGNATURE_INVALID")
