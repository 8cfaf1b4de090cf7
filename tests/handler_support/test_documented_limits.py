"""Documented limits through HTTP, each at its boundary (the last accepted, the first refused), and
each refusal leaves the state export as it was: approval expiry on the simulated clock, the
sub-organization allowance, malformed ids, the swagger's numeric bounds, API public keys."""

from __future__ import annotations

import json
import re
import secrets
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, ok, result_of
from support import EMAIL, assert_error, refused_unchanged, sub_org

from simulator.crypto.keys import compressed_hex, new_ec_key
from simulator.testing import ApiKeyStamper, SimulatorClient

DAY = 24 * 3600
SWAGGER = ROOT / "schemas" / "source" / "public_api.swagger.json"
UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000"


# --- approval expiry: 24 hours after the first vote, on the simulator's clock ---------------------


def pending_wallet(simulator_user: Any) -> dict[str, Any]:
    body = {"walletName": "w", "accounts": []}
    activity = ok(simulator_user("Root User").submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", body))["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    return activity  # type: ignore[no-any-return]


def approve(simulator_user: Any, who: str, fingerprint: str) -> Any:
    return simulator_user(who).submit(
        "approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": fingerprint}
    )


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_a_second_approval_24_hours_after_the_first_still_counts(simulator_user, simulator_control, frozen_clock):
    activity = pending_wallet(simulator_user)
    simulator_control.advance_clock(DAY)
    approved = ok(approve(simulator_user, "Bob", activity["fingerprint"]))["activity"]
    assert approved["status"] == "ACTIVITY_STATUS_COMPLETED"


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_approvals_expire_24_hours_after_the_first_vote_and_the_activity_keeps_waiting(
    simulator_user, simulator_control, frozen_clock
):
    activity = pending_wallet(simulator_user)
    simulator_control.advance_clock(DAY + 0.001)
    late = ok(approve(simulator_user, "Bob", activity["fingerprint"]))["activity"]
    assert late["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED" and late["result"] == {}
    assert ok(simulator_user("Root User").query("list_wallets"))["wallets"] == []
    explained = simulator_control.explain(activity["id"])
    assert "expired" in json.dumps(explained)
    # the expired approval is re-submitted within the new window: consensus is reached
    again = ok(approve(simulator_user, "Root User", activity["fingerprint"]))["activity"]
    assert again["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert len(ok(simulator_user("Root User").query("list_wallets"))["wallets"]) == 1


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_a_voter_whose_approval_expired_is_shown_able_to_approve_again(simulator_user, simulator_control, frozen_clock):
    activity = pending_wallet(simulator_user)

    def seen_by_requester() -> Any:
        return ok(simulator_user("Root User").query("get_activity", activityId=activity["id"]))["activity"]

    simulator_control.advance_clock(DAY)
    assert seen_by_requester()["canApprove"] is False  # their submission's approval still counts
    simulator_control.advance_clock(0.001)
    shown = seen_by_requester()
    assert shown["canApprove"] is True and shown["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    listed = ok(simulator_user("Root User").query("list_activities"))["activities"]
    assert [a["canApprove"] for a in listed if a["id"] == activity["id"]] == [True]
    assert ok(approve(simulator_user, "Root User", activity["fingerprint"]))["activity"]["status"] == (
        "ACTIVITY_STATUS_CONSENSUS_NEEDED"  # it opens a new window, and is again the only approval in it
    )


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_an_approval_still_in_its_window_cannot_be_cast_twice(simulator_user, simulator_control, frozen_clock):
    activity = pending_wallet(simulator_user)
    simulator_control.advance_clock(DAY)
    assert_error(approve(simulator_user, "Root User", activity["fingerprint"]), 400, 3, "has already voted")


# --- the sub-organization allowance: unlimited in a parent, 0 in a sub-organization ---------------


def test_a_sub_organization_cannot_create_a_sub_organization(simulator, simulator_client, simulator_control):
    key = new_ec_key(simulator.simulator.source, "p256")
    api_key = {"apiKeyName": "root", "publicKey": compressed_hex(key), "curveType": "API_KEY_CURVE_P256"}
    child_id, _ = sub_org(simulator_client, apiKeys=[api_key])
    child = SimulatorClient(simulator.url, stamper_of(key), child_id)
    params = {
        "subOrganizationName": "grandchild",
        "rootUsers": [{"userName": "G", "apiKeys": [], "authenticators": [], "oauthProviders": []}],
        "rootQuorumThreshold": 1,
    }
    body = refused_unchanged(
        simulator_control,
        lambda: child.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", params),
        429,
        8,
        "limit of 0 sub-organizations",
    )
    assert body["turnkeyErrorCode"] == "RATE_LIMIT_EXCEEDED"
    # the parent's allowance is unlimited: its second sub-organization is created
    assert sub_org(simulator_client)[0] != child_id


def stamper_of(key: Any) -> ApiKeyStamper:
    return ApiKeyStamper(f"{key.private_numbers().private_value:064x}")


# --- malformed ids: 400/3 "malformed ... ID provided" instead of 404/5 ----------------------------


def test_an_organization_id_that_is_not_a_uuid_is_malformed(simulator, simulator_control):
    from conftest import DEFAULTS

    stamper = ApiKeyStamper(DEFAULTS["apiPrivateKey"])
    malformed = SimulatorClient(simulator.url, stamper, "not-a-uuid")
    body = assert_error(malformed.query("list_wallets"), 400, 3, "malformed organization ID provided")
    assert body["turnkeyErrorCode"] == "INVALID_ORGANIZATION_ID"
    refused_unchanged(
        simulator_control,
        lambda: malformed.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}),
        400,
        3,
        "malformed organization ID provided",
    )
    # a well-formed id that names no organization is still not found
    unknown = SimulatorClient(simulator.url, stamper, UNKNOWN_UUID)
    assert_error(unknown.query("list_wallets"), 404, 5, "no organization found")


@pytest.mark.parametrize(
    ("op", "field", "phrase"),
    [
        ("get_wallet", "walletId", "malformed wallet ID provided"),
        ("get_user", "userId", "malformed user ID provided"),
        ("get_private_key", "privateKeyId", "malformed private key ID provided"),
        ("get_policy", "policyId", "malformed policy ID provided"),
        ("get_activity", "activityId", "malformed activity ID provided"),
    ],
)
def test_every_issued_id_that_is_not_a_uuid_is_malformed(simulator_client, op, field, phrase):
    assert_error(simulator_client.query(op, **{field: "nope"}), 400, 3, phrase)
    assert simulator_client.query(op, **{field: UNKNOWN_UUID}).status == 404


def test_a_list_of_ids_is_checked_item_by_item(simulator_client, simulator_control):
    refused_unchanged(
        simulator_control,
        lambda: simulator_client.submit("delete_users", "ACTIVITY_TYPE_DELETE_USERS", {"userIds": ["someone"]}),
        400,
        3,
        "malformed user ID provided",
    )


def marked_fields(node: Any, name: str = "") -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        if node.get("x-issued-id"):
            found.add(name)
        for key, value in node.items():
            found |= marked_fields(value, key if key not in ("items", "properties", "then", "allOf") else name)
    elif isinstance(node, list):
        for value in node:
            found |= marked_fields(value, name)
    return found


def test_ids_the_service_does_not_issue_are_not_judged(simulator_client):
    """Provider handles and WebAuthn or OAuth client ids are not UUIDs: unknown, they stay 404."""
    assert_error(simulator_client.query("get_swap_status", swapRequestId="nope"), 404, 5, "nope")
    marked = set().union(*(marked_fields(json.loads(p.read_text())) for p in generated_schemas()))
    assert {"organizationId", "walletId", "userIds", "activityId", "privateKeyId", "policyIds"} <= marked
    assert not marked & {"credentialId", "clientId", "quoteId", "swapRequestId", "templateId"}
    assert all(re.fullmatch(r"[a-z]\w*Ids?", name) for name in marked), marked


def test_the_python_client_sees_a_malformed_organization_id(turnkey_client):
    T = pytest.importorskip("turnkey_sdk_types")
    with pytest.raises(T.TurnkeyNetworkError) as raised:
        turnkey_client.get_wallets(T.GetWalletsBody(organizationId="not-a-uuid"))
    assert raised.value.status_code == 400 and "malformed organization ID provided" in str(raised.value)


# --- the swagger's numeric bounds, generated from its descriptions ---------------------------------


def otp_id(client: Any) -> str:
    params = {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, "appName": "Demo"}
    sent = client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", params, timestampMs=str(time.time_ns() // 10**6))
    return str(result_of(sent, "initOtpResult")["otpId"])


def test_verify_otp_expiration_seconds_at_most_86400(simulator, simulator_client, simulator_control):
    first = otp_id(simulator_client)
    code = next(m["code"] for m in simulator.simulator.store.outbox if m["otpId"] == first)
    body = {"otpId": first, "otpCode": code, "expirationSeconds": "86401"}
    refused = refused_unchanged(
        simulator_control,
        lambda: simulator_client.submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP", body),
        400,
        3,
        "expirationSeconds",
        "greater than the maximum of 86400",
    )
    assert refused["details"][1]["fieldViolations"][0]["validator"] == "x-maximum"
    accepted = simulator_client.submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP", {**body, "expirationSeconds": "86400"})
    assert result_of(accepted, "verifyOtpResult")["verificationToken"]


@pytest.mark.parametrize(("limit", "accepted"), [("0", False), ("1", True), ("100", True), ("101", False)])
def test_pagination_limit_between_1_and_100(simulator_client, limit, accepted):
    answer = simulator_client.query("list_activities", paginationOptions={"limit": limit})
    if accepted:
        ok(answer)
    else:
        assert_error(answer, 400, 3, "paginationOptions.limit")


BOUND_PHRASE = re.compile(r"Maximum (?:value )?is (\d+)|[Bb]etween (\d+) and (\d+)")


def bounded_fields(node: Any) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        if isinstance(node.get("description"), str) and BOUND_PHRASE.search(node["description"]):
            found.append((node["description"], node))
        for value in node.values():
            found += bounded_fields(value)
    elif isinstance(node, list):
        for value in node:
            found += bounded_fields(value)
    return found


def generated_schemas() -> list[Path]:
    """The schema files (schemas/source/ holds their inputs: the swagger is not one)."""
    return sorted(p for p in (ROOT / "schemas").glob("*/*.json") if p.parent.name != "source")


@pytest.mark.skipif(not SWAGGER.exists(), reason="the swagger is not available")
def test_every_bound_a_description_states_is_in_the_request_schemas():
    fields = [f for path in generated_schemas() for f in bounded_fields(json.loads(path.read_text()))]
    assert len(fields) > 10
    for description, schema in fields:
        match = BOUND_PHRASE.search(description)
        assert match is not None
        maximum = int(match.group(1) or match.group(3))
        keywords = {"maxItems", "maximum", "x-maximum"}
        assert any(schema.get(k) == maximum for k in keywords), (description, schema)


# --- API public keys, as the service takes them ----------------------------------------------------


def off_curve_p256_x() -> str:
    """32 bytes that are the x of no P-256 point (as half of Turnkey's SDK test keys are)."""
    from cryptography.hazmat.primitives.asymmetric import ec

    for n in range(1, 100):
        x = f"{n:064x}"
        try:
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex("02" + x))
        except ValueError:
            return x
    raise AssertionError("no off-curve x found")


