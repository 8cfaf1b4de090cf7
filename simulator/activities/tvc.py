"""Turnkey Verifiable Cloud: operators, operator sets, apps, deployments with their QuorumOS-style
manifest, manifest approvals, quorum key shares, and the live deployment.

A deployment starts once its manifest has the manifest set's threshold of approvals and the share
set's threshold of quorum key shares; its replicas then become ready on the simulator clock (or as a
scenario's status script says: READY, PENDING, FAILED). Approvals and posted shares carry operator
signatures, checked for real: ECDSA P-256 over SHA-256 of the manifest bytes, DER or r‖s hex, by the
operator's key (65-byte uncompressed, 33-byte compressed, or QuorumOS's 130-byte encrypt‖sign pair,
whose second half signs). No container runs and no enclave boots: the manifest is JSON, not borsh.
"""

from __future__ import annotations

import base64
import hashlib
import json

from simulator.activities import wallets
from simulator.activities.context import Context, require_unique
from simulator.crypto import keys
from simulator.errors import InvalidArgument, NotFound
from simulator.queries import boot_proofs
from simulator.scenario import longtail
from simulator.state.store import Organization
from simulator.wire import Json

OPERATORS, SETS, APPS, DEPLOYMENTS, QUORUM_KEYS = (
    "tvcOperators",
    "tvcOperatorSets",
    "tvcApps",
    "tvcDeployments",
    "tvcQuorumKeys",
)
READY_AFTER_SECONDS = 30  # not public; the simulator's choice


def find(org: Organization, name: str, item_id: str, what: str) -> Json:
    return org.find(longtail.table(org, name), item_id, what)


# operators and sets -------------------------------------------------------------------------------
def create_tvc_operator(ctx: Context, params: Json) -> Json:
    accounts = [
        {
            "curve": "CURVE_P256",
            "pathFormat": "PATH_FORMAT_BIP32",
            "path": f"{params['path']}/{i}",
            "addressFormat": "ADDRESS_FORMAT_UNCOMPRESSED",
        }
        for i in (0, 1)
    ]
    if params.get("walletId"):
        wallets.create_wallet_accounts(ctx, {"walletId": params["walletId"], "accounts": accounts})
        wallet = ctx.org.wallets[params["walletId"]]
    elif params.get("walletName"):
        wallet = wallets.new_wallet(ctx, params["walletName"], accounts)
    else:
        raise InvalidArgument("give walletId (an existing wallet) or walletName (a new one) for the operator's keys")
    encrypt, sign = (a.address for a in wallet.accounts[-2:])  # UNCOMPRESSED addresses are the 65-byte keys
    operator = new_operator(ctx, params["operatorName"], encrypt + sign)
    return {
        "walletId": wallet.wallet_id,
        "operatorId": operator["id"],
        "encryptPublicKey": encrypt,
        "signPublicKey": sign,
    }


def new_operator(ctx: Context, name: str, public_key: str) -> Json:
    signing_key(public_key, f"operator {name!r}")
    operator: Json = {"id": ctx.new_id(), "name": name, "publicKey": public_key, "createdMs": ctx.now_ms}
    longtail.table(ctx.org, OPERATORS)[operator["id"]] = operator
    return operator


def operator_set(ctx: Context, set_id: str | None, spec: Json | None, role: str) -> Json:
    if bool(set_id) == bool(spec):
        raise InvalidArgument(f"give exactly one of {role}SetId and {role}SetParams")
    if set_id:
        return find(ctx.org, SETS, set_id, f"TVC {role} set")
    assert spec is not None
    existing = [find(ctx.org, OPERATORS, i, "TVC operator")["id"] for i in spec.get("existingOperatorIds", [])]
    made = [new_operator(ctx, o["name"], o["publicKey"])["id"] for o in spec.get("newOperators", [])]
    members = existing + made
    threshold = int(spec["threshold"])  # int64 fields come as JSON numbers or decimal strings
    if not 1 <= threshold <= len(members):
        raise InvalidArgument(f"invalid {role} set threshold {threshold}: expected 1 to {len(members)} operators")
    found = {
        "id": ctx.new_id(),
        "name": spec["name"],
        "operatorIds": members,
        "threshold": threshold,
        "createdMs": ctx.now_ms,
    }
    longtail.table(ctx.org, SETS)[found["id"]] = found
    return found


