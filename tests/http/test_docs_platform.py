"""The documentation sweep's platform pages (docs/conformance/platform.yaml): the activities and API
overview, sub-organizations, the organizations page, webhooks, Verifiable Cloud, secrets and
delegated access, each statement a test shows here through the HTTP surface, the official Python
client or @turnkey/crypto, where no older test already shows it."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from bundle_checks import SIGNER, independent_open, verify_envelope
from conftest import ETH_ACCOUNT, ok, result_of
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from eth_account import Account
from eth_account.messages import encode_defunct
from lifecycle_helpers import KEYS, ROOT_USER, api_user, sub_org
from support import assert_error

from simulator.crypto import bundles, keys
from simulator.pytest_plugin import http_receiver
from simulator.testing import ApiKeyStamper, SimulatorClient

JS = Path(__file__).resolve().parents[1] / "js"
NEEDS_NODE = pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules").is_dir()), reason="node or tests/js/node_modules missing"
)
WALLET = ("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET")
POLICY = ("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3")
QUORUM = ("update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM")


def wallet(client: SimulatorClient, name: str, **extra: Any) -> dict[str, Any]:
    return ok(client.submit(*WALLET, {"walletName": name, "accounts": [ETH_ACCOUNT]}, **extra))["activity"]


# --- api-reference/queries/list-activities, activities/overview ---------------------------------------
def test_list_activities_is_newest_first_ten_a_page_and_pages_with_after_and_before(client):
    made = [wallet(client, f"w{i}")["id"] for i in range(12)]
    newest_first = made[::-1]
    assert [a["id"] for a in ok(client.query("list_activities"))["activities"]] == newest_first[:10]

    def page(**options: str) -> list[str]:
        body = ok(client.query("list_activities", paginationOptions={"limit": "3", **options}))
        return [a["id"] for a in body["activities"]]

    # after: the next page in list order (older); before: the page just ahead of the cursor (newer)
    assert page(after=newest_first[2]) == newest_first[3:6]
    assert page(before=newest_first[6]) == newest_first[3:6]
    walked, cursor = [], None
    while True:
        got = page(**({"after": cursor} if cursor else {}))
        if not got:
            break
        walked += got
        cursor = got[-1]
    assert walked == newest_first
    unknown = "00000000-0000-4000-8000-0000000000d1"
    assert_error(client.query("list_activities", paginationOptions={"after": unknown}), 400, 3, "cursor")


def test_the_same_body_is_the_same_activity_and_a_new_timestamp_a_new_one(client):
    address = result_of(
        client.submit(*WALLET, {"walletName": "signer", "accounts": [ETH_ACCOUNT]}), "createWalletResult"
    )["addresses"][0]
    params = {
        "signWith": address,
        "payload": "hello",
        "encoding": "PAYLOAD_ENCODING_TEXT_UTF8",
        "hashFunction": "HASH_FUNCTION_SHA256",
    }
    stamp = str(int(time.time() * 1000))
    kind = ("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2")
    first = ok(client.submit(*kind, params, timestampMs=stamp))["activity"]
    assert ok(client.submit(*kind, params, timestampMs=stamp))["activity"]["id"] == first["id"]
    later = ok(client.submit(*kind, params, timestampMs=str(int(stamp) + 1)))["activity"]
    assert later["id"] != first["id"] and later["fingerprint"] != first["fingerprint"]
    assert ok(client.query("get_activity", activityId=first["id"]))["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


# --- features/sub-organizations, create/delete sub-organization, get_sub_org_ids ---------------------------
def test_a_sub_organization_has_its_root_users_threshold_and_wallet(client):
    end_user, service = ApiKeyStamper(KEYS["carol"]), ApiKeyStamper(KEYS["dave"])
    roots = [
        {
            "userName": name,
            "apiKeys": [{"apiKeyName": name, "publicKey": s.public_key, "curveType": "API_KEY_CURVE_P256"}],
            "authenticators": [],
            "oauthProviders": [],
        }
        for name, s in (("end user", end_user), ("service", service))
    ]
    params = {
        "subOrganizationName": "customer",
        "rootUsers": roots,
        "rootQuorumThreshold": 2,
        "wallet": {"walletName": "main", "accounts": [ETH_ACCOUNT]},
    }
    made = result_of(
        client.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", params),
        "createSubOrganizationResultV7",
    )
    org_id = made["subOrganizationId"]
    assert made["wallet"]["addresses"][0].startswith("0x")
    data = ok(client.query("get_organization", organizationId=org_id))["organizationData"]
    assert data["name"] == "customer"
    assert data["rootQuorum"] == {"threshold": 2, "userIds": made["rootUserIds"]}
    assert [w["walletName"] for w in data["wallets"]] == ["main"]
    assert org_id in ok(client.query("list_suborgs"))["organizationIds"]
    # a threshold of two: one root user's request waits for the other
    as_end_user = SimulatorClient(client.base_url, end_user, org_id)
    assert wallet(as_end_user, "second")["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"


def walk(client: SimulatorClient, op: str, key: str, id_of: Any, **body: Any) -> list[str]:
    """Every item of a list query, page by page (limit 2), each page's last id as the next after cursor."""
    walked: list[str] = []
    options: dict[str, str] = {"limit": "2"}
    while True:
        page = [id_of(item) for item in ok(client.query(op, paginationOptions=options, **body))[key]]
        assert len(page) <= 2
        if not page:
            return walked
        walked += page
        options = {"limit": "2", "after": page[-1]}


