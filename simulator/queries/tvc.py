"""Verifiable Cloud reads: apps and deployments in the public shapes, live status (replicas ready
once the enclave has booted and its sequence says READY), provisioning details, debug logs, QOS
versions, and image validation against the scenario's simulated registry."""

from __future__ import annotations

import re

from simulator.activities import tvc, tvc_quorum
from simulator.errors import InvalidArgument
from simulator.handling import provider_standin
from simulator.queries.context import QueryContext
from simulator.state.records import timestamp
from simulator.wire import Json

DIGEST_REF = re.compile(r"@(sha256:[0-9a-f]{64})$")


def get_tvc_app(q: QueryContext, body: Json) -> Json:
    return {"tvcApp": app_view(q, q.find(provider_standin.table(q.org, tvc.APPS), body["tvcAppId"], "TVC app"))}


def list_tvc_apps(q: QueryContext, body: Json) -> Json:
    return {"tvcApps": [app_view(q, a) for a in provider_standin.table(q.org, tvc.APPS).values()]}


def get_tvc_deployment(q: QueryContext, body: Json) -> Json:
    found = q.find(provider_standin.table(q.org, tvc.DEPLOYMENTS), body["deploymentId"], "TVC deployment")
    return {"tvcDeployment": deployment_view(q, found)}


def list_tvc_app_deployments(q: QueryContext, body: Json) -> Json:
    app = q.find(provider_standin.table(q.org, tvc.APPS), body["appId"], "TVC app")
    found = [d for d in provider_standin.table(q.org, tvc.DEPLOYMENTS).values() if d["appId"] == app["id"]]
    return {"tvcDeployments": [deployment_view(q, d) for d in found]}


def get_app_status(q: QueryContext, body: Json) -> Json:
    app = q.find(provider_standin.table(q.org, tvc.APPS), body["appId"], "TVC app")
    statuses = []
    for deployment in provider_standin.table(q.org, tvc.DEPLOYMENTS).values():
        if deployment["appId"] != app["id"] or deployment["deleted"]:
            continue
        ready, updated = 0, deployment["updatedMs"]
        if deployment["startedMs"] is not None:
            step = provider_standin.track_of(deployment).reached(q.now_ms, poll=True)
            ready = deployment["replicas"] if step["status"] == "READY" else 0
            updated = max(updated, step["reachedMs"])
        statuses.append(
            {
                "deploymentId": deployment["id"],
                "readyReplicas": ready,
                "desiredReplicas": deployment["replicas"],
                "lastUpdatedTime": timestamp(updated),
            }
        )
    return {
        "appStatus": {
            "appId": app["id"],
            "deployments": statuses,
            "targetedDeploymentId": app["liveDeploymentId"] or "",
        }
    }


def get_tvc_deployment_debug_logs(q: QueryContext, body: Json) -> Json:
    deployment = q.find(provider_standin.table(q.org, tvc.DEPLOYMENTS), body["deploymentId"], "TVC deployment")
    if not deployment["params"].get("debugMode"):
        raise InvalidArgument(f"TVC deployment {deployment['id']} is not running in debug mode")
    if deployment["startedMs"] is None:
        return {"entries": []}
    lines = seeded_image(q, deployment["params"]["pivotContainerImageUrl"]).get("logs", [])
    if body.get("tailLines"):
        lines = lines[-body["tailLines"] :]
    entries = [
        {
            "line": {"content": line, "ts": timestamp(deployment["startedMs"] + i)},
            "replicaLabel": f"replica {r}/{deployment['replicas']}",
        }
        for r in range(1, deployment["replicas"] + 1)
        for i, line in enumerate(lines)
    ]
    return {
        "entries": sorted(
            entries, key=lambda e: int(e["line"]["ts"]["seconds"]) * 10**9 + int(e["line"]["ts"]["nanos"])
        )
    }