# apps ---------------------------------------------------------------------------------------------
def create_tvc_app(ctx: Context, params: Json) -> Json:
    require_unique([a["name"] for a in longtail.table(ctx.org, APPS).values()], [params["name"]], "TVC app name")
    signing_key(params["quorumPublicKey"], "quorumPublicKey")
    manifest = operator_set(ctx, params.get("manifestSetId"), params.get("manifestSetParams"), "manifest")
    share = operator_set(ctx, params.get("shareSetId"), params.get("shareSetParams"), "share")
    app = {
        "id": ctx.new_id(),
        "name": params["name"],
        "quorumPublicKey": params["quorumPublicKey"],
        "manifestSetId": manifest["id"],
        "shareSetId": share["id"],
        "enableEgress": bool(params.get("enableEgress", False)),
        "enableDebugModeDeployments": bool(params.get("enableDebugModeDeployments", False)),
        "liveDeploymentId": None,
        "createdMs": ctx.now_ms,
        "updatedMs": ctx.now_ms,
    }
    longtail.table(ctx.org, APPS)[app["id"]] = app
    return {
        "appId": app["id"],
        "manifestSetId": manifest["id"],
        "manifestSetOperatorIds": list(manifest["operatorIds"]),
        "manifestSetThreshold": str(manifest["threshold"]),
        "shareSetId": share["id"],
        "shareSetOperatorIds": list(share["operatorIds"]),
        "shareSetThreshold": str(share["threshold"]),
    }


def delete_tvc_app_and_deployments(ctx: Context, params: Json) -> Json:
    app = find(ctx.org, APPS, params["appId"], "TVC app")
    deployments = longtail.table(ctx.org, DEPLOYMENTS)
    for deployment_id in [d["id"] for d in deployments.values() if d["appId"] == app["id"]]:
        del deployments[deployment_id]
    del longtail.table(ctx.org, APPS)[app["id"]]
    return {"appId": app["id"]}


# deployments --------------------------------------------------------------------------------------
def create_tvc_deployment(ctx: Context, params: Json) -> Json:
    app = find(ctx.org, APPS, params["appId"], "TVC app")
    qos = longtail.seeded(ctx.store, "qosVersions")
    if params["qosVersion"] not in qos["available"]:
        raise InvalidArgument(
            f"unsupported qosVersion {params['qosVersion']}; available: {', '.join(qos['available'])}"
        )
    if params.get("debugMode") and not app["enableDebugModeDeployments"]:
        raise InvalidArgument(f"TVC app {app['id']} was created without enableDebugModeDeployments")
    for port in ("healthCheckPort", "publicIngressPort"):
        if not 1 <= int(params[port]) <= 65535:  # int64 fields come as JSON numbers or decimal strings
            raise InvalidArgument(f"invalid {port} {params[port]}: expected 1 to 65535")
    replicas = int(params.get("replicas") or 1)
    if replicas < 1:
        raise InvalidArgument(f"invalid replicas {replicas}: expected at least 1")
    deployment_id, manifest_id = ctx.new_id(), ctx.new_id()
    manifest = manifest_of(ctx, app, params, deployment_id)
    user = ctx.principal.user if ctx.principal else None
    ready = {"status": "READY", "after": {"seconds": READY_AFTER_SECONDS}}
    track = longtail.new_track(
        ctx.store, ctx.org, user, ctx.activity_type, params, ctx.now_ms, [{"status": "PENDING"}, ready]
    )
    longtail.table(ctx.org, DEPLOYMENTS)[deployment_id] = {
        "id": deployment_id,
        "appId": app["id"],
        "manifestId": manifest_id,
        "manifest": manifest,
        "params": {k: v for k, v in params.items() if k != "pivotContainerEncryptedPullSecret"},
        "hasPullSecret": bool(params.get("pivotContainerEncryptedPullSecret")),
        "replicas": replicas,
        "approvals": [],
        "shares": [],
        "provisioningKey": keys.private_hex(keys.new_ec_key(ctx.source, "p256")),
        "track": track,
        "startedMs": None,
        "deleted": False,
        "createdMs": ctx.now_ms,
        "updatedMs": ctx.now_ms,
    }
    return {"deploymentId": deployment_id, "manifestId": manifest_id}


