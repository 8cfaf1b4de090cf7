"""Verifiable Cloud reads: apps and deployments in the public shapes, live status (replicas ready
once the enclave has booted and its sequence says READY), provisioning details, debug logs, QOS
versions, and image validation against the scenario's simulated registry."""

from __future__ import annotations

import re

from simulator.errors import InvalidArgument
from simulator.handler_support.query_context import QueryContext
from simulator.model import tvc
from simulator.standins import longtail
from simulator.state import longtail_records as records
from simulator.state.longtail_records import TvcApp, TvcDeployment, TvcOperator
from simulator.state.records import timestamp
from simulator.wire import Json

DIGEST_REF = re.compile(r"@(sha256:[0-9a-f]{64})$")


def find_app(q: QueryContext, app_id: str) -> TvcApp:
    return q.find(records.tvc_apps(q.org.longtail), app_id, "TVC app")


def find_deployment(q: QueryContext, deployment_id: str) -> TvcDeployment:
    return q.find(records.tvc_deployments(q.org.longtail), deployment_id, "TVC deployment")


def get_tvc_app(q: QueryContext, body: Json) -> Json:
    return {"tvcApp": app_view(q, find_app(q, body["tvcAppId"]))}


def list_tvc_apps(q: QueryContext, body: Json) -> Json:
    return {"tvcApps": [app_view(q, a) for a in records.tvc_apps(q.org.longtail).values()]}


def get_tvc_deployment(q: QueryContext, body: Json) -> Json:
    return {"tvcDeployment": deployment_view(q, find_deployment(q, body["deploymentId"]))}


def list_tvc_app_deployments(q: QueryContext, body: Json) -> Json:
    app = find_app(q, body["appId"])
    found = [d for d in records.tvc_deployments(q.org.longtail).values() if d.app_id == app.id]
    return {"tvcDeployments": [deployment_view(q, d) for d in found]}


def get_app_status(q: QueryContext, body: Json) -> Json:
    app = find_app(q, body["appId"])
    statuses = []
    for deployment in records.tvc_deployments(q.org.longtail).values():
        if deployment.app_id != app.id or deployment.deleted:
            continue
        ready, updated = 0, deployment.updated_ms
        if deployment.started_ms is not None:
            step = deployment.track.reached(q.now_ms, poll=True)
            ready = deployment.replicas if step["status"] == "READY" else 0
            updated = max(updated, step["reachedMs"])
        statuses.append(
            {
                "deploymentId": deployment.id,
                "readyReplicas": ready,
                "desiredReplicas": deployment.replicas,
                "lastUpdatedTime": timestamp(updated),
            }
        )
    return {
        "appStatus": {
            "appId": app.id,
            "deployments": statuses,
            "targetedDeploymentId": app.live_deployment_id or "",
        }
    }


def get_tvc_deployment_debug_logs(q: QueryContext, body: Json) -> Json:
    deployment = find_deployment(q, body["deploymentId"])
    if not deployment.params.get("debugMode"):
        raise InvalidArgument(f"TVC deployment {deployment.id} is not running in debug mode")
    started_ms = deployment.started_ms
    if started_ms is None:
        return {"entries": []}
    lines = seeded_image(q, deployment.params["pivotContainerImageUrl"]).get("logs", [])
    if body.get("tailLines"):
        lines = lines[-body["tailLines"] :]
    entries = [
        {
            "line": {"content": line, "ts": timestamp(started_ms + i)},
            "replicaLabel": f"replica {r}/{deployment.replicas}",
        }
        for r in range(1, deployment.replicas + 1)
        for i, line in enumerate(lines)
    ]
    return {
        "entries": sorted(
            entries, key=lambda e: int(e["line"]["ts"]["seconds"]) * 10**9 + int(e["line"]["ts"]["nanos"])
        )
    }


def get_tvc_deployment_provisioning_details(q: QueryContext, body: Json) -> Json:
    return tvc.provisioning(find_deployment(q, body["deploymentId"]))


def get_tvc_qos_versions(q: QueryContext, body: Json) -> Json:
    versions = longtail.seeded(q.store, "qosVersions")
    return {"availableVersions": list(versions["available"]), "latestVersion": versions["latest"]}


