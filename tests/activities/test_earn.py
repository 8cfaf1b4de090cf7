"""Earn through the HTTP surface: deploy a wrapper over a catalogue vault, deposit once it is live,
see the position grow on the simulator clock, withdraw, pause deposits, claim fees, scripted outcomes."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import ETH_ACCOUNT, ok, result_of
from support import assert_error, new_wallet

from simulator.standins import longtail

VAULT = longtail.DEFAULTS["vaults"][0]["vaultAddress"]
BASE = "eip155:8453"
DAY = 24 * 3600


def seed(simulator: Any, section: dict[str, Any]) -> None:
    with simulator.simulator.lock:
        longtail.apply_section(simulator.simulator.store, section)


def submit(client: Any, op: str, params: dict[str, Any]) -> Any:
    return client.submit(op, f"ACTIVITY_TYPE_{op.upper()}", params)


@pytest.fixture
def address(client: Any) -> str:
    return new_wallet(client, "earner", [ETH_ACCOUNT])["addresses"][0]  # type: ignore[no-any-return]


def deploy(client: Any, address: str, fee: str = "1000") -> dict[str, Any]:
    params = {"vaultAddress": VAULT, "chainCaip2": BASE, "clientFeeBps": fee, "clientFeeWallet": address}
    return result_of(submit(client, "earn_deploy_wrapper", params), "earnDeployWrapperResult")


def deposit(client: Any, wrapper: str, address: str, assets: str = "100000000") -> Any:
    params = {"wrapperAddress": wrapper, "signWith": address, "assets": assets, "chainCaip2": BASE}
    return submit(client, "earn_deposit", params)


def test_the_whole_lifecycle(client, simulator, address):
    vaults = ok(client.query("list_earn_vaults", caip19=longtail.BASE_USDC))
    assert vaults["vaults"][0]["enabled"] is False and vaults["pageInfo"]["hasNextPage"] is False
    made = deploy(client, address)
    assert made == deploy(client, address)  # identical parameters re-derive the same wrapper
    wrapper = made["wrapperAddress"]
    assert ok(client.query("get_earn_deploy_status", deployRequestId=made["deployRequestId"]))["status"] == "PENDING"
    refused = deposit(client, wrapper, address)
    assert assert_error(refused, 400, 3, "not deployed yet")["turnkeyErrorCode"] == "EARN_SETUP_REQUIRED"
    simulator.clock.advance(20)
    deployed = ok(client.query("get_earn_deploy_status", deployRequestId=made["deployRequestId"]))
    assert deployed["status"] == "COMPLETED" and deployed["deployTxHash"].startswith("0x")
    request = result_of(deposit(client, wrapper, address), "earnDepositResult")["depositRequestId"]
    simulator.clock.advance(10)
    assert ok(client.query("get_earn_deposit_status", depositRequestId=request))["status"] == "COMPLETED"
    simulator.clock.advance(365 * DAY)
    held = ok(client.query("list_earn_positions", walletAddress=address))["positions"][0]
    # a year at 6.12% gross, less Turnkey's 10% and the client's 10% of the yield
    assert held["totalDeposited"] == "100000000" and 104_800_000 < int(held["currentValue"]) < 104_950_000
    enabled = ok(client.query("list_earn_enabled_vaults"))["enabledVaults"][0]
    assert enabled["wrapperAddress"] == wrapper and 600_000 < int(enabled["claimableClientFee"]) < 620_000
    claim = result_of(submit(client, "claim_earn_fees", {"wrapperAddress": wrapper}), "claimEarnFeesResult")
    assert ok(client.query("get_claim_earn_fees_status", claimRequestId=claim["claimRequestId"]))["status"] == "PENDING"
    withdraw = {"wrapperAddress": wrapper, "signWith": address, "chainCaip2": BASE, "amountValue": "MAX"}
    request = result_of(submit(client, "earn_withdraw", withdraw), "earnWithdrawResult")["withdrawRequestId"]
    simulator.clock.advance(10)
    assert ok(client.query("get_earn_withdraw_status", withdrawRequestId=request))["withdrawTxHash"]
    assert ok(client.query("list_earn_positions", walletAddress=address))["positions"] == []


def test_paused_wrappers_refuse_deposits(client, simulator, address):
    wrapper = deploy(client, address)["wrapperAddress"]
    simulator.clock.advance(20)
    paused = submit(client, "earn_set_wrapper_state", {"wrapperAddress": wrapper, "depositsDisabled": True})
    assert result_of(paused, "earnSetWrapperStateResult") == {"wrapperAddress": wrapper, "depositsDisabled": True}
    assert_error(deposit(client, wrapper, address), 400, 3, "disabled")
    assert_error(submit(client, "claim_earn_fees", {"wrapperAddress": wrapper}), 400, 3, "no client fees")


def test_refusals(client, address):
    bad = {"vaultAddress": "0x" + "11" * 20, "chainCaip2": BASE, "clientFeeBps": "10", "clientFeeWallet": address}
    assert_error(submit(client, "earn_deploy_wrapper", bad), 400, 3, "not in the Earn vault catalogue")
    assert_error(submit(client, "earn_deploy_wrapper", {**bad, "vaultAddress": VAULT, "clientFeeBps": "4001"}), 400, 3)
    missing = deposit(client, "0x" + "22" * 20, address)
    assert assert_error(missing, 404, 5)["turnkeyErrorCode"] == "EARN_SETUP_REQUIRED"
    assert_error(client.query("get_earn_deposit_status", depositRequestId="x"), 404, 5, "deposit request x")


def test_a_scripted_deposit_stays_pending_then_fails(client, simulator, address):
    sequence = [{"status": "PENDING"}, {"status": "FAILED", "after": {"polls": 3}, "error": "insufficient USDC"}]
    seed(simulator, {"statuses": [{"name": "stuck", "match": {"type": "EARN_DEPOSIT"}, "sequence": sequence}]})
    wrapper = deploy(client, address)["wrapperAddress"]
    simulator.clock.advance(20)
    request = result_of(deposit(client, wrapper, address), "earnDepositResult")["depositRequestId"]
    simulator.clock.advance(3600)
    polls = [ok(client.query("get_earn_deposit_status", depositRequestId=request)) for _ in range(3)]
    assert [p["status"] for p in polls] == ["PENDING", "PENDING", "FAILED"] and polls[2]["error"] == "insufficient USDC"
    assert ok(client.query("list_earn_positions", walletAddress=address))["positions"] == []


def test_the_official_client_reads_the_catalogue(turnkey_client):
    import turnkey_sdk_types as T

    found = turnkey_client.list_earn_vaults(T.ListEarnVaultsBody(caip19=longtail.BASE_USDC))
    assert found.vaults[0].vaultAddress == VAULT and found.vaults[0].display.usd == "250000000.00"
