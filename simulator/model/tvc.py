"""Turnkey Verifiable Cloud's provisioning enclave, as the quorum handlers and the reads share it:
its public key and its details (attestation document and manifest envelope) for a deployment.
"""

from __future__ import annotations

import base64
import hashlib
import json

from simulator.crypto import keys
from simulator.crypto.attestation import attestation_doc
from simulator.state.longtail_records import TvcDeployment
from simulator.wire import Json


def provisioning(deployment: TvcDeployment) -> Json:
    """The provisioning enclave's attestation (simulated, see crypto.attestation) and manifest envelope."""
    manifest = deployment.manifest.encode()
    public = bytes.fromhex(provisioning_public_key(deployment))
    doc = attestation_doc(
        public, hashlib.sha256(manifest).digest(), "simulator-tvc-provisioning", deployment.created_ms
    )
    approvals = [{"operatorId": a["operatorId"], "signature": a["signature"]} for a in deployment.approvals]
    envelope = json.dumps({"manifest": deployment.manifest, "manifestSetApprovals": approvals, "shareSetApprovals": []})
    return {"attestationDocument": base64.b64encode(doc).decode(), "manifestEnvelope": envelope}


def provisioning_public_key(deployment: TvcDeployment) -> str:
    return keys.uncompressed(keys.ec_key_from_hex("p256", deployment.provisioning_key)).hex()
