"""Transaction policies through the HTTP surface, per chain namespace (eth.tx, solana.tx, tron.tx,
bitcoin.tx): a request a policy allows, one it denies, and a policy reading another chain's field,
which errors (the real engine does not short-circuit past it). The non-root Trader of the shipped
transfer_policies scenario makes every request.
"""

from __future__ import annotations

import pytest
from conftest import ok, result_of
from support import assert_error
from tx_builders import bitcoin_psbt, solana_key, solana_transfer, tron_transfer

pytestmark = pytest.mark.simulator_scenario("transfer_policies")
ORG = "7a0e0000-0000-4000-8000-00000000a001"
TREASURY_ETH, TREASURY_SOL = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "oeYf6KAJkLYhBuR8CiGc6L4D4Xtfepr85fuDgA9kq96"
ALLOWED, STRANGER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
PAYROLL = "7XYSwWKaQz9DBybcaszUHXBvj9c6AibpeH5R65BKKkaZ"
POLICY_NAMES = {
    "eth": "traders pay allow-listed recipients up to 1 ETH",
    "sol": "traders pay the payroll account up to 1 SOL",
    "approve": "nobody approves token spenders",
}


@pytest.fixture
def trader(simulator_user):
    return simulator_user("Trader")


@pytest.fixture
def root(simulator_user):
    return simulator_user("Root User")


def evaluations(simulator, response) -> dict[str, str]:
    """Policy name -> outcome of every policy that applied (matched or errored), from a denial's details."""
    names = {p.policy_id: p.name for p in simulator.simulator.store.orgs[ORG].policies.values()}
    found = [d for d in response.body["details"] if "policyEvaluations" in d]
    return {names.get(e.get("policyId"), "-"): e["outcome"] for e in found[0]["policyEvaluations"]}


def eth_send(client, to: str, value: str, data: str = "0x"):
    call = {"to": to, "value": value, "data": data}
    params = {"from": TREASURY_ETH, "caip2": "eip155:1", "calls": [call]}
    return client.submit("eth_send_transaction", "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2", params)


def sol_send(client, to: str, lamports: int):
    params = {
        "unsignedTransaction": solana_transfer(TREASURY_SOL, to, lamports),
        "signWiths": [TREASURY_SOL],
        "caip2": "solana:devnet",
    }
    return client.submit("sol_send_transaction", "ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2", params)


def test_eth_allow_list_and_cap_allow(trader):
    assert ok(eth_send(trader, ALLOWED, str(10**18)))["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


@pytest.mark.parametrize(
    ("to", "value"), [(STRANGER, "1"), (ALLOWED, str(10**18 + 1))], ids=["off the list", "over the cap"]
)
def test_eth_implicit_denials(trader, simulator, to, value):
    denied = eth_send(trader, to, value)
    assert_error(denied, 403, 7)
    assert evaluations(simulator, denied).get(POLICY_NAMES["eth"]) is None  # its condition did not match


def test_eth_denied_contract_method(trader, simulator):
    approve = "0x095ea7b3" + "00" * 12 + STRANGER[2:].lower() + "ff" * 32
    denied = eth_send(trader, ALLOWED, "0", approve)
    assert_error(denied, 403, 7)
    assert evaluations(simulator, denied)[POLICY_NAMES["approve"]] == "OUTCOME_DENY_EXPLICIT"


def test_eth_request_errors_the_solana_policy(trader, simulator):
    denied = eth_send(trader, STRANGER, "1")
    assert evaluations(simulator, denied)[POLICY_NAMES["sol"]] == "OUTCOME_ERROR"


def test_solana_allow_deny_and_the_eth_policies_error(trader, simulator):
    assert ok(sol_send(trader, PAYROLL, 10**9))["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    over = sol_send(trader, PAYROLL, 10**9 + 1)
    assert_error(over, 403, 7)
    elsewhere = sol_send(trader, solana_key("stranger"), 1)
    outcomes = evaluations(simulator, elsewhere)
    assert outcomes[POLICY_NAMES["eth"]] == "OUTCOME_ERROR" and outcomes[POLICY_NAMES["approve"]] == "OUTCOME_ERROR"


def add_accounts(root, *formats: tuple[str, str, str]) -> list[str]:
    wallet = next(iter(ok(root.query("list_wallets"))["wallets"]))["walletId"]
    accounts = [{"curve": c, "pathFormat": "PATH_FORMAT_BIP32", "path": p, "addressFormat": f} for c, p, f in formats]
    made = root.submit(
        "create_wallet_accounts", "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS", {"walletId": wallet, "accounts": accounts}
    )
    return list(result_of(made, "createWalletAccountsResult")["addresses"])


def add_policy(root, name: str, condition: str) -> None:
    params = {
        "policyName": name,
        "effect": "EFFECT_ALLOW",
        "condition": f"activity.action == 'SIGN' && {condition}",
        "consensus": "approvers.any(user, user.id == '7a0e0000-0000-4000-8000-00000000b002')",
        "notes": "",
    }
    result_of(root.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", params), "createPolicyResult")


def sign(client, sign_with: str, transaction_type: str, unsigned: str):
    params = {"signWith": sign_with, "type": transaction_type, "unsignedTransaction": unsigned}
    return client.submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", params)


def account_public_key(root, address: str) -> str:
    wallet = next(iter(ok(root.query("list_wallets"))["wallets"]))["walletId"]
    accounts = ok(root.query("list_wallet_accounts", walletId=wallet))["accounts"]
    return str(next(a["publicKey"] for a in accounts if a["address"] == address))


def test_tron_allow_deny_and_wrong_chain(trader, root, simulator):
    import base58

    [address] = add_accounts(root, ("CURVE_SECP256K1", "m/44'/195'/0'/0/0", "ADDRESS_FORMAT_TRON"))
    add_policy(root, "small TRX", "tron.tx.contract[0].amount <= 10000000")
    owner, other = base58.b58decode_check(address), b"\x41" + bytes(range(20))
    assert (
        ok(sign(trader, address, "TRANSACTION_TYPE_TRON", tron_transfer(owner, other, 10_000_000)))["activity"][
            "status"
        ]
        == "ACTIVITY_STATUS_COMPLETED"
    )
    denied = sign(trader, address, "TRANSACTION_TYPE_TRON", tron_transfer(owner, other, 10_000_001))
    assert_error(denied, 403, 7)
    outcomes = evaluations(simulator, denied)
    assert "small TRX" not in outcomes and outcomes[POLICY_NAMES["eth"]] == "OUTCOME_ERROR"


def test_bitcoin_allow_deny_and_wrong_chain(trader, root, simulator):
    fmt = ("CURVE_SECP256K1", "m/84'/0'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH")
    [address] = add_accounts(root, fmt)
    add_policy(root, "low fee BTC", "bitcoin.tx.fee <= 2000")
    public = account_public_key(root, address)
    cheap, _, _ = bitcoin_psbt(public, "p2wpkh", fee=1_500)
    assert (
        ok(sign(trader, address, "TRANSACTION_TYPE_BITCOIN", cheap.to_hex()))["activity"]["status"]
        == "ACTIVITY_STATUS_COMPLETED"
    )
    costly, _, _ = bitcoin_psbt(public, "p2wpkh", fee=2_500)
    denied = sign(trader, address, "TRANSACTION_TYPE_BITCOIN", costly.to_hex())
    assert_error(denied, 403, 7)
    assert evaluations(simulator, denied)[POLICY_NAMES["sol"]] == "OUTCOME_ERROR"
