"""The broadcast stand-in through the HTTP surface: eth_send_transaction (V1, V2, sponsored, batches),
eth_send_raw_transaction, eth_undelegate_7702, sol_send_transaction (V1, V2), statuses on the simulator
clock, scripted outcomes, nonces, gas usage and history. Every signed transaction the stand-in keeps is
recovered by eth-account (EVM) or verified with PyNaCl (Solana), never by the simulator's own code.
"""

from __future__ import annotations

import base64

import base58
import pytest
from conftest import ETH_ACCOUNT, ok, result_of
from eth_account import Account
from eth_account.typed_transactions import TypedTransaction
from eth_utils import keccak
from hexbytes import HexBytes
from nacl.signing import VerifyKey
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.message import Message, MessageV0, to_bytes_versioned
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction
from support import SOL_ACCOUNT, assert_error

from simulator.standins import chain as chain_standin

RECIPIENT = "0x" + "ab" * 20
SYSTEM = Pubkey.from_string("11111111111111111111111111111111")
BLOCKHASH = Hash.from_string("4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM")
V2, V1 = "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2", "ACTIVITY_TYPE_ETH_SEND_TRANSACTION"


@pytest.fixture
def accounts(client):
    made = result_of(
        client.submit(
            "create_wallet",
            "ACTIVITY_TYPE_CREATE_WALLET",
            {
                "walletName": "broadcast",
                "accounts": [ETH_ACCOUNT, SOL_ACCOUNT, {**SOL_ACCOUNT, "path": "m/44'/501'/1'/0'"}],
            },
        ),
        "createWalletResult",
    )
    return made["addresses"]


def send(client, params, activity_type=V2):
    return result_of(
        client.submit("eth_send_transaction", activity_type, params),
        "ethSendTransactionResultV2" if activity_type == V2 else "ethSendTransactionResult",
    )["sendTransactionStatusId"]


def status(client, status_id):
    return ok(client.query("get_send_transaction_status", sendTransactionStatusId=status_id))


def kept(simulator, status_id):
    return simulator.simulator.store.sent_transactions[status_id]


def transfer_tx(payer: str, to: str, lamports: int, v0: bool = False, signers: tuple[str, ...] = ()) -> bytes:
    keys = [Pubkey.from_string(payer), *(Pubkey.from_string(s) for s in signers)]
    metas = [AccountMeta(k, True, True) for k in keys] + [AccountMeta(Pubkey.from_string(to), False, True)]
    data = (2).to_bytes(4, "little") + lamports.to_bytes(8, "little")
    instruction = Instruction(SYSTEM, data, metas)
    if v0:
        message = MessageV0.try_compile(keys[0], [instruction], [], BLOCKHASH)
    else:
        message = Message.new_with_blockhash([instruction], keys[0], BLOCKHASH)
    return bytes(VersionedTransaction.populate(message, [Signature.default()] * message.header.num_required_signatures))


def verify_solana(signed_hex: str, signers: list[str]) -> None:
    tx = VersionedTransaction.from_bytes(bytes.fromhex(signed_hex))
    message = to_bytes_versioned(tx.message)
    for signer, signature in zip(signers, tx.signatures):
        VerifyKey(base58.b58decode(signer)).verify(message, bytes(signature))


def test_an_eip1559_send_is_signed_hashed_and_moves_to_included(client, simulator, accounts):
    eth = accounts[0]
    status_id = send(client, {"from": eth, "caip2": "eip155:8453", "calls": [{"to": RECIPIENT, "value": "1000"}]})
    assert status(client, status_id) == {"txStatus": "BROADCASTING"}  # the poll counts before it is answered
    simulator.clock.advance(5)
    included = status(client, status_id)
    sent = kept(simulator, status_id)
    raw = bytes.fromhex(sent.signed)
    assert included == {"txStatus": "INCLUDED", "eth": {"txHash": "0x" + keccak(raw).hex()}}
    assert Account.recover_transaction(raw).lower() == eth.lower()
    decoded = TypedTransaction.from_bytes(HexBytes(raw)).as_dict()
    assert (decoded["chainId"], decoded["nonce"], decoded["value"], "0x" + bytes(decoded["to"]).hex()) == (
        8453,
        0,
        1000,
        RECIPIENT,
    )
    assert ok(client.query("get_nonces", address=eth, caip2="eip155:8453", nonce=True)) == {"nonce": "1"}


