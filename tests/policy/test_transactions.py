"""The transaction policy language: eth.tx, eth.eip_712, eth.eip_7702_authorization, solana.tx, tron.tx,
bitcoin.tx (and tempo.tx), against hand-built views shaped as the language page names their fields."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from simulator.consensus.engine import policy_outcome
from simulator.policy.language import PolicyKeywordUnavailable, PolicySyntaxError, Verdict, compile_expression
from simulator.state.records import Policy

CONTRACT = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
RECIPIENT = "0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7"
TWO_HUNDRED_ETH = 200 * 10**18  # beyond 64 bits
ETH_TX: dict[str, Any] = {
    "from": "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23",
    "to": CONTRACT,
    "data": "0xa9059cbb" + "0" * 24 + RECIPIENT[2:] + f"{10**17:064x}",
    "value": TWO_HUNDRED_ETH,
    "gas": 21000,
    "gas_price": 30 * 10**9,
    "chain_id": 11155111,
    "nonce": 3,
    "max_fee_per_gas": 30 * 10**9,
    "max_priority_fee_per_gas": 2 * 10**9,
    "max_fee_per_blob_gas": 0,
    "type": "TYPE_2",
    "function_name": "transfer",
    "function_signature": "0xa9059cbb",
    "contract_call_args": {
        "dst": RECIPIENT,
        "wad": 10**17,
        "calls": [[CONTRACT, 0, "0x"], [CONTRACT, 0, "0x1234"]],
    },
}
USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
EIP_712: dict[str, Any] = {
    "primary_type": "PermitBatchTransferFrom",
    "domain": {
        "name": "Permit2",
        "version": "",
        "chain_id": 1,
        "verifying_contract": "0x000000000022d473030f116ddee9f6b43ac78ba3",
    },
    "message": {"permitted": [{"token": USDC, "amount": 5 * 10**7}, {"token": USDC, "amount": 10**6}], "nonce": 0},
}
AUTHORIZATION = {"address": "0x63c0c19a282a1b52b07dd5a65b58948a07dae32b", "chain_id": 1, "nonce": 7}
SYSTEM = "11111111111111111111111111111111"
TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
PAYER, PAYEE, MINT = (
    "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
    "2q7pyhPwAwZ3QMfZrnAbDhnh9mDUqycszcpf86VgQxhF",
    "EPjF",
)
SOLANA_TX: dict[str, Any] = {
    "account_keys": [PAYER, PAYEE, SYSTEM],
    "program_keys": [SYSTEM],
    "instructions": [
        {
            "program_key": SYSTEM,
            "accounts": [
                {"account_key": PAYER, "signer": True, "writable": True},
                {"account_key": PAYEE, "signer": False, "writable": True},
            ],
            "instruction_data_hex": "0200000040420f0000000000",
            "address_table_lookups": [],
            "parsed_instruction_data": None,
        }
    ],
    "transfers": [{"from": PAYER, "to": PAYEE, "amount": 1_000_000}],
    "spl_transfers": [],
    "recent_blockhash": "EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k",
    "address_table_lookups": [],
}
SPL_TRANSFER = {"from": "Src1", "to": "Dst1", "amount": 5, "owner": PAYER, "signers": [], "token_mint": MINT}
TRON_TX: dict[str, Any] = {
    "ref_block_bytes": "6b8f",
    "ref_block_hash": "0b7ae36b6a1c9b45",
    "expiration": 1_700_000_060_000,
    "timestamp": 1_700_000_000_000,
    "data": "",
    "fee_limit": 100_000_000,
    "contract": [
        {
            "type": "TriggerSmartContract",
            "permission_id": 0,
            "owner_address": "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
            "contract_address": "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf",
            "call_value": 0,
            "data": "a9059cbb" + "0" * 64 + f"{10**6:064x}",
            "call_token_value": 0,
            "token_id": 0,
        }
    ],
}
TRON_TRANSFER = {
    "type": "TransferContract",
    "permission_id": 0,
    "owner_address": "TJRab",
    "to_address": "TXYZ",
    "amount": 5,
}
UTXO = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"
BITCOIN_TX: dict[str, Any] = {
    "version": "2",
    "inputs": [{"tx_id": UTXO, "vout": 0, "sequence": 4294967293}],
    "outputs": [
        {"value": 150_000, "script_pubkey": "0014" + "ab" * 20, "address": "bc1q4w46h2at", "address_type": "p2wpkh"},
        {"value": 40_000, "script_pubkey": "0014" + "cd" * 20, "address": "bc1qehxumnw", "address_type": "p2wpkh"},
    ],
    "locktime": {"amount": 0, "type": "Blocks"},
    "fee": 9_000,
}
WALLET = {"id": "w-1", "label": "treasury", "imported": False, "exported": False}
ACCOUNT = {"address": ETH_TX["from"]}


def sign(namespace: str, view: dict[str, Any], **targets: Any) -> dict[str, Any]:
    """The context the engine builds for a signature: the nested view, the activity, the signer."""
    root, leaf = namespace.split(".")
    activity = {"type": "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "action": "SIGN", "resource": "PRIVATE_KEY"}
    return {root: {leaf: copy.deepcopy(view)}, "activity": activity, **targets}


def run(text: str, context: dict[str, Any]) -> bool:
    return compile_expression(text).evaluate(context)


def refusal(text: str) -> str:
    with pytest.raises(PolicySyntaxError) as caught:
        compile_expression(text)
    return str(caught.value)


# -- eth.tx -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"eth.tx.to == '{CONTRACT}' && eth.tx.data[0..10] == '0xa9059cbb'", True),
        (f"eth.tx.to == '{CONTRACT}' && eth.tx.data[0..10] == '0x095ea7b3'", False),
        (f"eth.tx.data[34..74] == '{RECIPIENT[2:]}'", True),
        ("eth.tx.chain_id == 11155111", True),
        ("eth.tx.chain_id == 1", False),
        ("eth.tx.nonce <= 3 && eth.tx.type == 'TYPE_2'", True),
        ("eth.tx.gas_price == eth.tx.max_fee_per_gas", True),
        (
            f"eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '{RECIPIENT}'",
            True,
        ),
        ("eth.tx.contract_call_args['wad'] < 100000000000000000", False),
        (f"eth.tx.to == '{CONTRACT}' && eth.tx.function_name == 'transfer'", True),
        ("eth.tx.function_signature == '0xa9059cbb'", True),
        ("eth.tx.contract_call_args['calls'].count() == 2", True),
        (f"eth.tx.contract_call_args['calls'].all(call, call[0] == '{CONTRACT}' && call[1] == 0)", True),
        ("eth.tx.contract_call_args['calls'].any(call, call[2] == '0x1234')", True),
        ("eth.tx.contract_call_args['calls'].filter(call, call[2] != '0x').count() == 1", True),
        ("eth.tx.contract_call_args['recipients'].all(a, a in ['x'])", True),  # absent arg: an empty list
        ("'dst' in eth.tx.contract_call_args", True),
        ("eth.tx.from.contains('2c7536')", True),
    ],
)
def test_eth_tx(text: str, expected: bool) -> None:
    assert run(text, sign("eth.tx", ETH_TX)) is expected


@pytest.mark.parametrize("encode", [int, str, hex], ids=["int", "decimal string", "hex string"])
def test_wei_beyond_64_bits_compare_exactly_however_the_view_holds_them(encode: Any) -> None:
    context = sign("eth.tx", {**ETH_TX, "value": encode(TWO_HUNDRED_ETH), "chain_id": encode(11155111)})
    assert run("eth.tx.value > 18446744073709551615", context) is True
    assert run("eth.tx.value == 200000000000000000000", context) is True
    assert run("eth.tx.value < 200000000000000000001 && eth.tx.value >= 199999999999999999999", context) is True
    assert run("eth.tx.value <= 199999999999999999999", context) is False
    assert run("eth.tx.chain_id == 11155111", context) is True
    # the largest uint literal the language has, and one past it
    assert run(f"eth.tx.value < {2**256 - 1}", context) is True
    assert "256 bits" in refusal(f"eth.tx.value < {2**256}")


def test_int_normalisation_does_not_touch_the_callers_view_or_undocumented_fields() -> None:
    context = sign("eth.tx", {**ETH_TX, "value": "5", "to": "12"})
    before = copy.deepcopy(context)
    assert run("eth.tx.value == 5 && eth.tx.to == '12'", context) is True
    assert context == before


def test_a_string_is_not_an_int_outside_the_documented_int_fields() -> None:
    context = sign("eth.tx", {**ETH_TX, "contract_call_args": {"wad": "5"}})
    assert run("eth.tx.contract_call_args['wad'] == '5'", context) is True
    verdict = compile_expression("eth.tx.contract_call_args['wad'] < 10").check(context)
    assert verdict == Verdict(False, "'<' cannot compare a string with an int")


def test_named_access_to_a_positional_tuple_errors_as_the_docs_say() -> None:
    verdict = compile_expression("eth.tx.contract_call_args['calls'].all(c, c['target'] == 'x')").check(
        sign("eth.tx", ETH_TX)
    )
    assert verdict.errored and not verdict.matched and verdict.missing == ()
    assert "cannot index a list with a string" in str(verdict.error)


# -- eth.eip_712 and eth.eip_7702_authorization -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("eth.eip_712.domain.name == 'Permit2' && eth.eip_712.primary_type == 'PermitBatchTransferFrom'", True),
        ("eth.eip_712.domain.name == 'USD Coin' && eth.eip_712.primary_type == 'Permit'", False),
        (f"eth.eip_712.message['permitted'][0]['token'] == '{USDC}'", True),
        (f"eth.eip_712.message['permitted'].all(p, p['token'] == '{USDC}')", True),
        ("eth.eip_712.message['permitted'].count() <= 2", True),
        (f"eth.eip_712.message['permitted'].any(p, p['token'] == '{USDC}' && p['amount'] < 100000000)", True),
        ("eth.eip_712.message['permitted'].all(p, p['amount'] < 10000000)", False),
        ("eth.eip_712.domain.chain_id == 1 && eth.eip_712.domain.verifying_contract.contains('22d4')", True),
        ("activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && eth.eip_712.domain.name == 'Permit2'", True),
    ],
)
def test_eip_712(text: str, expected: bool) -> None:
    context = {"eth": {"eip_712": EIP_712}, "activity": {"type": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"}}
    assert run(text, context) is expected


def test_eip_712_domain_chain_id_is_a_uint_even_as_a_string() -> None:
    context = {"eth": {"eip_712": {**EIP_712, "domain": {**EIP_712["domain"], "chain_id": "1"}}}}
    assert run("eth.eip_712.domain.chain_id == 1", context) is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"eth.eip_7702_authorization.address == '{AUTHORIZATION['address']}'", True),
        ("eth.eip_7702_authorization.chain_id == 1 && eth.eip_7702_authorization.nonce == 7", True),
        ("eth.eip_7702_authorization.nonce > 7", False),
        ("eth.eip_7702_authorization.address == '0x0000000000000000000000000000000000000000'", False),
    ],
)
def test_eip_7702_authorization(text: str, expected: bool) -> None:
    assert run(text, {"eth": {"eip_7702_authorization": AUTHORIZATION}}) is expected


# -- solana.tx ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"solana.tx.transfers.all(transfer, transfer.from == '{PAYER}')", True),
        (f"solana.tx.transfers.count == 1 && solana.tx.transfers[0].to == '{PAYEE}'", True),
        (f"solana.tx.transfers.count() == 1 && solana.tx.transfers[0].to == '{PAYER}'", False),
        (f"solana.tx.program_keys.all(p, p == '{SYSTEM}')", True),
        ("solana.tx.transfers.any(transfer, transfer.to == 'BAD')", False),
        ("solana.tx.transfers.all(t, t.amount <= 1000000)", True),
        ("solana.tx.instructions[0].instruction_data_hex == '0200000040420f0000000000'", True),
        ("solana.tx.instructions[0].instruction_data_hex[0..8] == '02000000'", True),
        (f"solana.tx.instructions[0].accounts[0].account_key == '{PAYER}'", True),
        ("solana.tx.instructions.all(i, i.accounts.filter(a, a.signer).count() == 1)", True),
        ("solana.tx.instructions.any(i, i.accounts.any(a, a.writable && !a.signer))", True),
        ("solana.tx.address_table_lookups.count() > 0", False),
        ("solana.tx.address_table_lookups.count == 0", True),
        (
            "solana.tx.transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP') || solana.tx.spl_transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP')",
            False,
        ),
        ("solana.tx.instructions.count() == solana.tx.spl_transfers.count()", False),
        (f"solana.tx.account_keys.contains('{PAYEE}') && solana.tx.recent_blockhash[0..4] == 'EETu'", True),
        ("solana.tx.instructions.all(i, i.parsed_instruction_data.instruction_name == 'transfer')", False),
    ],
)
def test_solana_tx(text: str, expected: bool) -> None:
    verdict = compile_expression(text).check(sign("solana.tx", SOLANA_TX))
    assert verdict == Verdict(expected), verdict


def test_solana_spl_transfers_and_lookups() -> None:
    lookup = {"address_table_key": "Table1", "writable_indexes": [0], "readonly_indexes": ["1"]}
    view = {
        **SOLANA_TX,
        "instructions": [{**SOLANA_TX["instructions"][0], "program_key": TOKEN}],
        "spl_transfers": [{**SPL_TRANSFER, "signers": ["Cosigner"], "amount": "5"}],
        "address_table_lookups": [lookup],
    }
    context = sign("solana.tx", view)
    assert run("solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1", context) is True
    assert run("solana.tx.spl_transfers.all(t, t.amount < 6 && t.token_mint == 'EPjF')", context) is True
    assert run("solana.tx.spl_transfers.all(t, t.signers.any(s, s == 'Cosigner'))", context) is True
    assert run(f"solana.tx.spl_transfers.all(t, t.owner == '{PAYER}')", context) is True
    assert run("solana.tx.address_table_lookups.count() > 0", context) is True
    assert run("solana.tx.address_table_lookups[0].readonly_indexes.contains(1)", context) is True


# -- tron.tx and bitcoin.tx ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "tron.tx.contract[0].contract_address == 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' && tron.tx.contract[0].data[0..8] == 'a9059cbb'",
            True,
        ),
        ("tron.tx.contract[0].data[0..8] == '095ea7b3'", False),
        ("tron.tx.contract[0].type == 'TriggerSmartContract' && tron.tx.contract[0].call_value == 0", True),
        ("tron.tx.contract[0].type == 'TransferContract'", False),
        ("tron.tx.fee_limit <= 100000000 && tron.tx.expiration > tron.tx.timestamp", True),
        ("tron.tx.contract.count() == 1 && tron.tx.contract.all(c, c.permission_id == 0)", True),
        ("tron.tx.contract[0].amount < 10000000", False),  # no amount on a TriggerSmartContract
    ],
)
def test_tron_tx(text: str, expected: bool) -> None:
    assert run(text, sign("tron.tx", TRON_TX)) is expected


def test_tron_transfer_and_permissions() -> None:
    permission = {"type": "Active", "id": "2", "permission_name": "ops", "threshold": 2, "parent_id": 0,
                  "operations": "7fff1fc0033e0000000000000000000000000000000000000000000000000000",
                  "keys": [{"address": "TA", "weight": "1"}, {"address": "TB", "weight": 1}]}  # fmt: skip
    update = {"type": "AccountPermissionUpdateContract", "permission_id": 0, "owner_address": "TJRab",
              "actives": [permission]}  # fmt: skip
    transfer = sign("tron.tx", {**TRON_TX, "contract": [TRON_TRANSFER]})
    assert run("tron.tx.contract[0].amount < 10000000 && tron.tx.contract[0].to_address == 'TXYZ'", transfer) is True
    permissions = sign("tron.tx", {**TRON_TX, "contract": [update]})
    assert run("tron.tx.contract[0].actives.all(p, p.id == 2 && p.keys.all(k, k.weight == 1))", permissions) is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("bitcoin.tx.outputs.all(o, o.address == 'bc1q4w46h2at')", False),
        ("bitcoin.tx.outputs.any(o, o.address == 'bc1q4w46h2at')", True),
        ("bitcoin.tx.outputs.all(o, o.value < 200000)", True),
        ("bitcoin.tx.outputs.all(o, o.value < 100000)", False),
        (f"bitcoin.tx.inputs.all(i, i.tx_id == '{UTXO}' && i.vout == 0)", True),
        ("bitcoin.tx.fee <= 10000", True),
        ("bitcoin.tx.fee > 50000", False),
        ("bitcoin.tx.version == '2' && bitcoin.tx.locktime.type == 'Blocks' && bitcoin.tx.locktime.amount == 0", True),
        ("bitcoin.tx.outputs.filter(o, o.address_type == 'p2wpkh').count() == 2", True),
        ("bitcoin.tx.outputs[0].script_pubkey[0..4] == '0014'", True),
        ("bitcoin.tx.inputs.all(i, i.sequence < 4294967294)", True),
    ],
)
def test_bitcoin_tx(text: str, expected: bool) -> None:
    assert run(text, sign("bitcoin.tx", BITCOIN_TX)) is expected


# -- keywords the request does not provide --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "context", "missing", "provides"),
    [
        ("eth.tx.value > 0", sign("solana.tx", SOLANA_TX), ("eth.tx",), "it provides solana.tx"),
        ("solana.tx.transfers.count() == 1", sign("eth.tx", ETH_TX), ("solana.tx",), "it provides eth.tx"),
        ("eth.eip_712.primary_type == 'Permit'", sign("eth.tx", ETH_TX), ("eth.eip_712",), "it provides eth.tx"),
        ("eth.tx.to == 'x'", {"eth": {"eip_712": EIP_712}}, ("eth.tx",), "it provides eth.eip_712"),
        ("bitcoin.tx.fee < 1", {"activity": {"type": "ACTIVITY_TYPE_CREATE_WALLET"}}, ("bitcoin.tx",), "no parsed"),
        ("tempo.tx.chain_id == 42431", sign("eth.tx", ETH_TX), ("tempo.tx",), "TRANSACTION_TYPE_TEMPO"),
        (
            "tron.tx.data == '' || eth.tx.nonce == 1",
            sign("bitcoin.tx", BITCOIN_TX),
            ("eth.tx", "tron.tx"),
            "bitcoin.tx",
        ),
    ],
)
def test_reading_another_chains_transaction_is_an_error_not_a_mismatch(
    text: str, context: dict[str, Any], missing: tuple[str, ...], provides: str
) -> None:
    verdict = compile_expression(text).check(context)
    assert verdict.errored and not verdict.matched
    assert verdict.missing == missing
    assert "MissingField" in str(verdict.error) and provides in str(verdict.error)
    with pytest.raises(PolicyKeywordUnavailable) as caught:
        compile_expression(text).evaluate(context)
    assert caught.value.keywords == missing


@pytest.mark.parametrize(
    "text",
    [
        "false && eth.tx.value > 0",
        "true || eth.tx.value > 0",
        "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && eth.eip_712.domain.name == 'USD Coin'",
        "[].any(x, eth.tx.value > 0)",
    ],
)
def test_no_short_circuit_past_an_unavailable_keyword(text: str) -> None:
    assert compile_expression(text).check(sign("solana.tx", SOLANA_TX)).errored


def test_a_mismatch_is_not_an_error() -> None:
    assert compile_expression("eth.tx.chain_id == 1").check(sign("eth.tx", ETH_TX)) == Verdict(False)
    assert compile_expression("eth.tx.chain_id == 11155111").check(sign("eth.tx", ETH_TX)) == Verdict(True)
    assert compile_expression("eth.tx.function_name == 'x'").check(
        sign("eth.tx", {**ETH_TX, "function_name": None})
    ) == Verdict(False)


def test_the_engine_records_an_error_for_the_wrong_chain() -> None:
    allow = Policy("p-1", "eth only", "EFFECT_ALLOW", 0, condition="eth.tx.chain_id == 11155111")
    assert policy_outcome(allow, sign("eth.tx", ETH_TX)) == "OUTCOME_ALLOW"
    assert policy_outcome(allow, sign("eth.tx", {**ETH_TX, "chain_id": 1})) is None
    assert policy_outcome(allow, sign("solana.tx", SOLANA_TX)) == "OUTCOME_ERROR"


# -- signing targets -----------------------------------------------------------------------------------------


def test_target_fields() -> None:
    context = sign("eth.tx", ETH_TX, wallet=WALLET, wallet_account=ACCOUNT)
    assert run("activity.action == 'SIGN' && wallet.id == 'w-1'", context) is True
    assert run(f"wallet_account.address == '{ETH_TX['from']}' && wallet.label == 'treasury'", context) is True
    assert run("!wallet.imported && !wallet.exported", context) is True
    keyed = sign("eth.tx", ETH_TX, private_key={"id": "pk-1", "tags": ["hot"], "imported": True, "exported": False})
    assert run("private_key.id == 'pk-1' && private_key.tags.contains('hot') && private_key.imported", keyed) is True


def test_strict_targets_error_on_a_target_the_request_lacks_as_the_docs_say() -> None:
    text = "wallet.id == 'w-1' || private_key.id == 'pk-1'"
    context = sign("eth.tx", ETH_TX, wallet=WALLET, wallet_account=ACCOUNT)
    assert compile_expression(text).check(context) == Verdict(True)
    verdict = compile_expression(text).check(context, strict_targets=True)
    assert verdict.errored and verdict.missing == ("private_key",)
    assert "private_key (not a target of this request)" in str(verdict.error)
    assert compile_expression("wallet.id == 'w-1'").check(context, strict_targets=True) == Verdict(True)


# -- compile time ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("eth == 1", ["unsupported construct 'eth == 1' at 0", "'eth' is not a keyword by itself", "eth.tx"]),
        ("eth.transaction.to == 'x'", ["'eth.transaction' is not a keyword", "eth.eip_7702_authorization"]),
        ("eth.tx.vaule > 5", ["'vaule' is not a field of eth.tx", "max_fee_per_blob_gas"]),
        ("eth.tx.access_list.count() > 0", ["'access_list' is not a field of eth.tx"]),
        ("eth.tx.authorization_list.any(a, true)", ["'authorization_list' is not a field of eth.tx"]),
        ("solana.tx.signatures.count() == 1", ["'signatures' is not a field of solana.tx"]),
        ("bitcoin['tx'].fees < 1", ["'fees' is not a field of bitcoin.tx", "fee"]),
        ("tron.tx.contracts[0].amount < 1", ["'contracts' is not a field of tron.tx"]),
        ("solana.transfers.count() == 1", ["'solana.transfers' is not a keyword", "solana.tx"]),
        ("activity.action == 'SIGN' && tempo.tx.gas > 1", ["at 29", "'gas' is not a field of tempo.tx"]),
        ("Now('2025-01-01T00:00:00Z') > 1", ["'Now(...)'", "function calls"]),
        ("1" * 5000 + " > 1", ["256 bits"]),
    ],
)
def test_refusals_name_the_construct(text: str, fragments: list[str]) -> None:
    message = refusal(text)
    for fragment in fragments:
        assert fragment in message, message


def test_the_keywords_an_expression_reads() -> None:
    text = "wallet.id == 'w' && eth.tx.contract_call_args['a'].any(eth, eth == solana.tx.recent_blockhash) || bitcoin.tx.fee > 1"
    assert compile_expression(text).reads == {"wallet", "eth.tx", "solana.tx", "bitcoin.tx"}
    assert "unsupported" in refusal(text.replace("solana.tx.recent_blockhash", "solana.tx.x"))
    assert compile_expression("[1, 2].any(solana, solana == 2)").reads == frozenset()
    assert compile_expression("approvers.any(u, u.id == eth.tx.from)").reads == {"eth.tx"}
    assert compile_expression("").reads == frozenset()
