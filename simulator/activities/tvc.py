"""Turnkey Verifiable Cloud: operators, operator sets, apps, deployments with their QuorumOS-style
manifest, and the live deployment (approvals and quorum key shares: :mod:`simulator.activities.tvc_quorum`).

A deployment starts once its manifest has the manifest set's threshold of approvals and the share
set's threshold of quorum key shares; its replicas then become ready on the simulator clock (or as a
scenario's status script says: READY, PENDING, FAILED). Approvals and posted shares carry operator
signatures, checked for real: ECDSA P-256 over SHA-256 of the manifest bytes, DER or r‖s hex, by the
operator's key (65-byte uncompressed, 33-byte compressed, or QuorumOS's 130-byte encrypt‖sign pair,
whose second half signs). No container runs and no enclave boots: the manifest is JSON, not borsh.
"""

from __future__ import annotations

import json

from simulator.crypto import keys
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context, require_unique
from simulator.model import key_material
from simulator.standins import longtail
from simulator.state import longtail_records as records
from simulator.state.longtail_records import TvcApp, TvcDeployment, TvcOperator, TvcOperatorSet
from simulator.wire import Json

READY_AFTER_SECONDS = 30  # not public; the simulator's choice


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
        key_material.add_to_wallet(ctx, params["walletId"], accounts)
        wallet = ctx.org.wallets[params["walletId"]]
    elif params.get("walletName"):
        wallet = key_material.new_wallet(ctx, params["walletName"], accounts)
    else:
        raise InvalidArgument("give walletId (an existing wallet) or walletName (a new one) for the operator's keys")
    encrypt, sign = (a.address for a in wallet.accounts[-2:])  # UNCOMPRESSED addresses are the 65-byte keys
    operator = new_operator(ctx, params["operatorName"], encrypt + sign)
    return {
        "walletId": wallet.wallet_id,
        "operatorId": operator.id,
        "encryptPublicKey": encrypt,
        "signPublicKey": sign,
    }


def new_operator(ctx: Context, name: str, public_key: str) -> TvcOperator:
    signing_key(public_key, f"operator {name!r}")
    operator = TvcOperator(ctx.new_id(), name, public_key, ctx.now_ms)
    records.tvc_operators(ctx.org.longtail)[operator.id] = operator
    return operator


# the default allocation of features/verifiable-cloud/overview ("Deployments")
DEFAULT_REPLICAS = 3


def operator_set(ctx: Context, set_id: str | None, spec: Json | None, role: str) -> TvcOperatorSet:
    if bool(set_id) == bool(spec):
        raise InvalidArgument(f"give exactly one of {role}SetId and {role}SetParams")
    if set_id:
        return ctx.org.find(records.tvc_operator_sets(ctx.org.longtail), set_id, f"TVC {role} set")
    assert spec is not None
    existing = [
        ctx.org.find(records.tvc_operators(ctx.org.longtail), i, "TVC operator").id
        for i in spec.get("existingOperatorIds", [])
    ]
    threshold = int(spec["threshold"])  # int64 fields come as JSON numbers or decimal strings
    count = len(existing) + len(spec.get("newOperators", []))
    if not 1 <= threshold <= count:
        raise InvalidArgument(f"invalid {role} set threshold {threshold}: expected 1 to {count} operators")
    same = same_set(ctx, spec["name"], threshold, existing, spec.get("newOperators", []))
    if same is not None:
        return same
    members = existing + [new_operator(ctx, o["name"], o["publicKey"]).id for o in spec.get("newOperators", [])]
    found = TvcOperatorSet(ctx.new_id(), spec["name"], members, threshold, ctx.now_ms)
    records.tvc_operator_sets(ctx.org.longtail)[found.id] = found
    return found


def same_set(ctx: Context, name: str, threshold: int, existing: list[str], new: list[Json]) -> TvcOperatorSet | None:
    """The set already defined with this name, threshold and members, which the service reuses
    (features/verifiable-cloud/manifest-sets-and-share-sets): a new operator matches by name and key."""
    operators = records.tvc_operators(ctx.org.longtail)
    wanted = sorted((str(o["name"]), str(o["publicKey"]).lower()) for o in new)
    for found in records.tvc_operator_sets(ctx.org.longtail).values():
        if found.name != name or found.threshold != threshold or len(found.operator_ids) != len(existing) + len(new):
            continue
        others = [i for i in found.operator_ids if i not in existing]
        if (
            len(others) == len(new)
            and sorted((operators[i].name, operators[i].public_key.lower()) for i in others) == wanted
        ):
            return found
    return None


# apps ---------------------------------------------------------------------------------------------
def create_tvc_app(ctx: Context, params: Json) -> Json:
    apps = records.tvc_apps(ctx.org.longtail)
    require_unique([a.name for a in apps.values()], [params["name"]], "TVC app name")
    signing_key(params["quorumPublicKey"], "quorumPublicKey")
    manifest = operator_set(ctx, params.get("manifestSetId"), params.get("manifestSetParams"), "manifest")
    share = operator_set(ctx, params.get("shareSetId"), params.get("shareSetParams"), "share")
    app = TvcApp(
        id=ctx.new_id(),
        name=params["name"],
        quorum_public_key=params["quorumPublicKey"],
        manifest_set_id=manifest.id,
        share_set_id=share.id,
        enable_egress=bool(params.get("enableEgress", False)),
        enable_debug_mode_deployments=bool(params.get("enableDebugModeDeployments", False)),
        live_deployment_id=None,
        created_ms=ctx.now_ms,
        updated_ms=ctx.now_ms,
    )
    records.tvc_apps(ctx.org.longtail)[app.id] = app
    return {
        "appId": app.id,
        "manifestSetId": manifest.id,
        "manifestSetOperatorIds": list(manifest.operator_ids),
        "manifestSetThreshold": str(manifest.threshold),
        "shareSetId": share.id,
        "shareSetOperatorIds": list(share.operator_ids),
        "shareSetThreshold": str(share.threshold),
    }