def create_key(client: Any, public_key: str, curve: str = "API_KEY_CURVE_P256") -> Any:
    user_id = ok(client.query("whoami"))["userId"]
    key = {"apiKeyName": f"k{secrets.token_hex(3)}", "publicKey": public_key, "curveType": curve}
    return client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {"userId": user_id, "apiKeys": [key]})


def test_a_compressed_p256_key_is_taken_as_the_service_takes_it(simulator_client):
    created = result_of(create_key(simulator_client, "02" + off_curve_p256_x()), "createApiKeysResult")
    assert len(created["apiKeyIds"]) == 1


@pytest.mark.parametrize(
    ("public_key", "curve", "phrase"),
    [
        ("02" + "ab" * 31, "API_KEY_CURVE_P256", "wrong length, 32 bytes"),
        ("05" + "ab" * 32, "API_KEY_CURVE_P256", "wrong prefix 05"),
        ("04" + "01" * 64, "API_KEY_CURVE_P256", "not a point on the P-256 curve"),
        ("02" + "00" * 32, "API_KEY_CURVE_SECP256K1", "not a point on the secp256k1 curve"),
        ("ab" * 31, "API_KEY_CURVE_ED25519", "wrong length, 31 bytes where an Ed25519 key has 32"),
        ("zz" * 33, "API_KEY_CURVE_P256", "not hexadecimal"),
    ],
)
def test_what_is_not_a_key_is_refused_naming_the_problem(
    simulator_client, simulator_control, public_key, curve, phrase
):
    refused_unchanged(simulator_control, lambda: create_key(simulator_client, public_key, curve), 400, 3, phrase)


def test_turnkeys_own_python_sdk_test_key_is_accepted(turnkey_client):
    """The SDK's test_create_api_keys: ``02`` + 32 random bytes, P-256, expects success."""
    T = pytest.importorskip("turnkey_sdk_types")
    user_id = turnkey_client.get_whoami(T.GetWhoamiBody()).userId
    for x in (off_curve_p256_x(), secrets.token_bytes(32).hex()):
        key = T.v1ApiKeyParamsV2(
            apiKeyName=f"sdk {x[:6]}", publicKey=f"02{x}", curveType="API_KEY_CURVE_P256", expirationSeconds="3600"
        )
        made = turnkey_client.create_api_keys(T.CreateApiKeysBody(userId=user_id, apiKeys=[key]))
        assert made.activity.status == "ACTIVITY_STATUS_COMPLETED" and made.apiKeyIds
