"""A transaction the EVM and Solana broadcast families sent through the chain stand-in: its record
made and kept for the status queries."""

from __future__ import annotations

from typing import Any

from simulator.handler_support.context import Context
from simulator.standins import chain as chain_standin
from simulator.standins import longtail
from simulator.state.records import SentTransaction
from simulator.wire import Json


def new_sent(ctx: Context, params: Json, sender: str, chain_hash: str, **extra: Any) -> SentTransaction:
    user = ctx.principal.user if ctx.principal else None
    track = chain_standin.new_track(ctx.store, ctx.org, user, ctx.activity_type, params, ctx.now_ms)
    details: Json = {
        k: params[k] for k in ("sponsor", "gasLimit", "maxFeePerGas", "maxPriorityFeePerGas", "deadline") if k in params
    }
    if "calls" in params or "to" in params:
        details["calls"] = [
            {k: c[k] for k in ("to", "value", "data") if k in c} for c in params.get("calls") or [params]
        ]
    return SentTransaction(
        status_id=ctx.new_id(),
        organization_id=ctx.org.organization_id,
        activity_type=ctx.activity_type,
        caip2=longtail.canonical_caip2(params["caip2"]),
        sender=sender.lower() if sender.startswith("0x") else sender,
        chain_id=chain_hash,
        submitted_ms=ctx.now_ms,
        track=track,
        details=details,
        **extra,
    )


def keep(ctx: Context, sent: SentTransaction) -> str:
    ctx.store.sent_transactions[sent.status_id] = sent
    return sent.status_id
