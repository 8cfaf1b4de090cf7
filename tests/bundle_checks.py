"""Independent checks of the enclave's envelopes, shared by the key-lifecycle tests: cryptography's
own HPKE (OpenSSL, not pyhpke) opens what the simulator sealed, python-ecdsa verifies signatures."""

from __future__ import annotations

import hashlib
import json

import ecdsa
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from simulator.crypto import keys, service_keys

SIGNER = service_keys.public_hex("signer")


def independent_open(enc: bytes, ciphertext: bytes, receiver: ec.EllipticCurvePrivateKey) -> bytes:
    """RFC 9180 base mode by OpenSSL (cryptography's HPKE), with the service's AAD enc ‖ receiver."""
    hpke_mod = pytest.importorskip("cryptography.hazmat.primitives.hpke")
    from cryptography.hazmat.bindings._rust import openssl

    suite = hpke_mod.Suite(hpke_mod.KEM.P256, hpke_mod.KDF.HKDF_SHA256, hpke_mod.AEAD.AES_256_GCM)
    aad = enc + keys.uncompressed(receiver)
    return bytes(openssl.hpke._decrypt_with_aad(suite, enc + ciphertext, receiver, info=b"turnkey_hpke", aad=aad))


def verify_envelope(bundle: str) -> dict:
    """The envelope's signature, by ecdsa (python-ecdsa): DER over SHA-256 of the data bytes."""
    parsed = json.loads(bundle)
    assert parsed["version"] == "v1.0.0" and parsed["enclaveQuorumPublic"] == SIGNER
    key = ecdsa.VerifyingKey.from_string(bytes.fromhex(SIGNER), curve=ecdsa.NIST256p)
    data = bytes.fromhex(parsed["data"])
    assert key.verify(
        bytes.fromhex(parsed["dataSignature"]), data, hashfunc=hashlib.sha256, sigdecode=ecdsa.util.sigdecode_der
    )
    return json.loads(data)
