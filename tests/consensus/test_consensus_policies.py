"""A non-root user governed by policies: allow, explicit deny, implicit deny, root-only activities."""

from __future__ import annotations

import pytest
from conftest import ok
from support import assert_error

pytestmark = pytest.mark.simulator_scenario("policy_deny")


def test_a_policy_allows_dave_to_create_wallets(simulator, simulator_user):
    activity = ok(
        simulator_user("Dave").submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "d", "accounts": []}
        )
    )["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_COMPLETED"
    evaluation = ok(simulator_user("Dave").query("get_policy_evaluations", activityId=activity["id"]))
    policies = {p["policyId"]: p for p in ok(simulator_user("Root User").query("list_policies"))["policies"]}
    allowed = evaluation["policyEvaluations"][0]["policyEvaluations"]
    assert [(policies[e["policyId"]]["policyName"], e["outcome"]) for e in allowed] == [
        ("traders create wallets", "OUTCOME_ALLOW")
    ]


def test_an_explicit_deny_is_a_403_with_the_evaluations(simulator, simulator_user):
    response = simulator_user("Dave").submit("delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", {"policyIds": []})
    body = assert_error(response, 403, 7, "You don't have sufficient permissions to take this action")
    detail = body["details"][1]
    assert detail["@type"] == "type.googleapis.com/errors.v1.PolicyEnginePermissionError"
    assert [e["outcome"] for e in detail["policyEvaluations"]] == ["OUTCOME_DENY_EXPLICIT"]
    kept = ok(simulator_user("Dave").query("get_policy_evaluations", activityId=detail["activityId"]))
    assert kept["policyEvaluations"][0]["policyEvaluations"] == detail["policyEvaluations"]
    activity = ok(simulator_user("Dave").query("get_activity", activityId=detail["activityId"]))["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_FAILED" and activity["failure"]["code"] == 7
    assert len(ok(simulator_user("Root User").query("list_policies"))["policies"]) == 2


def test_nothing_matching_is_an_implicit_deny(simulator, simulator_user):
    response = simulator_user("Dave").submit(
        "create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "x", "userIds": []}
    )
    body = assert_error(response, 403, 7)
    assert body["details"][1]["policyEvaluations"] == [{"outcome": "OUTCOME_DENY_IMPLICIT"}]


def test_root_quorum_only_activities_are_denied_to_others(simulator, simulator_user):
    response = simulator_user("Dave").submit(
        "set_organization_feature",
        "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
        {"name": "FEATURE_NAME_EMAIL_AUTH", "value": ""},
    )
    body = assert_error(response, 403, 7)
    assert "root-quorum-only" in body["details"][1]["message"]


def test_users_manage_their_own_credentials_without_a_policy(simulator, simulator_user):
    keys = ok(simulator_user("Dave").query("get_api_keys", userId="da4e0000-0000-4000-8000-00000000d001"))["apiKeys"]
    deleted = ok(
        simulator_user("Dave").submit(
            "delete_api_keys",
            "ACTIVITY_TYPE_DELETE_API_KEYS",
            {"userId": "da4e0000-0000-4000-8000-00000000d001", "apiKeyIds": [keys[0]["apiKeyId"]]},
        )
    )["activity"]
    assert deleted["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_a_root_user_is_not_governed_by_the_deny_policy(simulator, simulator_user):
    activity = ok(
        simulator_user("Root User").submit("delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", {"policyIds": []})
    )["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_policy_consensus_waits_for_the_named_approver(simulator, simulator_user):
    root = simulator_user("Root User")
    ok(
        root.submit(
            "create_policy",
            "ACTIVITY_TYPE_CREATE_POLICY_V3",
            {
                "policyName": "tags need root",
                "effect": "EFFECT_ALLOW",
                "notes": "",
                "condition": "activity.resource == 'USER'",
                "consensus": "approvers.any(user, user.id == '5f1c0c5e-0000-4000-8000-00000000b001')",
            },
        )
    )
    activity = ok(
        simulator_user("Dave").submit(
            "create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "x", "userIds": []}
        )
    )["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    done = ok(
        root.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": activity["fingerprint"]})
    )["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED" and done["result"]["createUserTagResult"]["userTagId"]


def test_unsupported_policy_language_is_refused_when_created(simulator, simulator_user):
    response = simulator_user("Root User").submit(
        "create_policy",
        "ACTIVITY_TYPE_CREATE_POLICY_V3",
        {"policyName": "bad", "effect": "EFFECT_ALLOW", "notes": "", "condition": "activity.params.amount * 2 > 5"},
    )
    assert_error(response, 400, 3, "invalid policy condition")
