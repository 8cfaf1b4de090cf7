"""Swaps through the HTTP surface: configuration, quotes priced from the simulated market, one
execution per quote, the status sequence on the simulator clock, scripted outcomes and fee claims."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import ETH_ACCOUNT, ok, result_of
from support import assert_error, new_wallet

from simulator.standins import longtail

BASE_USDC = longtail.BASE_USDC
BASE_WETH = "eip155:8453/erc20:0x4200000000000000000000000000000000000006"
SOL = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"


def seed(simulator: Any, section: dict[str, Any]) -> None:
    """What a scenario's ``longtail`` key seeds, applied to the running simulator."""
    with simulator.simulator.lock:
        longtail.apply_section(simulator.simulator.store, section)


def quote(client: Any, sign_with: str, amount: str = "1000000", **extra: Any) -> dict[str, Any]:
    params = {"signWith": sign_with, "inputToken": BASE_USDC, "outputToken": BASE_WETH, "inputAmount": amount, **extra}
    result = result_of(
        client.submit("create_swap_quote", "ACTIVITY_TYPE_CREATE_SWAP_QUOTE", params), "createSwapQuoteResult"
    )
    return result["quotes"][0]  # type: ignore[no-any-return]


def execute(client: Any, q: dict[str, Any], **override: Any) -> Any:
    params = {
        "quoteId": q["quoteId"],
        "inputToken": BASE_USDC,
        "inputAmount": "1000000",
        "outputToken": BASE_WETH,
        "quotedOutputAmount": q["outputAmount"],
        "minOutputAmount": q["minOutputAmount"],
        "sponsor": False,
        **override,
    }
    return client.submit("execute_swap", "ACTIVITY_TYPE_EXECUTE_SWAP_V2", params)


@pytest.fixture
def address(client: Any) -> str:
    return new_wallet(client, "swapper", [ETH_ACCOUNT])["addresses"][0]  # type: ignore[no-any-return]


