"""Swaps: the parent organization's fee configuration, quotes priced from the simulated market, and
executions that follow a status sequence on the simulator clock.

A quote is priced from the seeded USD prices of its two assets (simulator.standins.longtail), less
Turnkey's fee and the parent's client fee, with the slippage floor as ``minOutputAmount``. It can be
executed once, before it expires, with the exact economics it committed to; the swap then moves
PENDING → COMPLETED (or a scripted sequence) and claim_swap_fees collects the client fees of completed swaps.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.handler_support.request_warnings import warn
from simulator.model import key_material
from simulator.standins import longtail
from simulator.state import longtail_records
from simulator.state.longtail_records import Swap, SwapConfig, SwapQuote
from simulator.wire import Json

PROVIDER = "relay"
TURNKEY_FEE_BPS = 20  # the public fee table's rate for every plan's standard pairs
MAX_CLIENT_FEE_BPS = 500  # "bounded by a maximum of 5%"
DEFAULT_SLIPPAGE_BPS = 50
QUOTE_TTL_MS = 60_000  # not public; the simulator's choice
SAME_CHAIN_SECONDS, CROSS_CHAIN_SECONDS = 2, 30
ETH_FEE_ACCOUNT = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}


# configuration ------------------------------------------------------------------------------------
def upsert_swap_config(ctx: Context, params: Json) -> Json:
    if ctx.org.parent_id:
        raise InvalidArgument(
            "swaps are configured on the parent organization; sub-organizations use its configuration"
        )
    fee = longtail.bps(params.get("feeBps"), "feeBps", MAX_CLIENT_FEE_BPS)
    stable = params.get("stableFeeBps")
    longtail.bps(stable, "stableFeeBps", MAX_CLIENT_FEE_BPS)
    receiver = params.get("feeReceiverWalletAddress") or ""
    if receiver:
        longtail.signer_on(ctx.org, receiver, "eip155:8453", "feeReceiverWalletAddress")
    elif fee:
        receiver = auto_fee_receiver(ctx)
    config = SwapConfig(receiver, str(fee), str(int(str(stable))) if stable not in (None, "") else None)
    longtail_records.swap_config(ctx.org.longtail)["config"] = config
    return config.as_document()


def auto_fee_receiver(ctx: Context) -> str:
    """The parent-owned EVM account Turnkey creates when a fee is set without a receiver."""
    wallet = key_material.new_wallet(ctx, f"Swap fee receiver {ctx.now_ms}", [ETH_FEE_ACCOUNT])
    return wallet.accounts[0].address


def claim_swap_fees(ctx: Context, params: Json) -> Json:
    config = longtail_records.swap_config(ctx.org.longtail).get("config")
    if config is None:
        raise InvalidArgument("swaps are not configured for this organization: run upsert_swap_config first")
    unclaimed = [
        swap
        for org in (ctx.org, *ctx.store.descendants(ctx.org.organization_id))
        for swap in longtail_records.swaps(org.longtail).values()
        if not swap.claimed and swap.track.reached(ctx.now_ms)["status"] == "COMPLETED"
    ]
    if sum(Decimal(s.quote.fee_usd) for s in unclaimed) <= 0:
        raise InvalidArgument("no swap fees have accrued to claim (no completed swap carried a client fee)")
    for swap in unclaimed:
        swap.claimed = True
    return {"requestId": ctx.new_id()}


# quotes -------------------------------------------------------------------------------------------
def create_swap_quote(ctx: Context, params: Json) -> Json:
    store = ctx.store
    given = longtail.amount(params["inputAmount"], "inputAmount")
    sold = longtail.asset(store, params["inputToken"], "inputToken")
    bought = longtail.asset(store, params["outputToken"], "outputToken")
    origin = sold["caip19"].split("/", 1)[0]
    longtail.signer_on(ctx.org, params["signWith"], origin)
    slippage = longtail.bps(params.get("slippageBps"), "slippageBps", 10_000, DEFAULT_SLIPPAGE_BPS)
    client_fee = client_fee_bps(ctx, sold, bought)
    output = priced(given, sold, bought, TURNKEY_FEE_BPS + client_fee)
    if output <= 0:
        raise InvalidArgument("inputAmount is too small: the quote's output after fees is zero")
    cross = origin != bought["caip19"].split("/", 1)[0]
    if origin.split(":", 1)[0] != bought["caip19"].split(":", 1)[0]:
        # docs: features/transaction-management/swap.mdx, "Supported providers, chains, and routes": EVM <-> SVM
        # is on the roadmap, not a V1 route; the simulator prices it and says so
        warn(
            f"swap quote from {origin} to {bought['caip19']}: cross-chain routes between EVM and Solana are not supported yet"
        )
    quote = SwapQuote(
        quote_id="sq_v1_" + ctx.source.bytes(32).hex(),
        provider=PROVIDER,
        output_amount=str(output),
        min_output_amount=str(output * (10_000 - slippage) // 10_000),
        expires_at=str(ctx.now_ms + QUOTE_TTL_MS),
        slippage_bps=str(slippage),
        client_fee_bps=str(client_fee),
        estimated_time_seconds=str(CROSS_CHAIN_SECONDS if cross else SAME_CHAIN_SECONDS),
        sign_with=params["signWith"],
        input_token=sold["caip19"],
        output_token=bought["caip19"],
        input_amount=str(given),
        fee_usd=str(usd_value(given, sold) * client_fee / 10_000),
    )
    longtail_records.swap_quotes(ctx.org.longtail)[quote.quote_id] = quote
    return {"quotes": [quote.wire()]}


def client_fee_bps(ctx: Context, sold: Json, bought: Json) -> int:
    config = longtail_records.swap_config(longtail.root_of(ctx.store, ctx.org).longtail).get("config")
    if config is None:
        return 0
    if sold.get("stable") and bought.get("stable") and config.stable_fee_bps:
        return int(config.stable_fee_bps)
    return int(config.fee_bps)


def priced(given: int, sold: Json, bought: Json, fee_bps: int) -> int:
    """Base units of ``bought`` for ``given`` base units of ``sold`` at the seeded USD prices, net of fees."""
    value = usd_value(given, sold) * (10_000 - fee_bps) / 10_000
    try:
        units = value / Decimal(str(bought["usd"])) * (Decimal(10) ** int(bought["decimals"]))
    except (KeyError, ArithmeticError):
        raise InvalidArgument(f"no price for {bought['caip19']} in the simulated market (seed its usd)") from None
    return int(units.to_integral_value(rounding=ROUND_DOWN))


def usd_value(given: int, sold: Json) -> Decimal:
    try:
        return Decimal(given) / (Decimal(10) ** int(sold["decimals"])) * Decimal(str(sold["usd"]))
    except (KeyError, ArithmeticError):
        raise InvalidArgument(f"no price for {sold['caip19']} in the simulated market (seed its usd)") from None


# execution ----------------------------------------------------------------------------------------
def execute_swap(ctx: Context, params: Json) -> Json:
    if ctx.activity_type == "ACTIVITY_TYPE_EXECUTE_SWAP":
        params = quoted_now(ctx, params)
    quote = usable_quote(ctx, params["quoteId"])
    committed = quote.as_document()
    restated = ("inputToken", "inputAmount", "outputToken", "minOutputAmount")
    for field in restated:
        if str(params[field]).lower() != str(committed[field]).lower():
            raise InvalidArgument(f"{field} {params[field]} does not match the quote's {committed[field]}")
    if params["quotedOutputAmount"] != quote.output_amount:
        raise InvalidArgument(f"quotedOutputAmount {params['quotedOutputAmount']} does not match {quote.output_amount}")
    check_chain_fields(params, quote.input_token.split("/", 1)[0])
    quote.used = True
    swap_id = ctx.new_id()
    cross = quote.input_token.split("/", 1)[0] != quote.output_token.split("/", 1)[0]
    done = {"status": "COMPLETED", "after": {"seconds": int(quote.estimated_time_seconds)}}
    user = ctx.principal.user if ctx.principal else None
    track = longtail.new_track(
        ctx.store, ctx.org, user, ctx.activity_type, params, ctx.now_ms, [{"status": "PENDING"}, done]
    )
    longtail_records.swaps(ctx.org.longtail)[swap_id] = Swap(
        quote,
        "CROSS_CHAIN" if cross else "SAME_CHAIN",
        longtail.tx_hash(ctx.source, quote.input_token),
        longtail.tx_hash(ctx.source, quote.output_token),
        track,
    )
    return {"swapRequestId": swap_id, "provider": PROVIDER, "quoteId": quote.quote_id}


def quoted_now(ctx: Context, params: Json) -> Json:
    """EXECUTE_SWAP (v1), from before quotes: priced now for ``walletAccount``, and refused (the quote
    dropped) when the output falls below the caller's ``minOutputAmount``; then executed as V2 would."""
    request = {k: params[k] for k in ("inputToken", "outputToken", "inputAmount")}
    wired = create_swap_quote(ctx, {**request, "signWith": params["walletAccount"]})["quotes"][0]
    quotes = longtail_records.swap_quotes(ctx.org.longtail)
    committed = quotes[wired["quoteId"]].as_document()
    floor = longtail.amount(params["minOutputAmount"], "minOutputAmount")
    if int(committed["outputAmount"]) < floor:
        del quotes[wired["quoteId"]]
        raise InvalidArgument(f"the swap's output {committed['outputAmount']} is below minOutputAmount {floor}")
    restated = ("quoteId", "inputToken", "inputAmount", "outputToken", "minOutputAmount")
    return {
        **{k: committed[k] for k in restated},
        "quotedOutputAmount": committed["outputAmount"],
        "sponsor": bool(params.get("sponsor", False)),
    }


def usable_quote(ctx: Context, quote_id: str) -> SwapQuote:
    quote = ctx.org.find(longtail_records.swap_quotes(ctx.org.longtail), quote_id, "swap quote")
    if quote.used:
        raise InvalidArgument(f"swap quote {quote_id} was already executed", error_code="SWAP_QUOTE_ALREADY_USED")
    if int(quote.expires_at) <= ctx.now_ms:
        raise InvalidArgument(f"swap quote {quote_id} expired at {quote.expires_at} (ms); request a new quote")
    return quote


def check_chain_fields(params: Json, origin: str) -> None:
    evm = origin.startswith("eip155:")
    if params.get("recentBlockhash") and evm:
        raise InvalidArgument("recentBlockhash is valid only for a Solana swap")
    if not evm and (params.get("evmNonce") or params.get("gasStationNonce")):
        raise InvalidArgument("evmNonce and gasStationNonce are valid only for an EVM swap")
    if params.get("evmNonce") and params["sponsor"]:
        raise InvalidArgument("evmNonce is valid only for a non-sponsored EVM swap")
