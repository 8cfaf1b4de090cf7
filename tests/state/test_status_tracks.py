"""Scripted statuses exported mid-way (a rule's wait, a long-tail status, a sent transaction) keep the
document form state exports always had, and move on from where they were once imported back."""

from __future__ import annotations

import json

from conftest import ETH_ACCOUNT, ok, result_of
from support import new_wallet

from simulator.control.control_client import ControlClient
from simulator.standins import chain as chain_standin
from simulator.standins import longtail

TRACK_KEYS = ["createdMs", "polls", "steps"]


def exported(simulator):
    """The state document as plain JSON, and the simulator reset (so the import is what brings it back)."""
    control = ControlClient(simulator.url)
    state = json.loads(json.dumps(control.state()))
    control.reset()
    return control, state


def org_of(state):
    orgs = state["store"]["orgs"]
    return next(o for o in orgs.values() if o.get("longtail"))


def test_a_rule_wait_keeps_polls_left_and_goes_on_after_an_import(client, simulator):
    simulator.simulator.rules.append(
        {"name": "two polls", "match": {"type": "CREATE_WALLET"}, "outcome": "allow", "after": {"polls": 2}}
    )
    made = ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}))
    activity_id = made["activity"]["id"]
    assert ok(client.query("get_activity", activityId=activity_id))["activity"]["status"] == "ACTIVITY_STATUS_PENDING"
    control, state = exported(simulator)
    pending = state["store"]["activities"][activity_id]["pending"]
    assert (pending["polls_left"], pending["ready_at_ms"]) == (1, None)
    assert "wait" not in pending
    control.import_state(state)
    done = ok(client.query("get_activity", activityId=activity_id))["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_a_long_tail_status_keeps_its_track_and_goes_on_after_an_import(client, simulator):
    script = {
        "name": "fails on the second poll",
        "match": {"type": "INIT_FIAT_ON_RAMP"},
        "sequence": [{"status": "PENDING"}, {"status": "FAILED", "after": {"polls": 2}}],
    }
    longtail.apply_section(simulator.simulator.store, {"statuses": [script]})
    address = new_wallet(client, "buyer", [ETH_ACCOUNT])["addresses"][0]
    params = {
        "onrampProvider": "FIAT_ON_RAMP_PROVIDER_MOONPAY",
        "walletAddress": address,
        "network": "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM",
        "cryptoCurrencyCode": "FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH",
    }
    made = result_of(
        client.submit("init_fiat_on_ramp", "ACTIVITY_TYPE_INIT_FIAT_ON_RAMP", params), "initFiatOnRampResult"
    )
    transaction_id = made["onRampTransactionId"]
    status = ok(client.query("get_onramp_transaction_status", transactionId=transaction_id))
    assert status == {"transactionStatus": "PENDING"}
    control, state = exported(simulator)
    track = org_of(state)["longtail"]["onrampTransactions"][transaction_id]["track"]
    assert list(track) == TRACK_KEYS and track["polls"] == 1
    assert [step["status"] for step in track["steps"]] == ["PENDING", "FAILED"]
    control.import_state(state)
    status = ok(client.query("get_onramp_transaction_status", transactionId=transaction_id))
    assert status == {"transactionStatus": "FAILED"}


def test_a_sent_transaction_keeps_its_track_and_goes_on_after_an_import(client, simulator):
    script = {"name": "stays broadcasting", "match": {"type": "ETH_SEND_TRANSACTION"}, "outcome": "stuck"}
    chain_standin.apply_section(simulator.simulator.store, {"statuses": [script]})
    sender = new_wallet(client, "sender", [ETH_ACCOUNT])["addresses"][0]
    params = {"from": sender, "caip2": "eip155:8453", "calls": [{"to": "0x" + "ab" * 20, "value": "1"}]}
    status_id = result_of(
        client.submit("eth_send_transaction", "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2", params),
        "ethSendTransactionResultV2",
    )["sendTransactionStatusId"]
    control, state = exported(simulator)
    sent = state["store"]["sent_transactions"][status_id]
    assert list(sent["track"]) == TRACK_KEYS and sent["track"]["polls"] == 0
    control.import_state(state)
    simulator.simulator.clock.advance(60)
    status = ok(client.query("get_send_transaction_status", sendTransactionStatusId=status_id))
    assert status == {"txStatus": "BROADCASTING"}  # a stuck transaction never leaves it