def test_v1_fields_nonce_and_fees_are_used_as_given(client, simulator, accounts):
    params = {
        "from": accounts[0],
        "caip2": "eip155:1",
        "to": RECIPIENT,
        "value": "5",
        "data": "0xa9059cbb",
        "nonce": "9",
        "gasLimit": "90000",
        "maxFeePerGas": "40000000000",
        "maxPriorityFeePerGas": "2000000000",
    }
    raw = bytes.fromhex(kept(simulator, send(client, params, V1)).signed)
    decoded = TypedTransaction.from_bytes(HexBytes(raw)).as_dict()
    assert (decoded["nonce"], decoded["gas"], decoded["maxFeePerGas"], decoded["data"]) == (
        9,
        90000,
        40 * 10**9,
        b"\xa9\x05\x9c\xbb",
    )
    assert Account.recover_transaction(raw).lower() == accounts[0].lower()
    nonces = ok(client.query("get_nonces", address=accounts[0], caip2="eip155:1", nonce=True, gasStationNonce=True))
    assert nonces == {"nonce": "10", "gasStationNonce": "0"}


def test_sponsored_and_batched_sends_are_recorded_with_their_gas_station_nonce(client, simulator, accounts):
    eth = accounts[0]
    sponsored = send(
        client, {"from": eth, "caip2": "eip155:8453", "sponsor": True, "calls": [{"to": RECIPIENT, "value": "7"}]}
    )
    batch = send(
        client,
        {
            "from": eth,
            "caip2": "eip155:8453",
            "calls": [{"to": RECIPIENT, "value": "1"}, {"to": RECIPIENT, "data": "0x01"}],
        },
    )
    assert kept(simulator, sponsored).sponsored and kept(simulator, sponsored).details["gasStationNonce"] == 0
    assert kept(simulator, batch).details["gasStationNonce"] == 1 and kept(simulator, batch).nonce == 0
    nonces = ok(client.query("get_nonces", address=eth, caip2="eip155:8453", nonce=True, gasStationNonce=True))
    assert nonces == {"nonce": "1", "gasStationNonce": "2"}
    usage = ok(client.query("get_gas_usage"))
    assert usage["windowDurationMinutes"] == 1440 and float(usage["usageUsd"]) > 0


def test_raw_transactions_are_broadcast_with_their_hash_and_nonce_checked(client, simulator):
    signer = Account.from_key("0x" + "11" * 32)
    tx = {
        "to": "0xABaBaBaBABabABabAbAbABAbABabababaBaBABaB",
        "value": 3,
        "gas": 21000,
        "maxFeePerGas": 10**10,
        "maxPriorityFeePerGas": 10**9,
        "nonce": 0,
        "chainId": 1,
    }
    raw = bytes(signer.sign_transaction(tx).raw_transaction)
    answer = result_of(
        client.submit(
            "eth_send_raw_transaction",
            "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION",
            {"signedTransaction": "0x" + raw.hex(), "caip2": "eip155:1"},
        ),
        "ethSendRawTransactionResult",
    )
    assert answer == {"transactionHash": "0x" + keccak(raw).hex()}
    again = client.submit(
        "eth_send_raw_transaction",
        "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION",
        {"signedTransaction": raw.hex(), "caip2": "eip155:1"},
    )
    assert_error(again, 400, 3, "nonce too low")
    wrong_chain = client.submit(
        "eth_send_raw_transaction",
        "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION",
        {"signedTransaction": raw.hex(), "caip2": "eip155:10"},
    )
    assert assert_error(wrong_chain, 400, 3, "chain id 1")["turnkeyErrorCode"] == "INVALID_TRANSACTION"
    garbage = client.submit(
        "eth_send_raw_transaction",
        "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION",
        {"signedTransaction": "0xzz", "caip2": "eip155:1"},
    )
    assert_error(garbage, 400, 3, "hex")


def test_undelegation_is_a_signed_type_4_transaction_to_the_zero_address(client, simulator, accounts):
    eth = accounts[0]
    answer = result_of(
        client.submit("eth_undelegate_7702", "ACTIVITY_TYPE_ETH_UNDELEGATE_7702", {"from": eth, "caip2": "eip155:1"}),
        "ethUndelegate7702Result",
    )
    raw = bytes.fromhex(kept(simulator, answer["sendTransactionStatusId"]).signed)
    assert raw[0] == 4 and Account.recover_transaction(raw).lower() == eth.lower()
    authorization = TypedTransaction.from_bytes(HexBytes(raw)).as_dict()["authorizationList"][0]
    assert bytes(authorization["address"]) == bytes(20) and authorization["nonce"] == 1
    digest = keccak(b"\x05" + __import__("rlp").encode([1, bytes(20), 1]))
    authority = Account._recover_hash(digest, vrs=(authorization["yParity"], authorization["r"], authorization["s"]))
    assert authority.lower() == eth.lower()
    assert ok(client.query("get_nonces", address=eth, caip2="eip155:1", nonce=True)) == {"nonce": "2"}