def manifest_of(ctx: Context, app: Json, params: Json, deployment_id: str) -> str:
    sets = longtail.table(ctx.org, SETS)
    members = {
        role: {
            "threshold": sets[app[f"{role}SetId"]]["threshold"],
            "members": [
                longtail.table(ctx.org, OPERATORS)[i]["publicKey"] for i in sets[app[f"{role}SetId"]]["operatorIds"]
            ],
        }
        for role in ("manifest", "share")
    }
    manifest = {
        "namespace": {
            "name": app["id"],
            "nonce": int(params.get("nonce", ctx.now_ms // 1000)),
            "quorumKey": app["quorumPublicKey"],
        },
        "pivot": {"hash": params["expectedPivotDigest"], "args": params["pivotArgs"], "path": params["pivotPath"]},
        "manifestSet": members["manifest"],
        "shareSet": members["share"],
        "enclave": {"qosVersion": params["qosVersion"], "debugMode": bool(params.get("debugMode", False))},
        "deploymentId": deployment_id,
    }
    return json.dumps(manifest, separators=(",", ":"), sort_keys=True)


def live_deployment(ctx: Context, deployment_id: str) -> Json:
    found = find(ctx.org, DEPLOYMENTS, deployment_id, "TVC deployment")
    if found["deleted"]:
        raise InvalidArgument(f"TVC deployment {deployment_id} is deleted (restore_tvc_deployment brings it back)")
    return found


def delete_tvc_deployment(ctx: Context, params: Json) -> Json:
    deployment = live_deployment(ctx, params["deploymentId"])
    deployment.update(deleted=True, updatedMs=ctx.now_ms)
    app = longtail.table(ctx.org, APPS)[deployment["appId"]]
    if app["liveDeploymentId"] == deployment["id"]:
        app.update(liveDeploymentId=None, updatedMs=ctx.now_ms)
    return {"deploymentId": deployment["id"]}


def restore_tvc_deployment(ctx: Context, params: Json) -> Json:
    deployment = find(ctx.org, DEPLOYMENTS, params["deploymentId"], "TVC deployment")
    if not deployment["deleted"]:
        raise InvalidArgument(f"TVC deployment {deployment['id']} is not deleted")
    deployment.update(deleted=False, updatedMs=ctx.now_ms)
    return {"deploymentId": deployment["id"]}


def set_tvc_app_live_deployment(ctx: Context, params: Json) -> Json:
    deployment = live_deployment(ctx, params["deploymentId"])
    app = longtail.table(ctx.org, APPS)[deployment["appId"]]
    app.update(liveDeploymentId=deployment["id"], updatedMs=ctx.now_ms)
    return {}


# approvals and quorum key shares ------------------------------------------------------------------
def create_tvc_manifest_approvals(ctx: Context, params: Json) -> Json:
    deployment = by_manifest(ctx, params["manifestId"])
    app = longtail.table(ctx.org, APPS)[deployment["appId"]]
    members = longtail.table(ctx.org, SETS)[app["manifestSetId"]]["operatorIds"]
    made = []
    for approval in params["approvals"]:
        operator = member(ctx, approval["operatorId"], members, "manifest")
        check_signature(operator["publicKey"], approval["signature"], deployment["manifest"], operator["id"])
        made.append(
            {
                "id": ctx.new_id(),
                "operatorId": operator["id"],
                "signature": approval["signature"],
                "createdMs": ctx.now_ms,
            }
        )
    deployment["approvals"].extend(made)
    maybe_start(ctx, deployment)
    return {"approvalIds": [a["id"] for a in made]}


def by_manifest(ctx: Context, manifest_id: str) -> Json:
    for deployment in longtail.table(ctx.org, DEPLOYMENTS).values():
        if deployment["manifestId"] in (manifest_id,) or deployment["id"] == manifest_id:
            return deployment
    raise NotFound(
        f"TVC manifest {manifest_id} not found in organization {ctx.org.organization_id}", error_code="REQUEST_INVALID"
    )


def member(ctx: Context, operator_id: str, members: list[str], role: str) -> Json:
    if operator_id not in members:
        raise InvalidArgument(f"operator {operator_id} is not in the app's {role} set")
    return find(ctx.org, OPERATORS, operator_id, "TVC operator")


def post_tvc_quorum_key_share(ctx: Context, params: Json) -> Json:
    deployment = live_deployment(ctx, params["deploymentId"])
    if params["ephemeralPublicKeyHex"].lower() != provisioning_public_key(deployment):
        raise InvalidArgument(
            "ephemeralPublicKeyHex is not this deployment's provisioning key (see its provisioning details)"
        )
    bundle = params["shareApprovalBundle"]
    app = longtail.table(ctx.org, APPS)[deployment["appId"]]
    operator = member(
        ctx, bundle["operatorId"], longtail.table(ctx.org, SETS)[app["shareSetId"]]["operatorIds"], "share"
    )
    check_signature(operator["publicKey"], bundle["signature"], deployment["manifest"], operator["id"])
    return {"provisioningShareId": add_share(ctx, deployment, operator["id"])}


def add_share(ctx: Context, deployment: Json, operator_ref: str) -> str:
    if any(s["operator"] == operator_ref for s in deployment["shares"]):
        raise InvalidArgument(f"operator {operator_ref} already posted a quorum key share for this deployment")
    share_id = ctx.new_id()
    deployment["shares"].append({"id": share_id, "operator": operator_ref})
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
    record: Json = {"id": ctx.new_id(), "publicKey": keys.uncompressed(quorum_key).hex(), "threshold": threshold}
    record["operators"] = shares
    longtail.table(ctx.org, QUORUM_KEYS)[record["id"]] = record
    return {
        "quorumKeyId": record["id"],
        "quorumPublicKey": record["publicKey"],
        "shareIds": list(record["operators"].values()),
    }


def re_encrypt_tvc_quorum_key_share(ctx: Context, params: Json) -> Json:
    import binascii

    deployment = live_deployment(ctx, params["deploymentId"])
    app = longtail.table(ctx.org, APPS)[deployment["appId"]]
    hosted = [
        q for q in longtail.table(ctx.org, QUORUM_KEYS).values() if q["publicKey"] == params["appQuorumKey"].lower()
    ]
    if app["quorumPublicKey"].lower() != params["appQuorumKey"].lower() or not hosted:
        raise InvalidArgument("appQuorumKey is not this deployment's app quorum key as hosted by create_tvc_quorum_key")
    share_id = hosted[0]["operators"].get(params["operatorEncryptKey"].lower())
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
    if given[0] != deployment["manifest"].encode() or not same_attestation(given[1], details["attestationDocument"]):
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


def provisioning(deployment: Json) -> Json:
    """The provisioning enclave's attestation (simulated, see queries.boot_proofs) and manifest envelope."""
    manifest = deployment["manifest"].encode()
    public = bytes.fromhex(provisioning_public_key(deployment))
    doc = boot_proofs.attestation_doc(
        public, hashlib.sha256(manifest).digest(), "simulator-tvc-provisioning", deployment["createdMs"]
    )
    approvals = [{"operatorId": a["operatorId"], "signature": a["signature"]} for a in deployment["approvals"]]
    envelope = json.dumps(
        {"manifest": deployment["manifest"], "manifestSetApprovals": approvals, "shareSetApprovals": []}
    )
    return {"attestationDocument": base64.b64encode(doc).decode(), "manifestEnvelope": envelope}


def maybe_start(ctx: Context, deployment: Json) -> None:
    """Once approvals and shares meet their thresholds the enclave boots: the status sequence starts."""
    app = longtail.table(ctx.org, APPS)[deployment["appId"]]
    sets = longtail.table(ctx.org, SETS)
    approved = len({a["operatorId"] for a in deployment["approvals"]}) >= sets[app["manifestSetId"]]["threshold"]
    shared = len(deployment["shares"]) >= sets[app["shareSetId"]]["threshold"]
    if approved and shared and deployment["startedMs"] is None:
        deployment["startedMs"] = ctx.now_ms
        deployment["track"]["createdMs"] = ctx.now_ms


# keys and signatures ------------------------------------------------------------------------------
def signing_key(public_hex: str, what: str) -> object:
    from cryptography.hazmat.primitives.asymmetric import ec

    try:
        raw = bytes.fromhex(public_hex)
        if len(raw) == 130:  # QuorumOS P256Pair public: encryption key then signing key
            raw = raw[65:]
        return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        raise InvalidArgument(f"invalid {what}: expected a P-256 public key in hex (33, 65 or 130 bytes)") from None


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


def provisioning_public_key(deployment: Json) -> str:
    return keys.uncompressed(keys.ec_key_from_hex("p256", deployment["provisioningKey"])).hex()
