"""The official Python client's poller against every outcome (service-facts.md §4.4)."""

from __future__ import annotations

import pytest
from conftest import DEFAULTS

T = pytest.importorskip("turnkey_sdk_types")
from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig  # noqa: E402
from turnkey_http import TurnkeyClient  # noqa: E402
from turnkey_sdk_types.errors import TurnkeyActivityError  # noqa: E402


def client(server) -> TurnkeyClient:
    stamper = ApiKeyStamper(
        ApiKeyStamperConfig(api_public_key=DEFAULTS["apiPublicKey"], api_private_key=DEFAULTS["apiPrivateKey"])
    )
    return TurnkeyClient(
        base_url=server.url,
        stamper=stamper,
        organization_id=DEFAULTS["organizationId"],
        polling_interval_ms=20,
        max_polling_retries=4,
    )


def create(server) -> T.CreateWalletResponse:
    return client(server).create_wallet(T.CreateWalletBody(walletName="w", accounts=[]))


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_consensus_needed_raises_the_consensus_error(simulator):
    with pytest.raises(TurnkeyActivityError) as caught:
        create(simulator)
    assert type(caught.value).__name__ == "TurnkeyActivityConsensusNeededError"


@pytest.mark.simulator_scenario("reject")
def test_rejected_raises(simulator):
    with pytest.raises(TurnkeyActivityError, match="was rejected"):
        create(simulator)


@pytest.mark.simulator_scenario("fail_after_two_polls")
def test_failed_after_two_polls_raises_with_the_failure_message(simulator):
    server = simulator
    with pytest.raises(TurnkeyActivityError, match="signer unavailable"):
        create(server)
    activity = server.simulator.store.activities
    assert [a.status for a in activity.values()] == ["ACTIVITY_STATUS_FAILED"]


@pytest.mark.simulator_scenario("../scenarios/stuck.yaml")  # the reject organization, its wallet pending for 1000 polls
def test_pending_forever_stops_after_the_poll_limit(simulator):
    with pytest.raises(TurnkeyActivityError, match="did not reach a terminal status"):
        create(simulator)


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_approval_then_completion_through_the_client(simulator):
    server = simulator
    with pytest.raises(TurnkeyActivityError) as caught:
        create(server)
    activity_id = next(iter(server.simulator.store.activities))
    assert caught.value is not None
    fingerprint = server.simulator.store.activities[activity_id].fingerprint
    stamper = ApiKeyStamper(
        ApiKeyStamperConfig(
            api_public_key=ApiKeyStamperPublic("b0b0000000000000000000000000000000000000000000000000000000000001"),
            api_private_key="b0b0000000000000000000000000000000000000000000000000000000000001",
        )
    )
    bob = TurnkeyClient(base_url=server.url, stamper=stamper, organization_id=DEFAULTS["organizationId"])
    approved = bob.approve_activity(T.ApproveActivityBody(fingerprint=fingerprint))
    assert approved.activity.status == "ACTIVITY_STATUS_COMPLETED"
    assert approved.activity.result.createWalletResult.walletId


def ApiKeyStamperPublic(private_hex: str) -> str:
    from simulator.testing import ApiKeyStamper as Ours

    return Ours(private_hex).public_key
