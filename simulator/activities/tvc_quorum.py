"""Turnkey Verifiable Cloud, the second half: manifest approvals, quorum keys and their shares, the
provisioning enclave's details, and the start of a deployment once both thresholds are met.

Operator signatures are checked for real: ECDSA P-256 over SHA-256 of the manifest bytes, DER or
r‖s hex (see :mod:`simulator.activities.tvc` for the operators, apps and deployments).
"""

from __future__ import annotations

import base64

from simulator.activities.tvc import live_deployment, signing_key
from simulator.crypto import keys
from simulator.errors import InvalidArgument, NotFound
from simulator.handler_support.context import Context
from simulator.model.tvc import provisioning, provisioning_public_key
from simulator.state import longtail_records as records
from simulator.state.longtail_records import TvcDeployment, TvcOperator, TvcQuorumKey
from simulator.wire import Json


# approvals and quorum key shares ------------------------------------------------------------------
def create_tvc_manifest_approvals(ctx: Context, params: Json) -> Json:
    deployment = by_manifest(ctx, params["manifestId"])
    app = records.tvc_apps(ctx.org.longtail)[deployment.app_id]
    members = records.tvc_operator_sets(ctx.org.longtail)[app.manifest_set_id].operator_ids
    made = []
    for approval in params["approvals"]:
        operator = member(ctx, approval["operatorId"], members, "manifest")
        check_signature(operator.public_key, approval["signature"], deployment.manifest, operator.id)
        made.append(
            {
                "id": ctx.new_id(),
                "operatorId": operator.id,
                "signature": approval["signature"],
                "createdMs": ctx.now_ms,
            }
        )
    deployment.approvals.extend(made)
    promote_first_approved(ctx, deployment)
    maybe_start(ctx, deployment)
    return {"approvalIds": [a["id"] for a in made]}


def promote_first_approved(ctx: Context, deployment: TvcDeployment) -> None:
    """An app without a live deployment makes the first one its manifest set approves live
    (features/verifiable-cloud/manifest-sets-and-share-sets); later ones wait for set_tvc_app_live_deployment."""
    app = records.tvc_apps(ctx.org.longtail)[deployment.app_id]
    threshold = records.tvc_operator_sets(ctx.org.longtail)[app.manifest_set_id].threshold
    if app.live_deployment_id is None and len({a["operatorId"] for a in deployment.approvals}) >= threshold:
        app.live_deployment_id, app.updated_ms = deployment.id, ctx.now_ms


def by_manifest(ctx: Context, manifest_id: str) -> TvcDeployment:
    for deployment in records.tvc_deployments(ctx.org.longtail).values():
        if manifest_id in (deployment.manifest_id, deployment.id):
            return deployment
    raise NotFound(
        f"TVC manifest {manifest_id} not found in organization {ctx.org.organization_id}", error_code="REQUEST_INVALID"
    )


def member(ctx: Context, operator_id: str, members: list[str], role: str) -> TvcOperator:
    if operator_id not in members:
        raise InvalidArgument(f"operator {operator_id} is not in the app's {role} set")
    return ctx.org.find(records.tvc_operators(ctx.org.longtail), operator_id, "TVC operator")


def post_tvc_quorum_key_share(ctx: Context, params: Json) -> Json:
    deployment = live_deployment(ctx, params["deploymentId"])
    if params["ephemeralPublicKeyHex"].lower() != provisioning_public_key(deployment):
        raise InvalidArgument(
            "ephemeralPublicKeyHex is not this deployment's provisioning key (see its provisioning details)"
        )
    bundle = params["shareApprovalBundle"]
    app = records.tvc_apps(ctx.org.longtail)[deployment.app_id]
    members = records.tvc_operator_sets(ctx.org.longtail)[app.share_set_id].operator_ids
    operator = member(ctx, bundle["operatorId"], members, "share")
    check_signature(operator.public_key, bundle["signature"], deployment.manifest, operator.id)
    return {"provisioningShareId": add_share(ctx, deployment, operator.id)}


def add_share(ctx: Context, deployment: TvcDeployment, operator_ref: str) -> str:
    if any(s["operator"] == operator_ref for s in deployment.shares):
        raise InvalidArgument(f"operator {operator_ref} already posted a quorum key share for this deployment")
    share_id = ctx.new_id()
    deployment.shares.append({"id": share_id, "operator": operator_ref})
    maybe_start(ctx, deployment)
    return share_id