def delete_tvc_app_and_deployments(ctx: Context, params: Json) -> Json:
    app = ctx.org.find(records.tvc_apps(ctx.org.longtail), params["appId"], "TVC app")
    deployments = records.tvc_deployments(ctx.org.longtail)
    for deployment_id in [d.id for d in deployments.values() if d.app_id == app.id]:
        del deployments[deployment_id]
    del records.tvc_apps(ctx.org.longtail)[app.id]
    return {"appId": app.id}


# deployments --------------------------------------------------------------------------------------
def create_tvc_deployment(ctx: Context, params: Json) -> Json:
    app = ctx.org.find(records.tvc_apps(ctx.org.longtail), params["appId"], "TVC app")
    qos = longtail.seeded(ctx.store, "qosVersions")
    if params["qosVersion"] not in qos["available"]:
        raise InvalidArgument(
            f"unsupported qosVersion {params['qosVersion']}; available: {', '.join(qos['available'])}"
        )
    if params.get("debugMode") and not app.enable_debug_mode_deployments:
        raise InvalidArgument(f"TVC app {app.id} was created without enableDebugModeDeployments")
    for port in ("healthCheckPort", "publicIngressPort"):
        if not 1 <= int(params[port]) <= 65535:  # int64 fields come as JSON numbers or decimal strings
            raise InvalidArgument(f"invalid {port} {params[port]}: expected 1 to 65535")
    replicas = int(params.get("replicas") or DEFAULT_REPLICAS)
    if replicas < 1:
        raise InvalidArgument(f"invalid replicas {replicas}: expected at least 1")
    deployment_id, manifest_id = ctx.new_id(), ctx.new_id()
    manifest = manifest_of(ctx, app, params, deployment_id)
    user = ctx.principal.user if ctx.principal else None
    ready = {"status": "READY", "after": {"seconds": READY_AFTER_SECONDS}}
    track = longtail.new_track(
        ctx.store, ctx.org, user, ctx.activity_type, params, ctx.now_ms, [{"status": "PENDING"}, ready]
    )
    records.tvc_deployments(ctx.org.longtail)[deployment_id] = TvcDeployment(
        id=deployment_id,
        app_id=app.id,
        manifest_id=manifest_id,
        manifest=manifest,
        params={k: v for k, v in params.items() if k != "pivotContainerEncryptedPullSecret"},
        has_pull_secret=bool(params.get("pivotContainerEncryptedPullSecret")),
        replicas=replicas,
        approvals=[],
        shares=[],
        provisioning_key=keys.private_hex(keys.new_ec_key(ctx.source, "p256")),
        track=track,
        started_ms=None,
        deleted=False,
        created_ms=ctx.now_ms,
        updated_ms=ctx.now_ms,
    )
    return {"deploymentId": deployment_id, "manifestId": manifest_id}


def manifest_of(ctx: Context, app: TvcApp, params: Json, deployment_id: str) -> str:
    sets, operators = records.tvc_operator_sets(ctx.org.longtail), records.tvc_operators(ctx.org.longtail)
    members = {
        role: {
            "threshold": sets[set_id].threshold,
            "members": [operators[i].public_key for i in sets[set_id].operator_ids],
        }
        for role, set_id in (("manifest", app.manifest_set_id), ("share", app.share_set_id))
    }
    manifest = {
        "namespace": {
            "name": app.id,
            "nonce": int(params.get("nonce", ctx.now_ms // 1000)),
            "quorumKey": app.quorum_public_key,
        },
        "pivot": {"hash": params["expectedPivotDigest"], "args": params["pivotArgs"], "path": params["pivotPath"]},
        "manifestSet": members["manifest"],
        "shareSet": members["share"],
        "enclave": {"qosVersion": params["qosVersion"], "debugMode": bool(params.get("debugMode", False))},
        "deploymentId": deployment_id,
    }
    return json.dumps(manifest, separators=(",", ":"), sort_keys=True)


def find_deployment(ctx: Context, deployment_id: str) -> TvcDeployment:
    return ctx.org.find(records.tvc_deployments(ctx.org.longtail), deployment_id, "TVC deployment")


def live_deployment(ctx: Context, deployment_id: str) -> TvcDeployment:
    found = find_deployment(ctx, deployment_id)
    if found.deleted:
        raise InvalidArgument(f"TVC deployment {deployment_id} is deleted (restore_tvc_deployment brings it back)")
    return found


def delete_tvc_deployment(ctx: Context, params: Json) -> Json:
    deployment = live_deployment(ctx, params["deploymentId"])
    deployment.deleted, deployment.updated_ms = True, ctx.now_ms
    app = records.tvc_apps(ctx.org.longtail)[deployment.app_id]
    if app.live_deployment_id == deployment.id:
        app.live_deployment_id, app.updated_ms = None, ctx.now_ms
    return {"deploymentId": deployment.id}


def restore_tvc_deployment(ctx: Context, params: Json) -> Json:
    deployment = find_deployment(ctx, params["deploymentId"])
    if not deployment.deleted:
        raise InvalidArgument(f"TVC deployment {deployment.id} is not deleted")
    deployment.deleted, deployment.updated_ms = False, ctx.now_ms
    return {"deploymentId": deployment.id}


def set_tvc_app_live_deployment(ctx: Context, params: Json) -> Json:
    deployment = live_deployment(ctx, params["deploymentId"])
    app = records.tvc_apps(ctx.org.longtail)[deployment.app_id]
    app.live_deployment_id, app.updated_ms = deployment.id, ctx.now_ms
    return {}


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
