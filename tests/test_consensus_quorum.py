"""Root quorum, two of three: consensus, approval and rejection by fingerprint, vote errors."""

from __future__ import annotations

from conftest import DEFAULTS, as_user, ok
from test_errors import assert_error

from simulator.testing import ApiKeyStamper, SimulatorClient

SCENARIO = "two_of_three_quorum.yaml"


def new_wallet(server, name="w"):
    return ok(
        as_user(server, "root").submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": name, "accounts": []}
        )
    )["activity"]


def decide(server, who: str, op: str, fingerprint: str):
    type_ = "ACTIVITY_TYPE_APPROVE_ACTIVITY" if op == "approve_activity" else "ACTIVITY_TYPE_REJECT_ACTIVITY"
    return as_user(server, who).submit(op, type_, {"fingerprint": fingerprint})


def test_a_root_users_activity_waits_for_a_second_root_user(server):
    activity = new_wallet(server)
    assert activity["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED" and activity["result"] == {}
    seen_by_bob = ok(as_user(server, "bob").query("get_activity", activityId=activity["id"]))["activity"]
    assert (seen_by_bob["canApprove"], seen_by_bob["canReject"]) == (True, True)
    approved = ok(decide(server, "bob", "approve_activity", activity["fingerprint"]))["activity"]
    assert approved["id"] == activity["id"] and approved["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert approved["result"]["createWalletResult"]["walletId"]
    assert [v["selection"] for v in approved["votes"]] == ["VOTE_SELECTION_APPROVED"] * 2
    assert approved["votes"][1]["user"]["userName"] == "Bob"
    evaluations = ok(as_user(server, "root").query("get_policy_evaluations", activityId=activity["id"]))
    outcomes = [(e["voteId"], e["policyEvaluations"]) for e in evaluations["policyEvaluations"]]
    assert outcomes == [
        (approved["votes"][0]["id"], [{"outcome": "OUTCOME_REQUIRES_CONSENSUS"}]),
        (approved["votes"][1]["id"], [{"outcome": "OUTCOME_ALLOW"}]),
    ]
    assert len(ok(as_user(server, "root").query("list_wallets"))["wallets"]) == 1


def test_a_rejection_ends_the_activity(server):
    activity = new_wallet(server)
    rejected = ok(decide(server, "carol", "reject_activity", activity["fingerprint"]))["activity"]
    assert rejected["status"] == "ACTIVITY_STATUS_REJECTED"
    assert rejected["votes"][1]["selection"] == "VOTE_SELECTION_REJECTED"
    assert ok(as_user(server, "root").query("list_wallets"))["wallets"] == []
    assert_error(
        decide(server, "bob", "approve_activity", activity["fingerprint"]),
        400,
        3,
        "only an activity awaiting consensus",
    )


def test_voting_twice_is_refused(server):
    activity = new_wallet(server)
    assert_error(decide(server, "root", "approve_activity", activity["fingerprint"]), 400, 3, "has already voted")


def test_an_unknown_fingerprint_is_not_found(server):
    assert_error(
        decide(server, "bob", "approve_activity", "sha256:" + "0" * 64),
        404,
        5,
        "No activity found with fingerprint. Consensus activities must target an existing activity by fingerprint",
    )


def test_a_voter_of_another_organization_is_refused(server, tmp_path):
    activity = new_wallet(server)
    body = {"fingerprint": activity["fingerprint"]}
    other = SimulatorClient(server.url, ApiKeyStamper(DEFAULTS["apiPrivateKey"]), "elsewhere")
    assert_error(
        other.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", body), 404, 5, "no organization found"
    )


def test_approving_from_the_python_api_and_explaining(server):
    activity = new_wallet(server)
    sim = server.simulator
    assert sim.explain(activity["id"])["decidedBy"].startswith("root quorum: 2 of 3")
    done = sim.approve(activity["id"], "Carol")["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
    explained = sim.explain(activity["id"])
    assert [v["selection"] for v in explained["votes"]] == ["VOTE_SELECTION_APPROVED"] * 2
    assert any("approved by Carol" in step for step in explained["steps"])


def test_control_endpoints_vote_and_explain(server):
    activity = new_wallet(server)
    control = SimulatorClient(server.url, None, DEFAULTS["organizationId"])
    explained = control.post(f"/_simulator/activities/{activity['id']}/explain", b"", method="GET").body
    assert explained["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    rejected = control.post(f"/_simulator/activities/{activity['id']}/reject", b'{"userId": "Bob"}').body
    assert rejected["activity"]["status"] == "ACTIVITY_STATUS_REJECTED"
    moved = control.post("/_simulator/clock/advance", b'{"seconds": 60}').body
    assert moved["nowMs"] >= int(activity["createdAt"]["seconds"]) * 1000 + 60_000
