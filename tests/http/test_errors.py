"""Every error class answers in the one shape, with the service's status and gRPC code."""

from __future__ import annotations

import json
import time

import pytest
from conftest import DEFAULTS, ETH_ACCOUNT, new_user, ok
from support import assert_error

from simulator.testing import ApiKeyStamper, SimulatorClient


def test_validation_lists_every_problem_with_path_expected_and_actual(client):
    params = {
        "walletName": 7,
        "accounts": [
            {"curve": "CURVE_X", "pathFormat": "PATH_FORMAT_BIP32", "addressFormat": "ADDRESS_FORMAT_ETHEREUM"}
        ],
        "colour": "red",
    }
    body = assert_error(
        client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params),
        400,
        3,
        "invalid request body (4 problems",
    )
    violations = {v["field"]: v for v in body["details"][1]["fieldViolations"]}
    assert set(violations) == {
        "$.parameters.walletName",
        "$.parameters.accounts[0].curve",
        "$.parameters.accounts[0].path",
        "$.parameters.colour",
    }
    assert violations["$.parameters.walletName"]["expected"] == "string"
    assert violations["$.parameters.walletName"]["actual"] == "number"
    assert violations["$.parameters.accounts[0].curve"]["actual"] == "CURVE_X"
    assert "CURVE_SECP256K1" in violations["$.parameters.accounts[0].curve"]["expected"]
    assert violations["$.parameters.accounts[0].path"]["validator"] == "required"
    unknown = violations["$.parameters.colour"]
    assert "unknown field 'colour'" in unknown["description"] and "walletName" in unknown["expected"]