def get_tvc_deployment_provisioning_details(q: QueryContext, body: Json) -> Json:
    deployment = q.find(provider_standin.table(q.org, tvc.DEPLOYMENTS), body["deploymentId"], "TVC deployment")
    return tvc_quorum.provisioning(deployment)


def get_tvc_qos_versions(q: QueryContext, body: Json) -> Json:
    versions = provider_standin.seeded(q.store, "qosVersions")
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
    return next((dict(i) for i in provider_standin.seeded(q.store, "tvcImages") if i["url"] == url), {})


# views --------------------------------------------------------------------------------------------
def operator_view(q: QueryContext, operator: Json) -> Json:
    stamp = timestamp(operator["createdMs"])
    return {
        "id": operator["id"],
        "name": operator["name"],
        "publicKey": operator["publicKey"],
        "createdAt": stamp,
        "updatedAt": stamp,
    }


def set_view(q: QueryContext, set_id: str) -> Json:
    found = provider_standin.table(q.org, tvc.SETS)[set_id]
    operators = provider_standin.table(q.org, tvc.OPERATORS)
    stamp = timestamp(found["createdMs"])
    return {
        "id": found["id"],
        "name": found["name"],
        "organizationId": q.org.organization_id,
        "operators": [operator_view(q, operators[i]) for i in found["operatorIds"] if i in operators],
        "threshold": str(found["threshold"]),
        "createdAt": stamp,
        "updatedAt": stamp,
    }


def app_view(q: QueryContext, app: Json) -> Json:
    view = {
        "id": app["id"],
        "organizationId": q.org.organization_id,
        "name": app["name"],
        "quorumPublicKey": app["quorumPublicKey"],
        "manifestSet": set_view(q, app["manifestSetId"]),
        "shareSet": set_view(q, app["shareSetId"]),
        "enableEgress": app["enableEgress"],
        "createdAt": timestamp(app["createdMs"]),
        "updatedAt": timestamp(app["updatedMs"]),
        "publicDomain": f"app-{app['id']}.turnkey.cloud",
        "enableDebugModeDeployments": app["enableDebugModeDeployments"],
    }
    if app["liveDeploymentId"]:
        view["liveDeploymentId"] = app["liveDeploymentId"]
    return view


def deployment_view(q: QueryContext, deployment: Json) -> Json:
    app = provider_standin.table(q.org, tvc.APPS)[deployment["appId"]]
    params, operators = deployment["params"], provider_standin.table(q.org, tvc.OPERATORS)
    created, updated = timestamp(deployment["createdMs"]), timestamp(deployment["updatedMs"])
    approvals = [
        {
            "id": a["id"],
            "manifestId": deployment["manifestId"],
            "operator": operator_view(q, operators[a["operatorId"]]),
            "approval": a["signature"],
            "createdAt": timestamp(a["createdMs"]),
            "updatedAt": timestamp(a["createdMs"]),
        }
        for a in deployment["approvals"]
        if a["operatorId"] in operators
    ]
    container = {
        "containerUrl": params["pivotContainerImageUrl"],
        "path": params["pivotPath"],
        "args": list(params["pivotArgs"]),
        "hasPullSecret": deployment["hasPullSecret"],
        "healthCheckType": params["healthCheckType"],
        "healthCheckPort": str(int(params["healthCheckPort"])),
        "publicIngressPort": str(int(params["publicIngressPort"])),
    }
    return {
        "id": deployment["id"],
        "organizationId": q.org.organization_id,
        "appId": app["id"],
        "manifestSet": set_view(q, app["manifestSetId"]),
        "shareSet": set_view(q, app["shareSetId"]),
        "manifest": {
            "id": deployment["manifestId"],
            "manifest": deployment["manifest"],
            "createdAt": created,
            "updatedAt": created,
        },
        "manifestApprovals": approvals,
        "qosVersion": params["qosVersion"],
        "pivotContainer": container,
        "createdAt": created,
        "updatedAt": updated,
        "delete": deployment["deleted"],
        "debugMode": bool(params.get("debugMode", False)),
    }
