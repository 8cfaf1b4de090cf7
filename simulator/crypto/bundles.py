"""The enclave's signed envelopes and sealed bundles: export, import and OTP-encryption targets.

A signed envelope is the JSON string ``{"version": "v1.0.0", "data": <hex of JSON>,
"dataSignature": <hex DER ECDSA-P256 over SHA-256 of the data bytes>, "enclaveQuorumPublic":
<uncompressed hex of the signer>}``. Export data is ``{encappedPublic, ciphertext,
organizationId}``; a target's data is ``{targetPublic, organizationId, userId}``. What a client
seals to a target is the unsigned JSON ``{"encappedPublic", "ciphertext"}`` (@turnkey/crypto's
``formatHpkeBuf``). Both sides live here: the server makes and opens, the test helpers check and
seal the way @turnkey/crypto does, with the same HPKE (:mod:`simulator.crypto.hpke`).
"""

from __future__ import annotations

import json

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from simulator.crypto import hpke, keys, service_keys
from simulator.wire import Json

VERSION = "v1.0.0"
SIGNER = "signer"  # the service key (service_keys) that signs export and import bundles


class BundleError(ValueError):
    """A bundle that cannot be used; the message says which part is wrong."""


# the enclave's side ------------------------------------------------------------------------------
def signed(data: Json, signer: str = SIGNER) -> str:
    """``data`` in the signed envelope, signed by the named service key."""
    raw = json.dumps(data).encode()
    signature = service_keys.private(signer).sign(raw, ec.ECDSA(hashes.SHA256()))
    return json.dumps(
        {
            "version": VERSION,
            "data": raw.hex(),
            "dataSignature": signature.hex(),
            "enclaveQuorumPublic": service_keys.public_hex(signer),
        }
    )


def export_bundle(
    plaintext: bytes, target_public_hex: str, organization_id: str, ephemeral: ec.EllipticCurvePrivateKey
) -> str:
    """``plaintext`` sealed to the client's target key (compressed or uncompressed hex), signed.

    Raises BundleError when the target is not a P-256 public key."""
    try:
        enc, ciphertext = hpke.seal(target_public_hex, plaintext, ephemeral)
    except ValueError as exc:
        raise BundleError(f"invalid targetPublicKey: {exc}") from None
    return signed({"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex(), "organizationId": organization_id})


def target_bundle(target: ec.EllipticCurvePrivateKey, organization_id: str, user_id: str) -> str:
    """What init_import_* returns: the target's public key (uncompressed, as clients use it in the AAD)."""
    target_public = keys.uncompressed(target).hex()
    return signed({"targetPublic": target_public, "organizationId": organization_id, "userId": user_id})


def parse_sealed(bundle: str) -> tuple[bytes, bytes]:
    """(encapsulated key, ciphertext) of a client's ``{"encappedPublic", "ciphertext"}`` bundle."""
    try:
        parsed = json.loads(bundle)
    except (ValueError, TypeError):
        raise BundleError('not JSON: expected {"encappedPublic": <hex>, "ciphertext": <hex>}') from None
    if not isinstance(parsed, dict):
        raise BundleError('expected a JSON object {"encappedPublic": <hex>, "ciphertext": <hex>}')
    enc, ciphertext = (_hex_field(parsed, name) for name in ("encappedPublic", "ciphertext"))
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), enc)
    except ValueError:
        raise BundleError("encappedPublic is not a P-256 public key") from None
    if len(ciphertext) < 16:
        raise BundleError("ciphertext is shorter than its AES-GCM tag")
    return enc, ciphertext


def _hex_field(parsed: Json, name: str) -> bytes:
    value = parsed.get(name)
    if not isinstance(value, str) or not value:
        raise BundleError(f'missing "{name}" (hex string)')
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise BundleError(f"{name} is not hex") from None


def open_with(enc: bytes, ciphertext: bytes, target: ec.EllipticCurvePrivateKey) -> bytes | None:
    """The plaintext if the bundle was sealed to ``target``; None if it was not (or was altered)."""
    try:
        return hpke.open_sealed(target, enc, ciphertext)
    except (InvalidTag, ValueError):
        return None


# the client's side (what @turnkey/crypto does; used by simulator.testing) -------------------------
def verified_data(bundle: str, signer_public_hex: str) -> Json:
    """The signed data of an envelope, after @turnkey/crypto's checks: same signer key (exact
    string), valid signature over SHA-256 of the data bytes."""
    try:
        parsed = json.loads(bundle)
        quorum, data, signature = parsed["enclaveQuorumPublic"], parsed["data"], parsed["dataSignature"]
    except (ValueError, TypeError, KeyError):
        raise BundleError(
            "not a signed bundle: expected JSON with enclaveQuorumPublic, data and dataSignature"
        ) from None
    if quorum != signer_public_hex:
        raise BundleError(f"expected signer key {signer_public_hex} does not match signer key from bundle: {quorum}")
    try:
        raw = bytes.fromhex(data)
        signer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(quorum))
        signer.verify(bytes.fromhex(signature), raw, ec.ECDSA(hashes.SHA256()))
        signed_data = json.loads(raw)
    except (ValueError, TypeError, InvalidSignature):
        raise BundleError("the bundle's signature does not verify with the signer key") from None
    if not isinstance(signed_data, dict):
        raise BundleError("the bundle's signed data is not a JSON object")
    return signed_data


def expect(signed_data: Json, field: str, expected: str) -> None:
    """@turnkey/crypto's check (and phrase) for ``organizationId`` and ``userId``."""
    if signed_data.get(field) != expected:
        what = {"organizationId": "organization id", "userId": "user id"}.get(field, field)
        found = signed_data.get(field)
        raise BundleError(f"{what} does not match expected value. Expected: {expected}. Found: {found}.")


def open_export_bundle(
    bundle: str, receiver: ec.EllipticCurvePrivateKey, organization_id: str, signer_public_hex: str
) -> bytes:
    """decryptExportBundle's steps: the signer, the organization, then HPKE with the receiver key."""
    signed_data = verified_data(bundle, signer_public_hex)
    expect(signed_data, "organizationId", organization_id)
    try:
        enc = bytes.fromhex(signed_data["encappedPublic"])
        ciphertext = bytes.fromhex(signed_data["ciphertext"])
    except (KeyError, TypeError, ValueError):
        raise BundleError('missing or malformed "encappedPublic"/"ciphertext" in bundle signed data') from None
    plaintext = open_with(enc, ciphertext, receiver)
    if plaintext is None:
        raise BundleError("the bundle does not open with this key: it was sealed to another target key")
    return plaintext


def seal_to_target(
    plaintext: bytes,
    bundle: str,
    signer_public_hex: str,
    ephemeral: ec.EllipticCurvePrivateKey,
    expected: Json | None = None,
) -> str:
    """encrypt*ToBundle's steps: check the target bundle (signer, then each ``expected`` field),
    seal to its ``targetPublic``, and format as ``{"encappedPublic", "ciphertext"}``."""
    signed_data = verified_data(bundle, signer_public_hex)
    for field, value in (expected or {}).items():
        expect(signed_data, field, value)
    target = signed_data.get("targetPublic")
    if not isinstance(target, str) or not target:
        raise BundleError('missing "targetPublic" in bundle signed data')
    try:
        enc, ciphertext = hpke.seal(target, plaintext, ephemeral)
    except ValueError as exc:
        raise BundleError(f"targetPublic: {exc}") from None
    return json.dumps({"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()})
