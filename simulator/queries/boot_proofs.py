"""Boot proofs for the ephemeral keys of the simulator's app proofs.

The real boot proof is an AWS Nitro attestation (a COSE_Sign1 signed under AWS's certificate chain)
over the enclave's QuorumOS manifest. Nothing local can produce that. The simulator's boot proof has
the same containers: a COSE_Sign1 (RFC 9052, ES256) whose payload is a Nitro-style attestation map
(module_id, digest, timestamp, zeroed PCRs, the ephemeral ``public_key``, ``user_data`` = SHA-256 of
the manifest), signed by the simulator's published ``enclave`` key instead of AWS's chain, and a JSON
manifest (``qosManifestVersion: "simulated-json-v1"``) instead of QuorumOS's borsh encoding. A verifier
that checks AWS's chain rejects it, as it should.
"""

from __future__ import annotations

import base64
import hashlib
import json

from simulator.crypto import service_keys
from simulator.crypto.attestation import attestation_doc
from simulator.errors import NotFound
from simulator.handler_support.query_context import QueryContext
from simulator.state.activity import Activity
from simulator.state.records import timestamp
from simulator.wire import Json

SIGNER_APP = "signer"  # the enclave app whose ephemeral keys sign the simulator's app proofs
MANIFEST_VERSION = "simulated-json-v1"


def boot_proof(public_hex: str, app: str, at_ms: int) -> Json:
    manifest = json.dumps(
        {"namespace": {"name": app, "nonce": 0, "quorumKey": service_keys.public_hex("enclave")}, "pivot": {}},
        separators=(",", ":"),
        sort_keys=True,
    ).encode()
    envelope = json.dumps({"manifest": manifest.decode(), "manifestSetApprovals": [], "shareSetApprovals": []}).encode()
    doc = attestation_doc(bytes.fromhex(public_hex), hashlib.sha256(manifest).digest(), f"simulator-{app}", at_ms)
    return {
        "ephemeralPublicKeyHex": public_hex,
        "awsAttestationDocB64": base64.b64encode(doc).decode(),
        "qosManifestB64": base64.b64encode(manifest).decode(),
        "qosManifestEnvelopeB64": base64.b64encode(envelope).decode(),
        "deploymentLabel": "simulator",
        "enclaveApp": app,
        "owner": "simulator",
        "createdAt": timestamp(at_ms),
        "qosManifestVersion": MANIFEST_VERSION,
    }


def proofs(q: QueryContext) -> list[tuple[Activity, Json]]:
    """Every app proof the simulator has made, oldest first."""
    made = [(a, p) for a in q.store.activities.values() for p in a.app_proofs]
    return sorted(made, key=lambda pair: pair[0].created_ms)


def get_boot_proof(q: QueryContext, body: Json) -> Json:
    wanted = body["ephemeralKey"].lower()
    for activity, proof in proofs(q):
        if proof["publicKey"].lower() == wanted:
            return {"bootProof": boot_proof(proof["publicKey"], SIGNER_APP, activity.created_ms)}
    raise NotFound(
        f"no boot proof for ephemeral key {body['ephemeralKey']}: the simulator boots one per app proof key "
        "(submit with generateAppProofs: true)",
        error_code="REQUEST_INVALID",
    )


def get_latest_boot_proof(q: QueryContext, body: Json) -> Json:
    if body["appName"] != SIGNER_APP:
        raise NotFound(f"unknown enclave app {body['appName']!r}; the simulator runs {SIGNER_APP!r}")
    made = proofs(q)
    if not made:
        raise NotFound("no boot proof yet: no activity has generated app proofs", error_code="REQUEST_INVALID")
    activity, proof = made[-1]
    return {"bootProof": boot_proof(proof["publicKey"], SIGNER_APP, activity.created_ms)}