@pytest.mark.parametrize("v0", [False, True], ids=["legacy", "v0"])
def test_solana_sends_sign_every_listed_signer(client, simulator, accounts, v0):
    payer, cosigner = accounts[1], accounts[2]
    wire = transfer_tx(payer, str(Pubkey.from_bytes(bytes(32))), 5000, v0, (cosigner,))
    params = {"unsignedTransaction": wire.hex(), "signWiths": [payer, cosigner], "caip2": "solana:devnet"}
    status_id = result_of(
        client.submit("sol_send_transaction", "ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2", params),
        "solSendTransactionResultV2",
    )["sendTransactionStatusId"]
    sent = kept(simulator, status_id)
    verify_solana(sent.signed, [payer, cosigner])
    simulator.clock.advance(5)
    signature = VersionedTransaction.from_bytes(bytes.fromhex(sent.signed)).signatures[0]
    assert status(client, status_id) == {"txStatus": "INCLUDED", "solana": {"signature": str(signature)}}


def test_solana_v1_takes_base64_and_a_blockhash(client, simulator, accounts):
    payer = accounts[1]
    wire = transfer_tx(payer, accounts[2], 10)
    fresh = base58.b58encode(bytes(range(32))).decode()
    params = {
        "unsignedTransaction": base64.b64encode(wire).decode(),
        "signWith": payer,
        "caip2": "solana:mainnet",
        "recentBlockhash": fresh,
    }
    status_id = result_of(
        client.submit("sol_send_transaction", "ACTIVITY_TYPE_SOL_SEND_TRANSACTION", params), "solSendTransactionResult"
    )["sendTransactionStatusId"]
    signed = VersionedTransaction.from_bytes(bytes.fromhex(kept(simulator, status_id).signed))
    assert str(signed.message.recent_blockhash) == fresh
    verify_solana(kept(simulator, status_id).signed, [payer])


def test_a_missing_solana_signer_is_refused(client, accounts):
    wire = transfer_tx(accounts[1], accounts[2], 10, signers=(accounts[2],))
    params = {"unsignedTransaction": wire.hex(), "signWiths": [accounts[1]], "caip2": "solana:devnet"}
    refused = client.submit("sol_send_transaction", "ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2", params)
    assert assert_error(refused, 400, 3, accounts[2])["turnkeyErrorCode"] == "INVALID_TRANSACTION"


@pytest.mark.parametrize(
    ("params", "phrase"),
    [
        ({"to": "0x12"}, "invalid to"),
        ({"value": "-1"}, "invalid value"),
        ({"data": "0xabc"}, "invalid data"),
    ],
)
def test_bad_call_fields_are_refused(client, accounts, params, phrase):
    call = {"to": RECIPIENT, **params}
    refused = client.submit("eth_send_transaction", V2, {"from": accounts[0], "caip2": "eip155:1", "calls": [call]})
    assert_error(refused, 400, 3, phrase)


def test_senders_outside_the_organization_or_on_the_wrong_chain_are_refused(client, accounts):
    stranger = client.submit(
        "eth_send_transaction", V2, {"from": RECIPIENT, "caip2": "eip155:1", "calls": [{"to": RECIPIENT}]}
    )
    assert_error(stranger, 400, 3, "not a wallet account or private key address")
    solana = client.submit(
        "eth_send_transaction", V2, {"from": accounts[1], "caip2": "eip155:1", "calls": [{"to": RECIPIENT}]}
    )
    assert_error(solana, 400, 3, "cannot sign on eip155:1")
    unknown = client.query(
        "get_send_transaction_status", sendTransactionStatusId="00000000-0000-4000-8000-0000000000c1"
    )
    assert_error(unknown, 404, 5, "00000000-0000-4000-8000-0000000000c1")