def test_list_suborgs_and_list_secrets_page_with_limit_and_after(client):
    made = [sub_org(client, f"customer {i}")[0] for i in range(5)]
    every = [str(i) for i in ok(client.query("list_suborgs"))["organizationIds"]]
    assert sorted(every) == sorted(made)
    assert walk(client, "list_suborgs", "organizationIds", str) == every
    secrets = [imported(client, f"s{i}", b"x") for i in range(3)]
    listed = [s["secretId"] for s in ok(client.query("list_secrets"))["secrets"]]
    assert sorted(listed) == sorted(secrets)
    assert walk(client, "list_secrets", "secrets", lambda s: s["secretId"]) == listed


def test_delete_without_export_skips_the_export_rule(client, simulator):
    org_id, _, as_root = sub_org(client, "leaving", key=KEYS["dave"])
    assert as_root is not None
    wallet(as_root, "unexported")
    delete = ("delete_sub_organization", "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION")
    assert_error(as_root.submit(*delete, {}), 400, 3, "has not been exported")
    done = result_of(as_root.submit(*delete, {"deleteWithoutExport": True}), "deleteSubOrganizationResult")
    assert done == {"subOrganizationUuid": org_id}
    assert org_id not in ok(client.query("list_suborgs"))["organizationIds"]


def eip191_stamp(private_hex: str, public_hex: str, body: bytes) -> str:
    """An X-Stamp whose signature eth-account makes (personal_sign over the body), DER-encoded."""
    signed = Account.sign_message(encode_defunct(primitive=body), private_key=bytes.fromhex(private_hex))
    stamp = {
        "publicKey": public_hex,
        "signature": encode_dss_signature(signed.r, signed.s).hex(),
        "scheme": "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191",
    }
    return base64.urlsafe_b64encode(json.dumps(stamp).encode()).decode().rstrip("=")


def test_an_eip191_stamp_by_a_secp256k1_key_is_accepted(client, unstamped):
    private = "7b" * 32
    public = ApiKeyStamper(private, "secp256k1").public_key
    key = {"apiKeyName": "wallet key", "publicKey": public, "curveType": "API_KEY_CURVE_SECP256K1"}
    ok(client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {"userId": ROOT_USER, "apiKeys": [key]}))
    body = json.dumps({"organizationId": client.organization_id}).encode()
    answer = unstamped.post("/public/v1/query/whoami", body, headers={"X-Stamp": eip191_stamp(private, public, body)})
    assert ok(answer)["userId"] == ROOT_USER
    other = json.dumps({"organizationId": client.organization_id, "x": 1}).encode()
    forged = unstamped.post("/public/v1/query/whoami", other, headers={"X-Stamp": eip191_stamp(private, public, body)})
    assert_error(forged, 401, 16)


