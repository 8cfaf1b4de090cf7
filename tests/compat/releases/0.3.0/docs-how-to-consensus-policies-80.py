import pytest


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_votes_without_stamps(simulator, simulator_client):
    activity = simulator_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET",
                                       {"walletName": "w", "accounts": []}).body["activity"]
    simulator.reject(activity["id"], "Carol")    # user id or name (approve likewise); returns {"activity": ...}
    why = simulator.explain(activity["id"])     # {"decidedBy": ..., "votes": [...], "steps": [...], ...}
    assert why["status"] == "ACTIVITY_STATUS_REJECTED"
    simulator.clock.advance(30)                  # seconds; ends "after: {seconds: ...}" waits, expires keys
