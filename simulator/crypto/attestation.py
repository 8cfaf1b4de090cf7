"""Simulated Nitro attestation documents: what a boot proof and the TVC quorum's provisioning enclave carry.

A COSE_Sign1 (RFC 9052, ES256) whose payload is a Nitro-style attestation map (module_id, digest,
timestamp, zeroed PCRs, the ephemeral ``public_key``, ``user_data``), signed by the simulator's
published ``enclave`` key instead of AWS's certificate chain; ``simulator.queries.boot_proofs``
describes the rest of the boot proof.
"""

from __future__ import annotations

from simulator.crypto import service_keys

ES256 = -7
ZERO_PCRS = {i: bytes(48) for i in range(4)}


def attestation_doc(public_key: bytes, user_data: bytes, module_id: str, at_ms: int) -> bytes:
    """A COSE_Sign1 over a Nitro-style attestation map, signed by the simulator's ``enclave`` key."""
    import cbor2
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    payload = cbor2.dumps(
        {
            "module_id": module_id,
            "digest": "SHA384",
            "timestamp": at_ms,
            "pcrs": ZERO_PCRS,
            "certificate": b"",
            "cabundle": [],
            "public_key": public_key,
            "user_data": user_data,
            "nonce": None,
        }
    )
    protected = cbor2.dumps({1: ES256})
    to_sign = cbor2.dumps(["Signature1", protected, b"", payload])
    der = service_keys.private("enclave").sign(to_sign, ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    return bytes(cbor2.dumps([protected, {}, payload, r.to_bytes(32, "big") + s.to_bytes(32, "big")]))