# --- features/organizations ------------------------------------------------------------------------
def test_organizations_share_no_resources(client):
    first_id, _, first = sub_org(client, "first", key=KEYS["carol"])
    second_id, _, second = sub_org(client, "second", key=KEYS["dave"])
    assert first is not None and second is not None
    wallet(first, "mine")
    assert [w["walletName"] for w in ok(first.query("list_wallets"))["wallets"]] == ["mine"]
    assert ok(second.query("list_wallets"))["wallets"] == []
    refused = second.query("list_wallets", organizationId=first_id)
    assert refused.status in (401, 403, 404) and refused.body["turnkeyErrorCode"]
    assert ok(first.query("list_wallets", organizationId=first_id))["wallets"]
    assert second_id != first_id


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_each_vote_records_its_outcome_a_rejection_rejected(simulator, simulator_user):
    root = simulator_user("Root User")
    waiting = ok(root.submit(*WALLET, {"walletName": "w", "accounts": []}))["activity"]
    assert waiting["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    rejected = ok(
        simulator_user("Carol").submit(
            "reject_activity", "ACTIVITY_TYPE_REJECT_ACTIVITY", {"fingerprint": waiting["fingerprint"]}
        )
    )["activity"]
    assert rejected["status"] == "ACTIVITY_STATUS_REJECTED"
    evaluations = ok(root.query("get_policy_evaluations", activityId=waiting["id"]))["policyEvaluations"]
    outcomes = [[e["outcome"] for e in vote["policyEvaluations"]] for vote in evaluations]
    assert outcomes == [["OUTCOME_REQUIRES_CONSENSUS"], ["OUTCOME_REJECTED"]]


# --- features/webhooks/overview, verify-signatures, get-webhook-jwks -------------------------------------
def test_the_jwks_needs_no_stamp_and_is_cached_a_day(unstamped):
    answer = unstamped.post("/public/v1/discovery/webhooks/jwks", b"", method="GET")
    assert answer.status == 200
    assert answer.headers["cache-control"] == "public, max-age=86400, s-maxage=86400, stale-if-error=604800"
    (key,) = answer.body["keys"]
    assert {k: key[k] for k in ("kty", "crv", "alg", "use")} == {
        "kty": "OKP",
        "crv": "Ed25519",
        "alg": "EdDSA",
        "use": "sig",
    }
    assert (key["turnkey_signature_algorithm"], key["turnkey_signature_version"]) == ("ed25519", "v1")


@NEEDS_NODE
def test_a_delivery_verifies_with_turnkey_crypto_and_carries_the_contract_headers(client, unstamped, webhook_receiver):
    sent_at = int(time.time() * 1000)
    wallet(client, "heard")
    request = webhook_receiver.wait_for(1)[0]
    headers = {k.lower(): v for k, v in request.headers.items()}
    assert headers["content-type"].startswith("application/json") and request.method == "POST"
    assert (headers["x-turnkey-signature-algorithm"], headers["x-turnkey-signature-version"]) == ("ed25519", "v1")
    assert abs(int(headers["x-turnkey-timestamp"]) - sent_at) < 60_000  # milliseconds
    jwks = unstamped.post("/public/v1/discovery/webhooks/jwks", b"", method="GET").body
    script = """
    const { verifyTurnkeyWebhookSignature } = require("@turnkey/crypto");
    const [headers, body, jwks] = JSON.parse(process.argv[1]);
    const verificationKeys = jwks.keys.map((k) => ({ keyId: k.kid, algorithm: "ed25519",
      publicKey: Buffer.from(k.x, "base64url").toString("hex") }));
    const check = (b) => verifyTurnkeyWebhookSignature({ headers, body: b, verificationKeys,
      maxTimestampAgeMs: 5 * 60 * 1000 });
    console.log(JSON.stringify([check(body), check(body.replace("heard", "herd"))]));
    """
    given = json.dumps([headers, request.get_data(as_text=True), jwks])
    run = subprocess.run(["node", "-e", script, given], cwd=JS, capture_output=True, text=True, timeout=60)
    genuine, tampered = json.loads(run.stdout)
    assert genuine["ok"] is True and genuine["eventId"] == headers["x-turnkey-event-id"], run.stderr
    assert tampered == {"ok": False, "reason": "invalid_signature"}