def test_unknown_fields_are_accepted_when_switched_off():
    from simulator import Config, SimulatorServer

    with SimulatorServer(config=Config(allow_unknown_fields=True)) as server:
        client = SimulatorClient(server.url, ApiKeyStamper(DEFAULTS["apiPrivateKey"]), DEFAULTS["organizationId"])
        response = client.submit(
            "create_wallet",
            "ACTIVITY_TYPE_CREATE_WALLET",
            {"walletName": "w", "accounts": [], "colour": "red"},
            futureField=1,
        )
        assert ok(response)["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


@pytest.mark.parametrize(
    "raw, content_type, phrase",
    [
        (b"{not json", "application/json", "malformed JSON at line 1 column 2"),
        (b"[1, 2]", "application/json", "expected a JSON object, got list"),
        (b"{not json", "text/plain", "(Content-Type 'text/plain'): malformed JSON"),
        (b"\xff\xfe", "application/json", "not UTF-8"),
        (b"[" * 100 + b"]" * 100, "application/json", "nested more than 64 levels deep"),
    ],
)
def test_unreadable_bodies_are_refused(client, raw, content_type, phrase):
    assert_error(client.post("/public/v1/query/whoami", raw, {"Content-Type": content_type}), 400, 3, phrase)


@pytest.mark.parametrize("content_type", [None, "text/plain;charset=UTF-8", "application/x-www-form-urlencoded"])
def test_a_json_body_is_accepted_whatever_its_content_type(client, content_type):
    """@turnkey/http 2.x and 3.x post JSON without a Content-Type header; the real service accepts it."""
    raw = json.dumps({"organizationId": DEFAULTS["organizationId"]}).encode()
    headers = {"Content-Type": content_type or ""}
    assert ok(client.post("/public/v1/query/whoami", raw, headers))["organizationId"] == DEFAULTS["organizationId"]


def test_a_deeply_nested_body_and_a_huge_timestamp_are_400s(client):
    deep: dict = {}
    for _ in range(500):
        deep = {"a": deep}
    response = client.submit(
        "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [], "x": deep}
    )
    assert_error(response, 400, 3, "nested more than 64 levels deep")
    huge = client.submit(
        "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}, timestampMs="9" * 5000
    )
    assert_error(huge, 400, 3, "timestampMs")


def test_wrong_method_is_refused(client):
    assert_error(client.post("/public/v1/query/whoami", b"", method="GET"), 405, 12, "method GET is not allowed")


@pytest.mark.parametrize(
    "path, closest",
    [
        ("/public/v1/submit/create_walet", "create_wallet"),
        ("/public/v1/query/whoamii", "whoami"),
        ("/public/v1/querry/whoami", "/public/v1/query/whoami"),
    ],
)
def test_unknown_paths_name_the_closest_operation(client, path, closest):
    body = assert_error(client.post(path, b"{}"), 404, 5, "did you mean", closest)
    assert any(closest in c for c in body["details"][1]["closest"])


def test_over_size_bodies_are_refused(client):
    raw = json.dumps({"organizationId": DEFAULTS["organizationId"], "pad": "x" * (3 * 1024 * 1024)}).encode()
    assert_error(client.post("/public/v1/query/whoami", raw), 413, 8, "request body too large")


def test_the_400kb_interface_limit_on_contract_interfaces(client):
    params = {
        "smartContractAddress": "0x0",
        "smartContractInterface": "x" * 400_001,
        "type": "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
        "label": "big",
    }
    body = assert_error(
        client.submit("create_smart_contract_interface", "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", params),
        400,
        3,
    )
    assert body["details"][1]["fieldViolations"][0]["validator"] == "maxLength"


def test_missing_stamp_is_unauthenticated(unstamped):
    assert_error(unstamped.query("whoami"), 401, 16, "without a stamp (X-Stamp/X-Stamp-Webauthn header)")


def test_two_stamps_are_refused(client):
    raw = json.dumps({"organizationId": DEFAULTS["organizationId"]}).encode()
    _, value = client.stamper.stamp(raw)
    response = client.post("/public/v1/query/whoami", raw, {"X-Stamp-WebAuthn": "{}", "X-Stamp": value})
    assert_error(response, 401, 16, "exactly one of X-Stamp or X-Stamp-WebAuthn")


def test_a_signature_over_other_bytes_is_refused(client):
    raw = json.dumps({"organizationId": DEFAULTS["organizationId"]}).encode()
    _, value = client.stamper.stamp(raw + b" ")
    assert_error(
        client.post("/public/v1/query/whoami", raw, {"X-Stamp": value}), 401, 16, "could not verify api key signature"
    )


def test_garbage_stamp_is_refused(client):
    assert_error(
        client.post("/public/v1/query/whoami", b"{}", {"X-Stamp": "%%%"}), 401, 16, "could not extract api key stamp"
    )


def test_unknown_key_is_refused_with_the_phrase_clients_match(simulator):
    stranger = SimulatorClient(simulator.url, ApiKeyStamper("11" * 32), DEFAULTS["organizationId"])
    assert_error(
        stranger.query("whoami"), 401, 16, "could not find public key in organization or its parent organization"
    )


def test_expired_key_is_refused_with_the_phrase_clients_match(client, simulator):
    user = new_user(client)
    stamper = ApiKeyStamper("22" * 32)
    key = {
        "apiKeyName": "short",
        "publicKey": stamper.public_key,
        "curveType": "API_KEY_CURVE_P256",
        "expirationSeconds": "60",
    }
    ok(client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {"userId": user, "apiKeys": [key]}))
    short = SimulatorClient(simulator.url, stamper, DEFAULTS["organizationId"])
    assert ok(short.query("whoami"))["userId"] == user
    simulator.simulator.clock.advance(61)
    assert_error(short.query("whoami"), 401, 16, "Unauthenticated desc = expired api key publicKey")


def test_unknown_organization_is_not_found(client):
    unknown = "00000000-0000-4000-8000-000000000000"  # well formed: "nope" would be malformed (400)
    assert_error(client.query("whoami", organizationId=unknown), 404, 5, "no organization found with the given ID")


def test_stale_timestamp_is_refused(client):
    response = client.submit(
        "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}, timestampMs="1"
    )
    body = assert_error(response, 400, 3, "behind the simulator clock")
    assert body["turnkeyErrorCode"] == "INVALID_TIME"


@pytest.mark.parametrize(
    "params, status, code, phrase",
    [
        ({"walletName": "w", "accounts": [ETH_ACCOUNT, ETH_ACCOUNT]}, 400, 3, "paths cannot be reused"),
        ({"walletName": "w", "accounts": [{**ETH_ACCOUNT, "curve": "CURVE_ED25519"}]}, 400, 3, "invalid"),
        ({"walletName": "w", "accounts": [{**ETH_ACCOUNT, "path": "m/44'/x"}]}, 400, 3, "invalid path"),
        (
            {"walletName": "w", "accounts": [{**ETH_ACCOUNT, "addressFormat": "ADDRESS_FORMAT_TON_V4R2"}]},
            400,
            3,
            "invalid curve: ADDRESS_FORMAT_TON_V4R2 requires CURVE_ED25519",
        ),
        ({"walletName": "w", "accounts": [], "mnemonicLength": 13}, 400, 3, "invalid mnemonic length"),
    ],
)
def test_wallet_requests_the_service_refuses(client, params, status, code, phrase):
    assert_error(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params), status, code, phrase)


