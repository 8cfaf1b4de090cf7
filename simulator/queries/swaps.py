"""Swap status (each poll moves the swap along its sequence) and the simulated market's assets."""

from __future__ import annotations

from simulator.handler_support.query_context import QueryContext
from simulator.standins import longtail
from simulator.state import longtail_records
from simulator.state.status_track import step_fields
from simulator.wire import Json

DEFAULT_ERRORS = {
    "SAME_CHAIN": {"reason": "ORIGIN_TRANSACTION_FAILED", "message": "the origin transaction reverted (simulated)"},
    "CROSS_CHAIN": {"reason": "PROVIDER_FILL_FAILED", "message": "the provider did not fill the order (simulated)"},
}


def get_swap_status(q: QueryContext, body: Json) -> Json:
    swap = q.find(longtail_records.swaps(q.org.longtail), body["swapRequestId"], "swap request")
    step = swap.track.reached(q.now_ms, poll=True)
    quote, status = swap.quote, step["status"]
    out: Json = {
        "status": status,
        "swapKind": swap.swap_kind,
        "provider": quote.provider,
        "inputToken": quote.input_token,
        "outputToken": quote.output_token,
        "inputAmount": quote.input_amount,
        "updatedAt": str(step["reachedMs"]),
    }
    cross = swap.swap_kind == "CROSS_CHAIN"
    if status == "COMPLETED":
        out.update(originTxHash=swap.origin_tx_hash, outputAmount=quote.output_amount)
        if cross:
            out["destinationTxHashes"] = [swap.destination_tx_hash]
    elif status == "FAILED":
        out["error"] = step.get("error") or DEFAULT_ERRORS[swap.swap_kind]
        if cross and out["error"].get("reason") == "PROVIDER_FILL_FAILED":
            out.update(originTxHash=swap.origin_tx_hash)
            out["refund"] = step.get("refund") or {"asset": quote.input_token, "amount": quote.input_amount}
    out.update({k: v for k, v in step_fields(step).items() if k not in ("error", "refund")})
    return out


def list_supported_assets(q: QueryContext, body: Json) -> Json:
    shown = ("caip19", "symbol", "decimals", "logoUrl", "name", "stable")
    assets = [{k: a[k] for k in shown if k in a} for a in longtail.assets_on(q.store, body["caip2"])]
    return {"assets": [{**a, "stable": bool(a.get("stable", False))} for a in assets]}