@pytest.mark.parametrize("status", [302, 429])
def test_a_redirect_or_429_is_a_final_failure_and_no_redirect_is_followed(client, simulator, status):
    server = http_receiver()
    server.start()
    try:
        elsewhere = server.url_for("/elsewhere")
        server.expect_request("/hooks").respond_with_data("", status=status, headers={"Location": elsewhere})
        server.expect_request("/elsewhere").respond_with_data("ok")
        params = {"url": server.url_for("/hooks"), "name": "feed", "subscriptions": [{"eventType": "ACTIVITY_UPDATES"}]}
        ok(client.submit("create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", params))
        hooks = simulator.simulator.webhooks
        failed = hooks.wait_for(lambda d: d["state"] == "failed", timeout=10)
        simulator.clock.advance(3600)  # a retry would be due long before this
        time.sleep(0.2)
        assert [a["status"] for a in failed["attempts"]] == [status]
        assert [r.path for r, _ in server.log] == ["/hooks"]
    finally:
        server.clear()
        server.stop()


def test_a_sub_organizations_endpoint_hears_only_its_own_activities(client, simulator):
    server = http_receiver()
    server.start()
    try:
        server.expect_request("/sub").respond_with_data("ok")
        org_id, _, as_root = sub_org(client, "tenant", key=KEYS["dave"])
        assert as_root is not None
        subscriptions = [{"eventType": "ACTIVITY_UPDATES"}]
        params = {"url": server.url_for("/sub"), "name": "tenant feed", "subscriptions": subscriptions}
        ok(as_root.submit("create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", params))
        parents = wallet(client, "parent's")
        own = wallet(as_root, "tenant's")
        hooks = simulator.simulator.webhooks
        hooks.wait_for(
            lambda d: d["url"] == server.url_for("/sub") and d["state"] == "delivered" and own["id"] in d["body"]
        )
        heard = [json.loads(r.get_data())["id"] for r, _ in server.log]
        assert own["id"] in heard and parents["id"] not in heard
        assert {r.headers["X-Turnkey-Organization-Id"] for r, _ in server.log} == {org_id}
    finally:
        server.clear()
        server.stop()


def test_event_types_go_inside_subscriptions_not_at_the_top(client):
    params = {"url": "http://127.0.0.1:9/hooks", "name": "feed", "eventTypes": ["ACTIVITY_UPDATES"]}
    refused = client.submit("create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", params)
    assert_error(refused, 400, 3)
    assert ok(client.query("list_webhook_endpoints"))["webhookEndpoints"] == []


# --- features/verifiable-cloud ----------------------------------------------------------------------
IMAGE = "ghcr.io/acme/app@sha256:" + "ab" * 32


def pub(key: ec.EllipticCurvePrivateKey) -> str:
    return keys.uncompressed(key).hex()


def operators(*members: ec.EllipticCurvePrivateKey, threshold: int, name: str = "set") -> dict[str, Any]:
    return {
        "name": name,
        "newOperators": [{"name": f"op{i}", "publicKey": pub(k)} for i, k in enumerate(members)],
        "threshold": str(threshold),
    }


def tvc_app(client: SimulatorClient, name: str, manifest: dict[str, Any], share: dict[str, Any], **extra: Any) -> Any:
    params = {
        "name": name,
        "quorumPublicKey": pub(ec.generate_private_key(ec.SECP256R1())),
        "manifestSetParams": manifest,
        "shareSetParams": share,
        **extra,
    }
    return client.submit("create_tvc_app", "ACTIVITY_TYPE_CREATE_TVC_APP", params)


def deploy(client: SimulatorClient, app_id: str, qos: str = "v2026.2.6", **extra: Any) -> Any:
    params = {
        "appId": app_id,
        "qosVersion": qos,
        "pivotContainerImageUrl": IMAGE,
        "pivotPath": "/app",
        "pivotArgs": [],
        "expectedPivotDigest": "ab" * 32,
        "healthCheckType": "TVC_HEALTH_CHECK_TYPE_HTTP",
        "healthCheckPort": "3001",
        "publicIngressPort": "3000",
        **extra,
    }
    return client.submit("create_tvc_deployment", "ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT", params)


