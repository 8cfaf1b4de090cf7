"""Verifiable Cloud through the HTTP surface: operators, apps, deployments gated on real operator
signatures and quorum key shares, replicas ready on the clock, delete and restore, debug logs,
image validation, and the simulated attestations (boot proofs) checked with cbor2 and python-ecdsa."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import cbor2
import ecdsa
import pytest
from conftest import ok, result_of
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from support import assert_error

from simulator.crypto import keys, service_keys
from simulator.standins import longtail

IMAGE = "ghcr.io/acme/app@sha256:" + "ab" * 32


def submit(client: Any, op: str, params: dict[str, Any], result_key: str, kind: str | None = None) -> dict[str, Any]:
    return result_of(client.submit(op, kind or f"ACTIVITY_TYPE_{op.upper()}", params), result_key)


def pub(key: ec.EllipticCurvePrivateKey) -> str:
    return keys.uncompressed(key).hex()


@pytest.fixture
def operator_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def new_app(client: Any, operator_key: ec.EllipticCurvePrivateKey, debug: bool = False) -> dict[str, Any]:
    params = {
        "name": "app",
        "quorumPublicKey": pub(ec.generate_private_key(ec.SECP256R1())),
        "manifestSetParams": {
            "name": "m",
            "newOperators": [{"name": "alice", "publicKey": pub(operator_key)}],
            "threshold": "1",
        },
        "shareSetParams": {
            "name": "s",
            "newOperators": [{"name": "bob", "publicKey": pub(operator_key)}],
            "threshold": "1",
        },
        "enableDebugModeDeployments": debug,
    }
    return submit(client, "create_tvc_app", params, "createTvcAppResult")


def new_deployment(client: Any, app_id: str, **extra: Any) -> dict[str, Any]:
    params = {
        "appId": app_id,
        "qosVersion": "v0.6.0",
        "pivotContainerImageUrl": IMAGE,
        "pivotPath": "/app",
        "pivotArgs": ["--port", "3000"],
        "expectedPivotDigest": "ab" * 32,
        "healthCheckType": "TVC_HEALTH_CHECK_TYPE_HTTP",
        "healthCheckPort": "3001",
        "publicIngressPort": "3000",
        "replicas": "2",
        **extra,
    }
    return submit(client, "create_tvc_deployment", params, "createTvcDeploymentResult")


def sign(key: ec.EllipticCurvePrivateKey, manifest: str) -> str:
    return key.sign(manifest.encode(), ec.ECDSA(hashes.SHA256())).hex()


def status(client: Any, app_id: str) -> dict[str, Any]:
    return ok(client.query("get_app_status", appId=app_id))["appStatus"]  # type: ignore[no-any-return]


def test_a_deployment_starts_after_approval_and_share(client, simulator, operator_key):
    app = new_app(client, operator_key)
    made = new_deployment(client, app["appId"])
    deployment = ok(client.query("get_tvc_deployment", deploymentId=made["deploymentId"]))["tvcDeployment"]
    manifest = deployment["manifest"]["manifest"]
    assert deployment["manifest"]["id"] == made["manifestId"] and deployment["delete"] is False
    bad = {
        "manifestId": made["manifestId"],
        "approvals": [{"operatorId": app["manifestSetOperatorIds"][0], "signature": "00" * 64}],
    }
    assert_error(
        client.submit("create_tvc_manifest_approvals", "ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS", bad),
        400,
        3,
        "invalid signature",
    )
    approval = {"operatorId": app["manifestSetOperatorIds"][0], "signature": sign(operator_key, manifest)}
    submit(
        client,
        "create_tvc_manifest_approvals",
        {"manifestId": made["manifestId"], "approvals": [approval]},
        "createTvcManifestApprovalsResult",
    )
    simulator.clock.advance(60)
    assert status(client, app["appId"])["deployments"][0]["readyReplicas"] == 0  # no quorum key share yet
    details = ok(client.query("get_tvc_deployment_provisioning_details", deploymentId=made["deploymentId"]))
    ephemeral = check_attestation(details["attestationDocument"], manifest.encode())
    share = {
        "operatorId": app["shareSetOperatorIds"][0],
        "reEncryptedShareHex": "00",
        "signature": sign(operator_key, manifest),
    }
    params = {"deploymentId": made["deploymentId"], "ephemeralPublicKeyHex": ephemeral, "shareApprovalBundle": share}
    submit(client, "post_tvc_quorum_key_share", params, "postTvcQuorumKeyShareResult")
    assert status(client, app["appId"])["deployments"][0]["readyReplicas"] == 0
    simulator.clock.advance(31)
    submit(
        client,
        "set_tvc_app_live_deployment",
        {"deploymentId": made["deploymentId"]},
        "updateTvcAppLiveDeploymentResult",
        "ACTIVITY_TYPE_UPDATE_TVC_APP_LIVE_DEPLOYMENT",
    )
    live = status(client, app["appId"])
    assert live["targetedDeploymentId"] == made["deploymentId"] and live["deployments"][0]["readyReplicas"] == 2


def check_attestation(doc_b64: str, signed_data: bytes) -> str:
    """The COSE_Sign1 verifies with the published enclave key (python-ecdsa); returns its public_key."""
    protected, _, payload, signature = cbor2.loads(base64.b64decode(doc_b64))
    to_sign = cbor2.dumps(["Signature1", protected, b"", payload])
    key = ecdsa.VerifyingKey.from_string(bytes.fromhex(service_keys.public_hex("enclave")), curve=ecdsa.NIST256p)
    assert key.verify(signature, to_sign, hashfunc=hashlib.sha256)
    doc = cbor2.loads(payload)
    assert doc["user_data"] == hashlib.sha256(signed_data).digest() and doc["certificate"] == b""
    return doc["public_key"].hex()  # type: ignore[no-any-return]


def test_delete_restore_and_the_app_lifecycle(client, operator_key):
    app = new_app(client, operator_key)
    made = new_deployment(client, app["appId"])
    submit(client, "delete_tvc_deployment", {"deploymentId": made["deploymentId"]}, "deleteTvcDeploymentResult")
    assert ok(client.query("get_tvc_deployment", deploymentId=made["deploymentId"]))["tvcDeployment"]["delete"] is True
    live = client.submit(
        "set_tvc_app_live_deployment",
        "ACTIVITY_TYPE_UPDATE_TVC_APP_LIVE_DEPLOYMENT",
        {"deploymentId": made["deploymentId"]},
    )
    assert_error(live, 400, 3, "is deleted")
    submit(client, "restore_tvc_deployment", {"deploymentId": made["deploymentId"]}, "restoreTvcDeploymentResult")
    assert len(ok(client.query("list_tvc_app_deployments", appId=app["appId"]))["tvcDeployments"]) == 1
    assert ok(client.query("list_tvc_apps"))["tvcApps"][0]["publicDomain"] == f"app-{app['appId']}.turnkey.cloud"
    submit(client, "delete_tvc_app_and_deployments", {"appId": app["appId"]}, "deleteTvcAppAndDeploymentsResult")
    assert_error(client.query("get_tvc_app", tvcAppId=app["appId"]), 404, 5, "TVC app")
    assert_error(client.query("get_tvc_deployment", deploymentId=made["deploymentId"]), 404, 5)


def test_refusals_and_debug_logs(client, simulator, operator_key):
    app = new_app(client, operator_key)
    assert_error(
        client.submit(
            "create_tvc_deployment",
            "ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT",
            {
                "appId": app["appId"],
                "qosVersion": "v9",
                "pivotContainerImageUrl": IMAGE,
                "pivotPath": "/a",
                "pivotArgs": [],
                "expectedPivotDigest": "00",
                "healthCheckType": "TVC_HEALTH_CHECK_TYPE_GRPC",
                "healthCheckPort": "1",
                "publicIngressPort": "2",
            },
        ),
        400,
        3,
        "unsupported qosVersion",
    )
    again = client.submit(
        "create_tvc_app",
        "ACTIVITY_TYPE_CREATE_TVC_APP",
        {
            "name": "app",
            "quorumPublicKey": pub(operator_key),
            "manifestSetId": app["manifestSetId"],
            "shareSetId": app["shareSetId"],
        },
    )
    assert_error(again, 400, 3, "TVC app name must be unique")
    neither = client.submit(
        "create_tvc_app", "ACTIVITY_TYPE_CREATE_TVC_APP", {"name": "b", "quorumPublicKey": pub(operator_key)}
    )
    assert_error(neither, 400, 3, "exactly one of manifestSetId")
    made = new_deployment(client, app["appId"])
    assert_error(
        client.query("get_tvc_deployment_debug_logs", deploymentId=made["deploymentId"]),
        400,
        3,
        "not running in debug mode",
    )
    with simulator.simulator.lock:
        longtail.apply_section(
            simulator.simulator.store, {"tvcImages": [{"url": IMAGE, "logs": ["booted", "listening"]}]}
        )
    debug_app = submit(
        client,
        "create_tvc_app",
        {
            "name": "dbg",
            "quorumPublicKey": pub(operator_key),
            "manifestSetId": app["manifestSetId"],
            "shareSetId": app["shareSetId"],
            "enableDebugModeDeployments": True,
        },
        "createTvcAppResult",
    )
    debug = new_deployment(client, debug_app["appId"], debugMode=True, replicas="1")
    manifest = ok(client.query("get_tvc_deployment", deploymentId=debug["deploymentId"]))["tvcDeployment"]["manifest"][
        "manifest"
    ]
    operator = app["manifestSetOperatorIds"][0]
    submit(
        client,
        "create_tvc_manifest_approvals",
        {
            "manifestId": debug["manifestId"],
            "approvals": [{"operatorId": operator, "signature": sign(operator_key, manifest)}],
        },
        "createTvcManifestApprovalsResult",
    )
    details = ok(client.query("get_tvc_deployment_provisioning_details", deploymentId=debug["deploymentId"]))
    share = {
        "operatorId": app["shareSetOperatorIds"][0],
        "reEncryptedShareHex": "00",
        "signature": sign(operator_key, manifest),
    }
    ephemeral = check_attestation(details["attestationDocument"], manifest.encode())
    submit(
        client,
        "post_tvc_quorum_key_share",
        {"deploymentId": debug["deploymentId"], "ephemeralPublicKeyHex": ephemeral, "shareApprovalBundle": share},
        "postTvcQuorumKeyShareResult",
    )
    logs = ok(client.query("get_tvc_deployment_debug_logs", deploymentId=debug["deploymentId"]))["entries"]
    assert [e["line"]["content"] for e in logs] == ["booted", "listening"] and logs[0]["replicaLabel"] == "replica 1/1"


def test_operators_quorum_keys_and_hosted_shares(client, simulator):
    made = submit(
        client,
        "create_tvc_operator",
        {"walletName": "ops", "path": "m/44'/0'/0'", "operatorName": "ops"},
        "createTvcOperatorResult",
    )
    assert made["encryptPublicKey"].startswith("04") and made["signPublicKey"].startswith("04")
    hosted = submit(
        client,
        "create_tvc_quorum_key",
        {"threshold": "1", "operatorEncryptKeys": [made["encryptPublicKey"]]},
        "createTvcQuorumKeyResult",
    )
    assert len(hosted["shareIds"]) == 1
    app = submit(
        client,
        "create_tvc_app",
        {
            "name": "hosted",
            "quorumPublicKey": hosted["quorumPublicKey"],
            "manifestSetParams": {"name": "m", "existingOperatorIds": [made["operatorId"]], "threshold": "1"},
            "shareSetParams": {"name": "s", "existingOperatorIds": [made["operatorId"]], "threshold": "1"},
        },
        "createTvcAppResult",
    )
    deployment = new_deployment(client, app["appId"])
    found = ok(client.query("get_tvc_deployment", deploymentId=deployment["deploymentId"]))["tvcDeployment"]
    details = ok(client.query("get_tvc_deployment_provisioning_details", deploymentId=deployment["deploymentId"]))
    params = {
        "attestationDocB64": details["attestationDocument"],
        "manifestB64": base64.b64encode(found["manifest"]["manifest"].encode()).decode(),
        "operatorEncryptKey": made["encryptPublicKey"],
        "operatorSignKey": made["signPublicKey"],
        "deploymentId": deployment["deploymentId"],
        "appQuorumKey": hosted["quorumPublicKey"],
    }
    submit(client, "re_encrypt_tvc_quorum_key_share", params, "reEncryptTvcQuorumKeyShareResult")
    again = client.submit(
        "re_encrypt_tvc_quorum_key_share",
        "ACTIVITY_TYPE_RE_ENCRYPT_TVC_QUORUM_KEY_SHARE",
        {**params, "manifestB64": "e30="},
    )
    assert_error(again, 400, 3, "not this deployment's")


def test_image_validation_and_qos_versions(client, simulator):
    assert (
        ok(client.query("validate_tvc_image", pivotContainerImageUrl=IMAGE))["resolvedImageDigest"]
        == "sha256:" + "ab" * 32
    )
    refused = assert_error(
        client.query("validate_tvc_image", pivotContainerImageUrl="ghcr.io/acme/app:1"), 400, 3, "pulls no images"
    )
    assert refused["turnkeyErrorCode"] == "TVC_IMAGE_VALIDATION_FAILED"
    with simulator.simulator.lock:
        longtail.apply_section(
            simulator.simulator.store,
            {
                "tvcImages": [{"url": "x:1", "error": "manifest unknown"}],
                "qosVersions": {"available": ["v1"], "latest": "v1"},
            },
        )
    assert_error(client.query("validate_tvc_image", pivotContainerImageUrl="x:1"), 400, 3, "manifest unknown")
    assert ok(client.query("get_tvc_qos_versions")) == {"availableVersions": ["v1"], "latestVersion": "v1"}


def test_boot_proofs_for_app_proofs(client, turnkey_client):
    import turnkey_sdk_types as T

    assert_error(client.query("get_latest_boot_proof", appName="signer"), 404, 5, "no boot proof yet")
    made = ok(
        client.submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "p", "accounts": []}, generateAppProofs=True
        )
    )
    key = made["activity"]["appProofs"][0]["publicKey"]
    proof = ok(client.query("get_boot_proof", ephemeralKey=key))["bootProof"]
    assert (
        proof["ephemeralPublicKeyHex"] == key
        and check_attestation(proof["awsAttestationDocB64"], base64.b64decode(proof["qosManifestB64"])) == key
    )
    latest = turnkey_client.get_latest_boot_proof(T.GetLatestBootProofBody(appName="signer"))
    assert latest.bootProof.ephemeralPublicKeyHex == key
    assert_error(client.query("get_boot_proof", ephemeralKey="04" + "00" * 64), 404, 5)
    assert_error(client.query("get_latest_boot_proof", appName="umbrella"), 404, 5, "unknown enclave app")