@pytest.mark.parametrize(
    "op, type_, params, status, phrase",
    [
        (
            "delete_policies",
            "ACTIVITY_TYPE_DELETE_POLICIES",
            {"policyIds": ["00000000-0000-4000-8000-0000000000f1"]},
            404,
            "policies not found",
        ),
        (
            "create_user_tag",
            "ACTIVITY_TYPE_CREATE_USER_TAG",
            {"userTagName": "t", "userIds": ["00000000-0000-4000-8000-0000000000f2"]},
            404,
            "users not found",
        ),
        (
            "delete_api_keys",
            "ACTIVITY_TYPE_DELETE_API_KEYS",
            {"userId": DEFAULTS["userId"], "apiKeyIds": ["00000000-0000-4000-8000-0000000000f3"]},
            404,
            "api keys not found",
        ),
        (
            "update_oauth2_credential",
            "ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL",
            {
                "oauth2CredentialId": "00000000-0000-4000-8000-0000000000f4",
                "provider": "OAUTH2_PROVIDER_X",
                "clientId": "x",
                "encryptedClientSecret": "e",
            },
            404,
            "oauth2 credential 00000000-0000-4000-8000-0000000000f4 not found",
        ),
        (
            "set_organization_feature",
            "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
            {"name": "FEATURE_NAME_WEBHOOK", "value": "not a url"},
            400,
            "invalid webhook URL",
        ),
    ],
)
def test_references_are_checked(client, op, type_, params, status, phrase):
    assert_error(client.submit(op, type_, params), status, {400: 3, 404: 5}[status], phrase)


def test_names_must_be_unique(client):
    policy = {"policyName": "p", "effect": "EFFECT_ALLOW", "notes": ""}
    ok(client.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", policy))
    assert_error(
        client.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", policy, timestampMs=fresh()),
        400,
        3,
        "policy label must be unique",
    )
    tag = {"userTagName": "t", "userIds": []}
    ok(client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", tag))
    assert_error(
        client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", tag, timestampMs=fresh()),
        400,
        3,
        "tag name must be unique",
    )


def fresh() -> str:
    """A timestampMs unlike the previous request's, so an identical body is a new activity."""
    return str(int(time.time() * 1000) + 7)


def test_non_root_users_cannot_set_features(client, simulator):
    user = new_user(client)
    stamper = ApiKeyStamper("33" * 32)
    ok(
        client.submit(
            "create_api_keys",
            "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
            {
                "userId": user,
                "apiKeys": [{"apiKeyName": "k", "publicKey": stamper.public_key, "curveType": "API_KEY_CURVE_P256"}],
            },
        )
    )
    other = SimulatorClient(simulator.url, stamper, DEFAULTS["organizationId"])
    body = assert_error(
        other.submit(
            "set_organization_feature",
            "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
            {"name": "FEATURE_NAME_EMAIL_AUTH", "value": ""},
        ),
        403,
        7,
    )
    assert "root-quorum-only" in body["details"][1]["message"]


def test_too_many_api_keys_is_resource_exhausted(client):
    user = new_user(client)
    keys = [
        {
            "apiKeyName": f"k{i}",
            "publicKey": ApiKeyStamper(f"{i + 1:064x}").public_key,
            "curveType": "API_KEY_CURVE_P256",
        }
        for i in range(11)
    ]
    assert_error(
        client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {"userId": user, "apiKeys": keys}),
        429,
        8,
        "user has exceeded maximum long-lived api keys",
    )


def test_unsimulated_operations_say_so(client, monkeypatch):
    """Every public operation is served today; one the catalogue names without a handler answers 501."""
    import dataclasses

    from simulator.operations import catalogue

    absent = dataclasses.replace(catalogue.get("query", "get_boot_proof"), handler=None)
    monkeypatch.setitem(catalogue._BY_KEY, absent.key, absent)
    response = client.query("get_boot_proof", ephemeralKey="04" + "00" * 64)
    assert_error(response, 501, 12, "query get_boot_proof is part of the public API but not simulated yet")