def test_a_quote_is_priced_from_the_market_net_of_fees(client, address):
    q = quote(client, address, slippageBps="100")
    # 1 USDC at $1 into WETH at $3000, less Turnkey's 20 bps: 0.000332667 WETH
    assert q["outputAmount"] == str(10**18 * 9980 // 10_000 // 3000)
    assert int(q["minOutputAmount"]) == int(q["outputAmount"]) * 9900 // 10_000
    assert q["provider"] == "relay" and q["clientFeeBps"] == "0" and q["quoteId"].startswith("sq_v1_")
    assert q["estimatedTimeSeconds"] == "2"


def test_the_parent_config_sets_the_client_fee(client, address):
    config = result_of(
        client.submit("upsert_swap_config", "ACTIVITY_TYPE_UPSERT_SWAP_CONFIG", {"feeBps": "30"}),
        "upsertSwapConfigResult",
    )
    assert config["feeBps"] == "30" and config["feeReceiverWalletAddress"].startswith("0x")
    assert quote(client, address)["clientFeeBps"] == "30"
    refused = client.submit("upsert_swap_config", "ACTIVITY_TYPE_UPSERT_SWAP_CONFIG", {"feeBps": "501"})
    assert_error(refused, 400, 3, "feeBps")


def test_a_quote_executes_once_and_completes_on_the_clock(client, simulator, address):
    q = quote(client, address)
    swap = result_of(execute(client, q), "executeSwapResult")
    assert swap["quoteId"] == q["quoteId"] and swap["provider"] == "relay"
    again = execute(client, q, sponsor=True)
    assert assert_error(again, 400, 3)["turnkeyErrorCode"] == "SWAP_QUOTE_ALREADY_USED"
    status = ok(client.query("get_swap_status", swapRequestId=swap["swapRequestId"]))
    assert status["status"] == "PENDING" and status["swapKind"] == "SAME_CHAIN" and "outputAmount" not in status
    simulator.clock.advance(3)
    status = ok(client.query("get_swap_status", swapRequestId=swap["swapRequestId"]))
    assert status["status"] == "COMPLETED" and status["outputAmount"] == q["outputAmount"]
    assert status["originTxHash"].startswith("0x") and len(status["originTxHash"]) == 66


def test_execution_must_restate_the_quote_before_it_expires(client, simulator, address):
    q = quote(client, address)
    assert_error(execute(client, q, minOutputAmount="1"), 400, 3, "minOutputAmount")
    assert_error(execute(client, q, recentBlockhash="abc"), 400, 3, "Solana")
    simulator.clock.advance(61)
    assert_error(execute(client, q), 400, 3, "expired")
    assert_error(execute(client, {**q, "quoteId": "sq_v1_00"}), 404, 5, "not found")


def test_quote_refusals(client, address):
    def refused(**params: Any) -> Any:
        body = {"signWith": address, "inputToken": BASE_USDC, "outputToken": BASE_WETH, "inputAmount": "1", **params}
        return client.submit("create_swap_quote", "ACTIVITY_TYPE_CREATE_SWAP_QUOTE", body)

    assert_error(refused(inputAmount="-5"), 400, 3, "inputAmount")
    assert_error(refused(outputToken="eip155:8453/erc20:0xdead"), 400, 3, "not in the simulated market")
    assert_error(refused(signWith="0x0000000000000000000000000000000000000001"), 400, 3, "not a wallet account")
    assert_error(refused(inputToken=SOL), 400, 3, "cannot sign on solana")


def test_seeded_prices_and_scripted_failure(client, simulator, address):
    weth = {"caip19": BASE_WETH, "symbol": "WETH", "decimals": 18, "name": "Wrapped Ether", "usd": "2000"}
    usdc = {"caip19": BASE_USDC, "symbol": "USDC", "decimals": 6, "name": "USD Coin", "stable": True, "usd": "1"}
    failing = [
        {"status": "PENDING"},
        {"status": "FAILED", "after": {"polls": 2}, "error": {"reason": "PROVIDER_FILL_FAILED", "message": "no fill"}},
    ]
    seed(
        simulator,
        {
            "assets": [weth, usdc],
            "statuses": [{"name": "fails", "match": {"type": "EXECUTE_SWAP"}, "sequence": failing}],
        },
    )
    q = quote(client, address)
    assert q["outputAmount"] == str(10**18 * 9980 // 10_000 // 2000)
    swap_id = result_of(execute(client, q), "executeSwapResult")["swapRequestId"]
    assert ok(client.query("get_swap_status", swapRequestId=swap_id))["status"] == "PENDING"
    failed = ok(client.query("get_swap_status", swapRequestId=swap_id))
    assert failed["status"] == "FAILED" and failed["error"] == {"reason": "PROVIDER_FILL_FAILED", "message": "no fill"}
    assets = ok(client.query("list_supported_assets", caip2="eip155:8453"))["assets"]
    assert {a["symbol"] for a in assets} == {"WETH", "USDC"} and all("usd" not in a for a in assets)


def test_a_rule_fails_the_execution_and_leaves_the_quote_unused(client, simulator, address):
    simulator.simulator.rules.insert(
        0, {"name": "swap down", "match": {"type": "EXECUTE_SWAP"}, "outcome": "fail", "times": 1}
    )
    q = quote(client, address)
    failed = ok(execute(client, q))["activity"]
    assert failed["status"] == "ACTIVITY_STATUS_FAILED"
    assert result_of(execute(client, q, sponsor=True), "executeSwapResult")["quoteId"] == q["quoteId"]


def test_fees_are_claimed_from_completed_swaps(client, simulator, address):
    client.submit("upsert_swap_config", "ACTIVITY_TYPE_UPSERT_SWAP_CONFIG", {"feeBps": "50"})
    claim = lambda: client.submit("claim_swap_fees", "ACTIVITY_TYPE_CLAIM_SWAP_FEES", {})  # noqa: E731
    assert_error(claim(), 400, 3, "no swap fees")
    result_of(execute(client, quote(client, address)), "executeSwapResult")
    simulator.clock.advance(5)
    assert result_of(claim(), "claimSwapFeesResult")["requestId"]
    assert_error(claim(), 400, 3, "no swap fees")


def test_unknown_swap_and_the_official_client(turnkey_client, client, address):
    import turnkey_sdk_types as T

    assert_error(client.query("get_swap_status", swapRequestId="nope"), 404, 5, "swap request nope")
    assets = turnkey_client.list_supported_assets(
        T.ListSupportedAssetsBody(caip2="solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")
    )
    assert {a.symbol for a in assets.assets} == {"SOL", "USDC"}