def create_tvc_quorum_key(ctx: Context, params: Json) -> Json:
    operators = params["operatorEncryptKeys"]
    threshold = int(params["threshold"])
    if not 1 <= threshold <= len(operators):
        raise InvalidArgument(f"invalid threshold {threshold}: expected 1 to {len(operators)} operator keys")
    for i, operator_key in enumerate(operators):
        signing_key(operator_key, f"operatorEncryptKeys[{i}]")
    quorum_key = keys.new_ec_key(ctx.source, "p256")
    shares = {k.lower(): ctx.new_id() for k in operators}  # one hosted share per operator key
    record = TvcQuorumKey(ctx.new_id(), keys.uncompressed(quorum_key).hex(), threshold, shares)
    records.tvc_quorum_keys(ctx.org.longtail)[record.id] = record
    return {"quorumKeyId": record.id, "quorumPublicKey": record.public_key, "shareIds": list(record.operators.values())}


def re_encrypt_tvc_quorum_key_share(ctx: Context, params: Json) -> Json:
    import binascii

    deployment = live_deployment(ctx, params["deploymentId"])
    app = records.tvc_apps(ctx.org.longtail)[deployment.app_id]
    wanted = params["appQuorumKey"].lower()
    hosted = [q for q in records.tvc_quorum_keys(ctx.org.longtail).values() if q.public_key == wanted]
    if app.quorum_public_key.lower() != wanted or not hosted:
        raise InvalidArgument("appQuorumKey is not this deployment's app quorum key as hosted by create_tvc_quorum_key")
    share_id = hosted[0].operators.get(params["operatorEncryptKey"].lower())
    if share_id is None:
        raise InvalidArgument("operatorEncryptKey holds no share of this hosted quorum key")
    details = provisioning(deployment)
    try:
        given = (
            base64.b64decode(params["manifestB64"], validate=True),
            base64.b64decode(params["attestationDocB64"], validate=True),
        )
    except binascii.Error:
        raise InvalidArgument("manifestB64 and attestationDocB64 must be base64") from None
    if given[0] != deployment.manifest.encode() or not same_attestation(given[1], details["attestationDocument"]):
        raise InvalidArgument(
            "manifestB64 or attestationDocB64 is not this deployment's (get_tvc_deployment_provisioning_details)"
        )
    return {"provisioningShareId": add_share(ctx, deployment, share_id)}


def same_attestation(given: bytes, issued_b64: str) -> bool:
    """Whether ``given`` attests what the provisioning enclave's document does (its signed payload;
    the signature itself differs between two issues of the same document)."""
    import cbor2

    try:
        return bool(cbor2.loads(given)[2] == cbor2.loads(base64.b64decode(issued_b64))[2])
    except (cbor2.CBORDecodeError, IndexError, TypeError, KeyError):
        return False


def maybe_start(ctx: Context, deployment: TvcDeployment) -> None:
    """Once approvals and shares meet their thresholds the enclave boots: the status sequence starts."""
    app = records.tvc_apps(ctx.org.longtail)[deployment.app_id]
    sets = records.tvc_operator_sets(ctx.org.longtail)
    approved = len({a["operatorId"] for a in deployment.approvals}) >= sets[app.manifest_set_id].threshold
    shared = len(deployment.shares) >= sets[app.share_set_id].threshold
    if approved and shared and deployment.started_ms is None:
        deployment.started_ms = ctx.now_ms
        deployment.track.started_ms = ctx.now_ms  # its seconds count from the boot


def check_signature(public_hex: str, signature_hex: str, manifest: str, operator_id: str) -> None:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    key = signing_key(public_hex, f"operator {operator_id}'s key")
    assert isinstance(key, ec.EllipticCurvePublicKey)
    try:
        raw = bytes.fromhex(signature_hex)
        der = (
            encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
            if len(raw) == 64
            else raw
        )
        key.verify(der, manifest.encode(), ec.ECDSA(hashes.SHA256()))
    except (ValueError, InvalidSignature):
        raise InvalidArgument(
            f"invalid signature from operator {operator_id}: not an ECDSA P-256 signature over SHA-256 of the manifest"
        ) from None
