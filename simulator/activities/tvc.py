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
from simulator.handling import key_material, provider_standin
from simulator.handling.context import Context, require_unique
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
    return org.find(provider_standin.table(org, name), item_id, what)


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
        "operatorId": operator["id"],
        "encryptPublicKey": encrypt,
        "signPublicKey": sign,
    }


def new_operator(ctx: Context, name: str, public_key: str) -> Json:
    signing_key(public_key, f"operator {name!r}")
    operator: Json = {"id": ctx.new_id(), "name": name, "publicKey": public_key, "createdMs": ctx.now_ms}
    provider_standin.table(ctx.org, OPERATORS)[operator["id"]] = operator
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
    provider_standin.table(ctx.org, SETS)[found["id"]] = found
    return found


# apps ---------------------------------------------------------------------------------------------
def create_tvc_app(ctx: Context, params: Json) -> Json:
    require_unique(
        [a["name"] for a in provider_standin.table(ctx.org, APPS).values()], [params["name"]], "TVC app name"
    )
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
    provider_standin.table(ctx.org, APPS)[app["id"]] = app
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
    deployments = provider_standin.table(ctx.org, DEPLOYMENTS)
    for deployment_id in [d["id"] for d in deployments.values() if d["appId"] == app["id"]]:
        del deployments[deployment_id]
    del provider_standin.table(ctx.org, APPS)[app["id"]]
    return {"appId": app["id"]}


# deployments --------------------------------------------------------------------------------------
def create_tvc_deployment(ctx: Context, params: Json) -> Json:
    app = find(ctx.org, APPS, params["appId"], "TVC app")
    qos = provider_standin.seeded(ctx.store, "qosVersions")
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
    track = provider_standin.new_track(
        ctx.store, ctx.org, user, ctx.activity_type, params, ctx.now_ms, [{"status": "PENDING"}, ready]
    )
    provider_standin.table(ctx.org, DEPLOYMENTS)[deployment_id] = {
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
    sets = provider_standin.table(ctx.org, SETS)
    members = {
        role: {
            "threshold": sets[app[f"{role}SetId"]]["threshold"],
            "members": [
                provider_standin.table(ctx.org, OPERATORS)[i]["publicKey"]
                for i in sets[app[f"{role}SetId"]]["operatorIds"]
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
    app = provider_standin.table(ctx.org, APPS)[deployment["appId"]]
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
    app = provider_standin.table(ctx.org, APPS)[deployment["appId"]]
    app.update(liveDeploymentId=deployment["id"], updatedMs=ctx.now_ms)
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