def validate_tvc_image(q: QueryContext, body: Json) -> Json:
    """A seeded image resolves to its digest (or fails as seeded); an unseeded reference pinned by
    digest resolves to that digest; anything else cannot be pulled by a simulator and is refused."""
    url = body["pivotContainerImageUrl"]
    image = seeded_image(q, url)
    if image.get("error"):
        raise InvalidArgument(
            f"image {url} failed validation: {image['error']}", error_code="TVC_IMAGE_VALIDATION_FAILED"
        )
    if image.get("digest"):
        return {"resolvedImageDigest": image["digest"]}
    pinned = DIGEST_REF.search(url)
    if pinned:
        return {"resolvedImageDigest": pinned.group(1)}
    raise InvalidArgument(
        f"image {url} cannot be resolved: the simulator pulls no images (pin it by @sha256 digest, or seed it "
        "under the scenario's longtail.tvcImages)",
        error_code="TVC_IMAGE_VALIDATION_FAILED",
    )


def seeded_image(q: QueryContext, url: str) -> Json:
    return next((dict(i) for i in longtail.seeded(q.store, "tvcImages") if i["url"] == url), {})


# views --------------------------------------------------------------------------------------------
def operator_view(q: QueryContext, operator: TvcOperator) -> Json:
    stamp = timestamp(operator.created_ms)
    return {
        "id": operator.id,
        "name": operator.name,
        "publicKey": operator.public_key,
        "createdAt": stamp,
        "updatedAt": stamp,
    }


def set_view(q: QueryContext, set_id: str) -> Json:
    found = records.tvc_operator_sets(q.org.longtail)[set_id]
    operators = records.tvc_operators(q.org.longtail)
    stamp = timestamp(found.created_ms)
    return {
        "id": found.id,
        "name": found.name,
        "organizationId": q.org.organization_id,
        "operators": [operator_view(q, operators[i]) for i in found.operator_ids if i in operators],
        "threshold": str(found.threshold),
        "createdAt": stamp,
        "updatedAt": stamp,
    }


def app_view(q: QueryContext, app: TvcApp) -> Json:
    view = {
        "id": app.id,
        "organizationId": q.org.organization_id,
        "name": app.name,
        "quorumPublicKey": app.quorum_public_key,
        "manifestSet": set_view(q, app.manifest_set_id),
        "shareSet": set_view(q, app.share_set_id),
        "enableEgress": app.enable_egress,
        "createdAt": timestamp(app.created_ms),
        "updatedAt": timestamp(app.updated_ms),
        "publicDomain": f"app-{app.id}.turnkey.cloud",
        "enableDebugModeDeployments": app.enable_debug_mode_deployments,
    }
    if app.live_deployment_id:
        view["liveDeploymentId"] = app.live_deployment_id
    return view


def deployment_view(q: QueryContext, deployment: TvcDeployment) -> Json:
    app = records.tvc_apps(q.org.longtail)[deployment.app_id]
    params, operators = deployment.params, records.tvc_operators(q.org.longtail)
    created, updated = timestamp(deployment.created_ms), timestamp(deployment.updated_ms)
    approvals = [
        {
            "id": a["id"],
            "manifestId": deployment.manifest_id,
            "operator": operator_view(q, operators[a["operatorId"]]),
            "approval": a["signature"],
            "createdAt": timestamp(a["createdMs"]),
            "updatedAt": timestamp(a["createdMs"]),
        }
        for a in deployment.approvals
        if a["operatorId"] in operators
    ]
    container = {
        "containerUrl": params["pivotContainerImageUrl"],
        "path": params["pivotPath"],
        "args": list(params["pivotArgs"]),
        "hasPullSecret": deployment.has_pull_secret,
        "healthCheckType": params["healthCheckType"],
        "healthCheckPort": str(int(params["healthCheckPort"])),
        "publicIngressPort": str(int(params["publicIngressPort"])),
    }
    return {
        "id": deployment.id,
        "organizationId": q.org.organization_id,
        "appId": app.id,
        "manifestSet": set_view(q, app.manifest_set_id),
        "shareSet": set_view(q, app.share_set_id),
        "manifest": {
            "id": deployment.manifest_id,
            "manifest": deployment.manifest,
            "createdAt": created,
            "updatedAt": created,
        },
        "manifestApprovals": approvals,
        "qosVersion": params["qosVersion"],
        "pivotContainer": container,
        "createdAt": created,
        "updatedAt": updated,
        "delete": deployment.deleted,
        "debugMode": bool(params.get("debugMode", False)),
    }