def approve(client: SimulatorClient, deployment: dict[str, Any], operator_id: str, key: Any) -> None:
    manifest = ok(client.query("get_tvc_deployment", deploymentId=deployment["deploymentId"]))["tvcDeployment"]
    signature = key.sign(manifest["manifest"]["manifest"].encode(), ec.ECDSA(hashes.SHA256())).hex()
    params = {
        "manifestId": deployment["manifestId"],
        "approvals": [{"operatorId": operator_id, "signature": signature}],
    }
    ok(client.submit("create_tvc_manifest_approvals", "ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS", params))


def test_a_set_threshold_above_its_members_is_refused(client):
    one = ec.generate_private_key(ec.SECP256R1())
    refused = tvc_app(client, "a", operators(one, threshold=2), operators(one, threshold=1))
    assert_error(refused, 400, 3, "manifest set threshold 2")
    assert ok(client.query("list_tvc_apps"))["tvcApps"] == []


def test_a_share_set_of_one_is_accepted(client):
    one = ec.generate_private_key(ec.SECP256R1())
    made = result_of(
        tvc_app(client, "a", operators(one, threshold=1), operators(one, threshold=1)), "createTvcAppResult"
    )
    assert made["shareSetThreshold"] == "1"


def test_an_app_without_a_share_set_is_refused(client):
    """Ledgered (tvc-app-without-share-set): the quickstart's template sends none; the API reference requires one."""
    one = ec.generate_private_key(ec.SECP256R1())
    params = {
        "name": "TVC Hello World",
        "quorumPublicKey": pub(ec.generate_private_key(ec.SECP256R1())),
        "enableEgress": False,
        "manifestSetParams": {**operators(one, threshold=1), "existingOperatorIds": []},
    }
    refused = client.submit("create_tvc_app", "ACTIVITY_TYPE_CREATE_TVC_APP", params)
    assert_error(refused, 400, 3, "exactly one of shareSetId and shareSetParams")
    assert ok(client.query("list_tvc_apps"))["tvcApps"] == []


def test_the_same_set_defined_again_is_reused(client):
    alice, bob = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    manifest, share = (
        operators(alice, bob, threshold=2, name="reviewers"),
        operators(alice, bob, threshold=2, name="keys"),
    )
    first = result_of(tvc_app(client, "one", manifest, share), "createTvcAppResult")
    second = result_of(tvc_app(client, "two", manifest, share), "createTvcAppResult")
    assert (second["manifestSetId"], second["shareSetId"]) == (first["manifestSetId"], first["shareSetId"])
    assert second["manifestSetOperatorIds"] == first["manifestSetOperatorIds"]
    other = result_of(tvc_app(client, "three", {**manifest, "threshold": "1"}, share), "createTvcAppResult")
    assert other["manifestSetId"] != first["manifestSetId"]


def test_the_first_approved_deployment_goes_live_and_later_ones_wait(client):
    alice, bob = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    app = result_of(
        tvc_app(client, "oracle", operators(alice, bob, threshold=2), operators(alice, bob, threshold=2)),
        "createTvcAppResult",
    )
    first = result_of(deploy(client, app["appId"]), "createTvcDeploymentResult")
    a, b = app["manifestSetOperatorIds"]
    approve(client, first, a, alice)

    def live() -> str:
        return str(ok(client.query("get_app_status", appId=app["appId"]))["appStatus"]["targetedDeploymentId"])

    assert live() == ""  # below the threshold nothing is live
    approve(client, first, b, bob)
    assert live() == first["deploymentId"]
    upgrade = result_of(deploy(client, app["appId"]), "createTvcDeploymentResult")
    approve(client, upgrade, a, alice)
    approve(client, upgrade, b, bob)
    assert live() == first["deploymentId"]  # one live deployment: switching is set_tvc_app_live_deployment's
    kind = "ACTIVITY_TYPE_UPDATE_TVC_APP_LIVE_DEPLOYMENT"
    ok(client.submit("set_tvc_app_live_deployment", kind, {"deploymentId": upgrade["deploymentId"]}))
    assert live() == upgrade["deploymentId"]


