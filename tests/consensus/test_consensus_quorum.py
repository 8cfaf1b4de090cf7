"""Root quorum, two of three: consensus, approval and rejection by fingerprint, vote errors."""

from __future__ import annotations

import pytest
from conftest import DEFAULTS, ok
from support import assert_error

from simulator.testing import ApiKeyStamper, SimulatorClient

pytestmark = pytest.mark.simulator_scenario("two_of_three_quorum")


def new_wallet(user, name="w"):
    return ok(
        user("Root User").submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": name, "accounts": []})
    )["activity"]


def decide(user, who: str, op: str, fingerprint: str):
    type_ = "ACTIVITY_TYPE_APPROVE_ACTIVITY" if op == "approve_activity" else "ACTIVITY_TYPE_REJECT_ACTIVITY"
    return user(who).submit(op, type_, {"fingerprint": fingerprint})


def test_a_root_users_activity_waits_for_a_second_root_user(simulator, simulator_user):
    activity = new_wallet(simulator_user)
    assert activity["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED" and activity["result"] == {}
    seen_by_bob = ok(simulator_user("Bob").query("get_activity", activityId=activity["id"]))["activity"]
    assert (seen_by_bob["canApprove"], seen_by_bob["canReject"]) == (True, True)
    approved = ok(decide(simulator_user, "Bob", "approve_activity", activity["fingerprint"]))["activity"]
    assert approved["id"] == activity["id"] and approved["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert approved["result"]["createWalletResult"]["walletId"]
    assert [v["selection"] for v in approved["votes"]] == ["VOTE_SELECTION_APPROVED"] * 2
    assert approved["votes"][1]["user"]["userName"] == "Bob"
    evaluations = ok(simulator_user("Root User").query("get_policy_evaluations", activityId=activity["id"]))
    outcomes = [(e["voteId"], e["policyEvaluations"]) for e in evaluations["policyEvaluations"]]
    assert outcomes == [
        (approved["votes"][0]["id"], [{"outcome": "OUTCOME_REQUIRES_CONSENSUS"}]),
        (approved["votes"][1]["id"], [{"outcome": "OUTCOME_ALLOW"}]),
    ]
    assert len(ok(simulator_user("Root User").query("list_wallets"))["wallets"]) == 1


def test_a_rejection_ends_the_activity(simulator, simulator_user):
    activity = new_wallet(simulator_user)
    rejected = ok(decide(simulator_user, "Carol", "reject_activity", activity["fingerprint"]))["activity"]
    assert rejected["status"] == "ACTIVITY_STATUS_REJECTED"
    assert rejected["votes"][1]["selection"] == "VOTE_SELECTION_REJECTED"
    assert ok(simulator_user("Root User").query("list_wallets"))["wallets"] == []
    assert_error(
        decide(simulator_user, "Bob", "approve_activity", activity["fingerprint"]),
        400,
        3,
        "only an activity awaiting consensus",
    )


def test_voting_twice_is_refused(simulator, simulator_user):
    activity = new_wallet(simulator_user)
    assert_error(
        decide(simulator_user, "Root User", "approve_activity", activity["fingerprint"]), 400, 3, "has already voted"
    )


def test_an_unknown_fingerprint_is_not_found(simulator, simulator_user):
    assert_error(
        decide(simulator_user, "Bob", "approve_activity", "sha256:" + "0" * 64),
        404,
        5,
        "No activity found with fingerprint. Consensus activities must target an existing activity by fingerprint",
    )


def test_a_voter_of_another_organization_is_refused(simulator, simulator_user, tmp_path):
    activity = new_wallet(simulator_user)
    body = {"fingerprint": activity["fingerprint"]}
    elsewhere = "00000000-0000-4000-8000-0000000000e1"  # well formed: an unknown organization, not a malformed id
    other = SimulatorClient(simulator.url, ApiKeyStamper(DEFAULTS["apiPrivateKey"]), elsewhere)
    assert_error(
        other.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", body), 404, 5, "no organization found"
    )


def test_approving_from_the_python_api_and_explaining(simulator, simulator_user):
    activity = new_wallet(simulator_user)
    sim = simulator.simulator
    assert sim.explain(activity["id"])["decidedBy"].startswith("root quorum: 2 of 3")
    done = sim.approve(activity["id"], "Carol")["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
    explained = sim.explain(activity["id"])
    assert [v["selection"] for v in explained["votes"]] == ["VOTE_SELECTION_APPROVED"] * 2
    assert any("approved by Carol" in step for step in explained["steps"])


def test_control_endpoints_vote_and_explain(simulator, simulator_user):
    activity = new_wallet(simulator_user)
    control = SimulatorClient(simulator.url, None, DEFAULTS["organizationId"])
    explained = control.post(f"/_simulator/activities/{activity['id']}/explain", b"", method="GET").body
    assert explained["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    rejected = control.post(f"/_simulator/activities/{activity['id']}/reject", b'{"userId": "Bob"}').body
    assert rejected["activity"]["status"] == "ACTIVITY_STATUS_REJECTED"
    moved = control.post("/_simulator/clock/advance", b'{"seconds": 60}').body
    assert moved["nowMs"] >= int(activity["createdAt"]["seconds"]) * 1000 + 60_000