@pytest.mark.parametrize("outcome", ["failed", "reverted", "stuck"])
def test_scripted_outcomes(client, simulator, accounts, outcome):
    with simulator.simulator.lock:
        chain_standin.apply_section(
            simulator.simulator.store,
            {"statuses": [{"name": outcome, "match": {"type": "ETH_SEND_TRANSACTION"}, "outcome": outcome}]},
        )
    status_id = send(client, {"from": accounts[0], "caip2": "eip155:1", "calls": [{"to": RECIPIENT, "value": "1"}]})
    simulator.clock.advance(10)
    answer = status(client, status_id)
    if outcome == "stuck":
        assert answer == {"txStatus": "BROADCASTING"}
        return
    assert answer["txStatus"] == "FAILED" and answer["txError"]
    assert ("eth" in answer) is (outcome == "reverted")
    if outcome == "reverted":
        assert answer["error"]["eth"]["revertChain"][0]["errorType"] == "NATIVE"


def test_polls_move_the_status_without_time(client, simulator, accounts):
    simulator.clock.freeze()
    status_id = send(client, {"from": accounts[0], "caip2": "eip155:1", "calls": [{"to": RECIPIENT}]})
    seen = [status(client, status_id)["txStatus"] for _ in range(3)]
    assert seen == ["BROADCASTING", "INCLUDED", "INCLUDED"]


def test_seeded_nonces_gas_usage_and_history(client, simulator, accounts):
    eth = accounts[0]
    with simulator.simulator.lock:
        chain_standin.apply_section(
            simulator.simulator.store,
            {
                "nonces": [
                    {"address": eth.upper().replace("0X", "0x"), "caip2": "eip155:1", "nonce": 41, "gasStationNonce": 3}
                ],
                "gasUsage": [
                    {
                        "organization": "Simulated Organization",
                        "windowDurationMinutes": 60,
                        "windowLimitUsd": "50",
                        "usageUsd": "12.5",
                    }
                ],
            },
        )
    assert ok(client.query("get_nonces", address=eth, caip2="eip155:1", nonce=True, gasStationNonce=True)) == {
        "nonce": "41",
        "gasStationNonce": "3",
    }
    assert ok(client.query("get_gas_usage")) == {
        "windowDurationMinutes": 60,
        "windowLimitUsd": "50",
        "usageUsd": "12.5",
    }
    ids = [
        send(client, {"from": eth, "caip2": "eip155:1", "calls": [{"to": RECIPIENT, "value": str(v)}]})
        for v in (1, 2, 3)
    ]
    simulator.clock.advance(10)
    first = ok(
        client.query("list_eth_transaction_history", address=eth, caip2="eip155:1", paginationOptions={"limit": "2"})
    )
    assert len(first["transactions"]) == 2 and first["pageInfo"]["hasNextPage"]
    item = first["transactions"][0]
    assert item["transfers"][0]["direction"] == "OUT" and item["transfers"][0]["counterparty"] == RECIPIENT
    assert item["status"] == "CONFIRMED" and item["turnkey"]["sponsored"] is False
    rest = ok(
        client.query(
            "list_eth_transaction_history",
            address=eth,
            caip2="eip155:1",
            paginationOptions={"after": first["pageInfo"]["endCursor"]},
        )
    )
    hashes = [t["transactionHash"] for t in first["transactions"] + rest["transactions"]]
    assert sorted(hashes) == sorted(kept(simulator, i).chain_id for i in ids)
    simulator.clock.advance(3600)
    later = ok(client.query("list_eth_transaction_history", address=eth, caip2="eip155:1"))
    assert {t["status"] for t in later["transactions"]} == {"FINALIZED"}
    private = client.query("list_eth_transaction_history", address=RECIPIENT, caip2="eip155:1")
    assert_error(private, 400, 3, "private key addresses are not supported")


def test_solana_history_shows_both_sides(client, simulator, accounts):
    payer, payee = accounts[1], accounts[2]
    params = {
        "unsignedTransaction": transfer_tx(payer, payee, 2_500_000_000).hex(),
        "signWiths": [payer],
        "caip2": "solana:devnet",
    }
    client.submit("sol_send_transaction", "ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2", params)
    simulator.clock.advance(5)
    received = ok(
        client.query("list_sol_transaction_history", address=payee, caip2="solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1")
    )
    item = received["transactions"][0]
    assert item["feePayer"] == payer and item["signers"] == [{"address": payer, "writable": True}]
    assert item["transfers"] == [
        {
            "direction": "IN",
            "asset": {
                "caip19": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1/slip44:501",
                "symbol": "SOL",
                "name": "Solana",
                "decimals": 9,
            },
            "amount": "2500000000",
            "counterparty": payer,
            "display": {"crypto": "2.5", "usd": "375.00"},
        }
    ]
    assert item["fee"] == {"amount": "5000", "caip19": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1/slip44:501"}