def test_the_quickstart_qos_version_is_offered_and_debug_needs_a_debug_app(client):
    versions = ok(client.query("get_tvc_qos_versions"))
    assert "v2026.2.6" in versions["availableVersions"] and versions["latestVersion"] == "v2026.2.6"
    one = ec.generate_private_key(ec.SECP256R1())
    app = result_of(
        tvc_app(client, "prod", operators(one, threshold=1), operators(one, threshold=1)), "createTvcAppResult"
    )
    assert result_of(deploy(client, app["appId"]), "createTvcDeploymentResult")["deploymentId"]
    assert_error(deploy(client, app["appId"], debugMode=True), 400, 3, "enableDebugModeDeployments")
    dev = tvc_app(
        client, "dev", operators(one, threshold=1), operators(one, threshold=1), enableDebugModeDeployments=True
    )
    assert result_of(
        deploy(client, result_of(dev, "createTvcAppResult")["appId"], debugMode=True), "createTvcDeploymentResult"
    )


def test_a_deployment_defaults_to_three_replicas_a_timestamp_nonce_and_no_egress(client, simulator):
    one = ec.generate_private_key(ec.SECP256R1())
    app = result_of(
        tvc_app(client, "ha", operators(one, threshold=1), operators(one, threshold=1)), "createTvcAppResult"
    )
    assert ok(client.query("get_tvc_app", tvcAppId=app["appId"]))["tvcApp"]["enableEgress"] is False
    made = result_of(deploy(client, app["appId"]), "createTvcDeploymentResult")
    status = ok(client.query("get_app_status", appId=app["appId"]))["appStatus"]["deployments"][0]
    assert status["desiredReplicas"] == 3
    found = ok(client.query("get_tvc_deployment", deploymentId=made["deploymentId"]))["tvcDeployment"]
    nonce = json.loads(found["manifest"]["manifest"])["namespace"]["nonce"]
    assert abs(nonce - simulator.clock.now_ms() // 1000) < 60  # the current Unix time in seconds


@NEEDS_NODE
def test_an_app_proof_verifies_with_turnkey_crypto_and_its_boot_proof_names_its_key(client):
    made = ok(client.submit(*WALLET, {"walletName": "proven", "accounts": [ETH_ACCOUNT]}, generateAppProofs=True))
    (proof,) = made["activity"]["appProofs"]
    assert ok(client.query("list_app_proofs", activityId=made["activity"]["id"]))["appProofs"] == [proof]
    boot = ok(client.query("get_boot_proof", ephemeralKey=proof["publicKey"]))["bootProof"]
    assert boot["ephemeralPublicKeyHex"] == proof["publicKey"]
    script = """
    const { verifyAppProofSignature } = require("@turnkey/crypto");
    const proof = JSON.parse(process.argv[1]);
    const outcome = (p) => { try { verifyAppProofSignature(p); return "valid"; } catch (e) { return e.message; } };
    console.log(JSON.stringify([outcome(proof), outcome({ ...proof, proofPayload: proof.proofPayload + " " })]));
    """
    run = subprocess.run(["node", "-e", script, json.dumps(proof)], cwd=JS, capture_output=True, text=True, timeout=60)
    genuine, altered = json.loads(run.stdout)
    assert genuine == "valid", run.stderr
    assert altered == "Signature verification failed"


# --- features/secrets -----------------------------------------------------------------------------
SUITE = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1"


def imported(client: SimulatorClient, name: str, plaintext: bytes, properties: list[Any] | None = None) -> str:
    params = {"encryptionSuite": SUITE, "numSecrets": 1}
    message = result_of(
        client.submit("init_import_secrets", "ACTIVITY_TYPE_INIT_IMPORT_SECRETS", params), "initImportSecretsResult"
    )["enclaveTargetMessages"][0]
    target = verify_envelope(message)["targetPublic"]
    payload = bundles.seal_to_target(plaintext, message, SIGNER, ec.generate_private_key(ec.SECP256R1()))
    item = {"secretPayload": payload, "targetPublicKey": target, "encryptionSuite": SUITE, "name": name}
    if properties:
        item["staticProperties"] = properties
    made = client.submit("import_secrets", "ACTIVITY_TYPE_IMPORT_SECRETS", {"secrets": [item]})
    return str(result_of(made, "importSecretsResult")["secretIds"][0])


def test_list_secrets_shows_metadata_and_never_the_secret(client):
    before = int(time.time() * 1000)
    secret_id = imported(client, "card", b"4242")
    (listed,) = ok(client.query("list_secrets"))["secrets"]
    assert listed["secretId"] == secret_id and listed["name"] == "card" and listed["staticProperties"] == []
    assert abs(int(listed["createdAtUnixMs"]) - before) < 60_000
    assert "4242" not in json.dumps(listed)


def test_a_batch_export_with_one_refused_secret_exports_nothing(client):
    secret_id = imported(client, "card", b"4242")
    target = keys.uncompressed(ec.generate_private_key(ec.SECP256R1())).hex()
    missing = "00000000-0000-4000-8000-0000000000c9"
    items = [{"secretId": i, "targetPublicKey": target, "encryptionSuite": SUITE} for i in (secret_id, missing)]
    refused = client.submit("export_secrets", "ACTIVITY_TYPE_EXPORT_SECRETS", {"secrets": items})
    assert_error(refused, 404, 5, missing)
    exports = ok(client.query("list_activities", filterByType=["ACTIVITY_TYPE_EXPORT_SECRETS"]))["activities"]
    assert all(a["status"] != "ACTIVITY_STATUS_COMPLETED" for a in exports)


def test_an_export_a_policy_puts_to_consensus_waits_for_the_approval(client):
    secret_id = imported(client, "api key", b"sk_live_1")
    bob_id, bob = api_user(client, "Bob")
    params = {
        "policyName": "exports need two",
        "effect": "EFFECT_ALLOW",
        "consensus": "approvers.count() >= 2",
        "condition": "activity.type == 'ACTIVITY_TYPE_EXPORT_SECRETS'",
        "notes": "",
    }
    ok(client.submit(*POLICY, params))
    receiver = ec.generate_private_key(ec.SECP256R1())
    item = {"secretId": secret_id, "targetPublicKey": keys.uncompressed(receiver).hex(), "encryptionSuite": SUITE}
    waiting = ok(bob.submit("export_secrets", "ACTIVITY_TYPE_EXPORT_SECRETS", {"secrets": [item]}))["activity"]
    assert waiting["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED" and waiting["votes"][0]["userId"] == bob_id
    approved = ok(
        client.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": waiting["fingerprint"]})
    )["activity"]
    assert approved["status"] == "ACTIVITY_STATUS_COMPLETED"
    (payload,) = approved["result"]["exportSecretsResult"]["secretPayloads"]
    sealed = verify_envelope(payload)
    assert independent_open(bytes.fromhex(sealed["encappedPublic"]), bytes.fromhex(sealed["ciphertext"]), receiver) == (
        b"sk_live_1"
    )


# --- features/policies/delegated-access ---------------------------------------------------------------
def sign(client: SimulatorClient, address: str) -> Any:
    params = {
        "signWith": address,
        "payload": "order 42",
        "encoding": "PAYLOAD_ENCODING_TEXT_UTF8",
        "hashFunction": "HASH_FUNCTION_SHA256",
    }
    return client.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", params)


def allow_signing(client: SimulatorClient, user_id: str, name: str = "delegated signing") -> Any:
    params = {
        "policyName": name,
        "effect": "EFFECT_ALLOW",
        "consensus": f"approvers.any(user, user.id == '{user_id}')",
        "condition": "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
        "notes": "",
    }
    return client.submit(*POLICY, params)


def test_server_side_setup_the_delegated_user_leaves_the_root_quorum_and_keeps_its_policy(client):
    end_user, delegated = ApiKeyStamper(KEYS["carol"]), ApiKeyStamper(KEYS["dave"])
    roots = [
        {
            "userName": name,
            "apiKeys": [{"apiKeyName": name, "publicKey": s.public_key, "curveType": "API_KEY_CURVE_P256"}],
            "authenticators": [],
            "oauthProviders": [],
        }
        for name, s in (("end user", end_user), ("Delegated Account", delegated))
    ]
    params = {
        "subOrganizationName": "da",
        "rootUsers": roots,
        "rootQuorumThreshold": 1,
        "wallet": {"walletName": "Default ETH Wallet", "accounts": [ETH_ACCOUNT]},
    }
    made = result_of(
        client.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", params),
        "createSubOrganizationResultV7",
    )
    org_id, (end_user_id, delegated_id) = made["subOrganizationId"], made["rootUserIds"]
    address = made["wallet"]["addresses"][0]
    as_delegated = SimulatorClient(client.base_url, delegated, org_id)
    # while in the root quorum, the delegated user acts alone: a policy, then the quorum update
    assert ok(allow_signing(as_delegated, delegated_id))["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    ok(as_delegated.submit(*QUORUM, {"threshold": 1, "userIds": [end_user_id]}))
    quorum = ok(client.query("get_organization", organizationId=org_id))["organizationData"]["rootQuorum"]
    assert quorum == {"threshold": 1, "userIds": [end_user_id]}
    # out of it, only what its policy grants: signing, but no more policy changes
    assert ok(sign(as_delegated, address))["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert_error(allow_signing(as_delegated, delegated_id), 403, 7)
    policies = ok(as_delegated.query("list_policies"))["policies"]
    assert [p["policyName"] for p in policies] == ["delegated signing"]


def test_client_side_setup_the_api_only_user_is_not_root_and_can_do_nothing_until_a_policy(client):
    org_id, _, as_end_user = sub_org(client, "embedded", key=KEYS["carol"])
    assert as_end_user is not None
    address = result_of(
        as_end_user.submit(*WALLET, {"walletName": "w", "accounts": [ETH_ACCOUNT]}), "createWalletResult"
    )["addresses"][0]
    delegated_id, as_delegated = api_user(as_end_user, "Dave")
    quorum = ok(as_end_user.query("get_organization"))["organizationData"]["rootQuorum"]
    assert delegated_id not in quorum["userIds"]
    assert_error(sign(as_delegated, address), 403, 7)
    ok(allow_signing(as_end_user, delegated_id))
    assert ok(sign(as_delegated, address))["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert org_id == as_delegated.organization_id
    # not root, yet a policy may let it manage policies too
    assert_error(allow_signing(as_delegated, delegated_id), 403, 7)
    grant = {
        "policyName": "delegated policy management",
        "effect": "EFFECT_ALLOW",
        "consensus": f"approvers.any(user, user.id == '{delegated_id}')",
        "condition": "activity.type == 'ACTIVITY_TYPE_CREATE_POLICY_V3'",
        "notes": "",
    }
    ok(as_end_user.submit(*POLICY, grant))
    made = ok(allow_signing(as_delegated, delegated_id, "set by the delegated user"))["activity"]
    assert made["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_an_export_policy_reads_the_secrets_static_properties(client):
    card = imported(client, "card", b"4242", [{"key": "kind", "value": "creditCard"}])
    other_card = imported(client, "other card", b"5555", [{"key": "kind", "value": "creditCard"}])
    password = imported(client, "password", b"hunter2", [{"key": "kind", "value": "password"}])
    bob_id, bob = api_user(client, "Bob")
    params = {
        "policyName": "only bob exports cards",
        "effect": "EFFECT_ALLOW",
        "consensus": f"approvers.any(u, u.id == '{bob_id}')",
        "condition": "secret.static_properties['kind'] == 'creditCard' && activity.type == 'ACTIVITY_TYPE_EXPORT_SECRETS'",
        "notes": "",
    }
    ok(client.submit(*POLICY, params))

    target = keys.uncompressed(ec.generate_private_key(ec.SECP256R1())).hex()

    def export(*ids: str) -> Any:
        items = [{"secretId": i, "targetPublicKey": target, "encryptionSuite": SUITE} for i in ids]
        return bob.submit("export_secrets", "ACTIVITY_TYPE_EXPORT_SECRETS", {"secrets": items})

    exported = result_of(export(card), "exportSecretsResult")["secretPayloads"]
    assert len(exported) == 1
    assert_error(export(password), 403, 7)
    # ledgered (secrets-policy-keyword): a batch is one evaluation here, with no `secret`: it fails closed
    assert_error(export(card, other_card), 403, 7)
