"""The end user's side of the enclave's crypto, as @turnkey/crypto 2.x does it, for tests without JS.

Same names, arguments and checks as the JS helpers (``decryptExportBundle``,
``encryptWalletToBundle``, ``encryptPrivateKeyToBundle``, ``encryptOtpCodeToBundle``,
``decryptCredentialBundle``), on the project's one HPKE. Signed bundles are checked against the
simulator's keys by default (``signer`` for export and import, ``enclave`` for OTP targets); pass
``signer_public_key`` to check against another key, as ``dangerouslyOverrideSignerPublicKey``
does. Every refusal is a :class:`~simulator.crypto.bundles.BundleError` (a ValueError).
Randomness here is the operating system's: these run in the client, not in the simulator.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

import base58
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from simulator.crypto import bundles, hpke, keys, service_keys
from simulator.crypto.bundles import BundleError
from simulator.wire import Json

KEY_FORMATS = ("HEXADECIMAL", "SOLANA")


@dataclass(frozen=True)
class ClientKeyPair:
    """A P-256 key pair as ``generateP256KeyPair`` makes it (hex, public key compressed and not)."""

    private_key: str
    public_key: str
    public_key_uncompressed: str

    @classmethod
    def generate(cls) -> ClientKeyPair:
        return cls.from_private_key(keys.private_hex(ec.generate_private_key(ec.SECP256R1())))

    @classmethod
    def from_private_key(cls, private_key: str) -> ClientKeyPair:
        key = _p256(private_key)
        return cls(keys.private_hex(key), keys.compressed_hex(key), keys.uncompressed(key).hex())


def _p256(private_hex: str) -> ec.EllipticCurvePrivateKey:
    try:
        return keys.ec_key_from_hex("p256", private_hex)
    except (ValueError, TypeError):
        raise BundleError("the embedded key is not a P-256 private key (64 hex characters)") from None


def _ephemeral() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def decrypt_export_bundle(
    export_bundle: str,
    embedded_key: str,
    organization_id: str,
    *,
    signer_public_key: str | None = None,
    key_format: str = "HEXADECIMAL",
    return_mnemonic: bool = False,
) -> str:
    """The mnemonic (``return_mnemonic``), or the private key: hex, or base58(private ‖ public) for SOLANA."""
    signer = signer_public_key or service_keys.public_hex(bundles.SIGNER)
    plaintext = bundles.open_export_bundle(export_bundle, _p256(embedded_key), organization_id, signer)
    if return_mnemonic:
        return plaintext.decode("utf-8", errors="replace")
    if key_format == "SOLANA":
        if len(plaintext) != 32:
            raise BundleError(f"invalid private key length. Expected 32 bytes. Got {len(plaintext)}.")
        public = ed25519.Ed25519PrivateKey.from_private_bytes(plaintext).public_key()
        return str(base58.b58encode(plaintext + public.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode())
    return plaintext.hex()


def encrypt_wallet_to_bundle(
    mnemonic: str, import_bundle: str, user_id: str, organization_id: str, *, signer_public_key: str | None = None
) -> str:
    """The mnemonic (UTF-8, as typed) sealed to init_import_wallet's target."""
    expected = {"organizationId": organization_id, "userId": user_id}
    signer = signer_public_key or service_keys.public_hex(bundles.SIGNER)
    return bundles.seal_to_target(mnemonic.encode(), import_bundle, signer, _ephemeral(), expected)


def encrypt_private_key_to_bundle(
    private_key: str,
    import_bundle: str,
    user_id: str,
    organization_id: str,
    *,
    key_format: str = "HEXADECIMAL",
    signer_public_key: str | None = None,
) -> str:
    """The raw key sealed to init_import_private_key's target: hex (``0x`` allowed), or a 64-byte
    base58 Solana keypair of which the first 32 bytes are sent."""
    expected = {"organizationId": organization_id, "userId": user_id}
    signer = signer_public_key or service_keys.public_hex(bundles.SIGNER)
    return bundles.seal_to_target(decode_key(private_key, key_format), import_bundle, signer, _ephemeral(), expected)


def decode_key(private_key: str, key_format: str) -> bytes:
    if key_format not in KEY_FORMATS:
        raise BundleError(f"invalid key format: {key_format}; expected one of {', '.join(KEY_FORMATS)}")
    try:
        if key_format == "SOLANA":
            raw = base58.b58decode(private_key)
            if len(raw) != 64:
                raise BundleError(f"invalid key length. Expected 64 bytes. Got {len(raw)}.")
            return raw[:32]
        return bytes.fromhex(private_key.removeprefix("0x"))
    except ValueError as exc:
        raise BundleError(f"invalid private key: {exc}") from None


def encrypt_otp_code_to_bundle(
    otp_code: str, otp_encryption_target_bundle: str, public_key: str, *, signer_public_key: str | None = None
) -> str:
    """verify_otp V2's ``encryptedOtpBundle``: ``{"otp_code", "public_key"}`` sealed to init_otp V3's target."""
    signer = signer_public_key or service_keys.public_hex("enclave")
    # the bytes @turnkey/crypto seals: JSON.stringify's compact form, in this key order
    plaintext = json.dumps({"otp_code": otp_code, "public_key": public_key}, separators=(",", ":")).encode()
    return bundles.seal_to_target(plaintext, otp_encryption_target_bundle, signer, _ephemeral())


def decrypt_credential_bundle(credential_bundle: str, embedded_key: str) -> str:
    """The hex private key inside an otp_auth / oauth credential bundle (bs58check, HPKE)."""
    try:
        return hpke.open_credential_bundle(credential_bundle, _p256(embedded_key)).hex()
    except (ValueError, InvalidTag):
        raise BundleError("the credential bundle does not open with this key (wrong key, or altered)") from None


def jwt_claims(token: str) -> Json:
    """The claims of a session JWT or a verification token, decoded as @turnkey/core does
    (``parseSession``, ``decodeVerificationToken``); the signature is not checked here."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        raise BundleError("not a JWT (header.payload.signature)") from None
    if not isinstance(claims, dict):
        raise BundleError("the JWT's payload is not a JSON object")
    return claims
