"""The broadcast stand-in's queries: a sent transaction's status, nonces, gas usage, history.

Each status poll counts (a scripted step may wait for polls, as get_activity's do). History lists
what reached a block, newest first: transfers of the chain's native asset (SPL tokens and ERC-20
transfers are not decoded), the fee the stand-in charged, and the block at the chain's pace.
"""

from __future__ import annotations

from collections.abc import Callable

from simulator.errors import InvalidArgument, NotFound
from simulator.handler_support.query_context import QueryContext
from simulator.queries.pagination import paginate
from simulator.standins import chain as chain_standin
from simulator.standins import longtail
from simulator.state.records import SentTransaction
from simulator.wire import Json


def get_send_transaction_status(q: QueryContext, body: Json) -> Json:
    sent = q.store.sent_transactions.get(body["sendTransactionStatusId"])
    if sent is None or sent.organization_id != q.org.organization_id:
        raise NotFound(
            f"send transaction status {body['sendTransactionStatusId']} not found in organization "
            f"{q.org.organization_id}",
            error_code="REQUEST_INVALID",
        )
    step = chain_standin.status_of(sent, q.now_ms, poll=True)
    out: Json = {"txStatus": step["status"]}
    if step["status"] == "INCLUDED" or step.get("reverted"):
        out.update(chain_reference(sent))
    if step["status"] == "FAILED":
        error = failure(sent, step)
        out.update(txError=error["message"], error=error)
    return out


def chain_reference(sent: SentTransaction) -> Json:
    if sent.caip2.startswith("solana:"):
        return {"solana": {"signature": sent.chain_id}}
    return {"eth": {"txHash": sent.chain_id}}


def failure(sent: SentTransaction, step: Json) -> Json:
    given: Json = dict(step.get("error") or {})
    if not step.get("reverted"):
        return {"message": "transaction failed (simulated)", **given}
    if sent.caip2.startswith("solana:"):
        details = {"source": "TRANSACTION", "transactionErrorJson": '{"InstructionError":[0,"Custom"]}', "logs": []}
        return {"message": "transaction reverted (simulated)", "solana": details, **given}
    message = given.pop("message", "execution reverted (simulated)")
    revert = {
        "address": sent.to,
        "errorType": "NATIVE",
        "displayMessage": message,
        "native": {"nativeType": "ERROR", "message": message},
    }
    chain = given.pop("revertChain", [revert])
    return {"message": message, "revertChain": chain, "eth": {"revertChain": chain}, **given}


def get_nonces(q: QueryContext, body: Json) -> Json:
    wanted = body["address"]
    if not (wanted[:2].lower() == "0x" and len(wanted) == 42):
        raise InvalidArgument(f"invalid address {wanted!r}: expected a 0x-prefixed 20-byte hex address")
    out: Json = {}
    if body.get("nonce"):
        out["nonce"] = str(chain_standin.next_nonce(q.store, body["caip2"], wanted))
    if body.get("gasStationNonce"):
        out["gasStationNonce"] = str(chain_standin.next_nonce(q.store, body["caip2"], wanted, station=True))
    return out


def get_gas_usage(q: QueryContext, body: Json) -> Json:
    return chain_standin.gas_usage(q.store, q.org, q.now_ms)


def list_eth_transaction_history(q: QueryContext, body: Json) -> Json:
    address = wallet_address(q, body["address"], "ADDRESS_FORMAT_ETHEREUM").lower()
    items = [(sent, eth_item(q, sent, address, step)) for sent, step in history(q, body["caip2"], address)]
    return page(items, body, lambda item: str(item["transactionHash"]))


def list_sol_transaction_history(q: QueryContext, body: Json) -> Json:
    address = wallet_address(q, body["address"], "ADDRESS_FORMAT_SOLANA")
    items = [(sent, sol_item(q, sent, address, step)) for sent, step in history(q, body["caip2"], address)]
    return page(items, body, lambda item: str(item["signature"]))


def wallet_address(q: QueryContext, address: str, address_format: str) -> str:
    for wallet in q.org.wallets.values():
        for account in wallet.accounts:
            same = (
                account.address.lower() == address.lower() if address.startswith("0x") else account.address == address
            )
            if same and account.address_format == address_format:
                return account.address
    raise InvalidArgument(
        f"invalid address {address}: not a wallet account address ({address_format}) of organization "
        f"{q.org.organization_id}; private key addresses are not supported"
    )


def history(q: QueryContext, caip2: str, address: str) -> list[tuple[SentTransaction, Json]]:
    """Every transaction on ``caip2`` that reached a block and moved or cost ``address`` something, newest first."""
    chain = longtail.canonical_caip2(caip2)
    found = []
    for sent in q.store.sent_transactions.values():
        step = chain_standin.on_chain(sent, q.now_ms)
        signers = [s["address"] for s in sent.signers]
        touched = address in (sent.sender, *signers) or any(t["to"] == address for t in sent.transfers)
        if step is not None and sent.caip2 == chain and touched:
            found.append((sent, step))
    return sorted(found, key=lambda pair: (-pair[1]["reachedMs"], pair[0].status_id))


def common(q: QueryContext, sent: SentTransaction, address: str, step: Json) -> Json:
    asset = chain_standin.native_asset(sent.caip2)
    moved = [] if step.get("reverted") else sent.transfers
    transfers = [transfer(q, sent, t, address, asset) for t in moved if address in (t["from"], t["to"])]
    turnkey: Json = {"sponsored": sent.sponsored, "submittedAt": str(sent.submitted_ms)}
    return {
        "block": chain_standin.block_of(sent.caip2, step["reachedMs"]),
        "status": chain_standin.finality(sent.caip2, step["reachedMs"], q.now_ms),
        "origin": "TURNKEY",
        "fee": {"amount": str(sent.fee), "caip19": asset["caip19"]},
        "transfers": transfers,
        "turnkey": turnkey,
    }


def transfer(q: QueryContext, sent: SentTransaction, moved: Json, address: str, asset: Json) -> Json:
    outgoing = moved["from"] == address
    crypto = moved["amount"] / 10 ** asset["decimals"]
    usd = chain_standin.usd_of(q.store, sent.caip2, moved["amount"])
    return {
        "direction": "OUT" if outgoing else "IN",
        "asset": asset,
        "amount": str(moved["amount"]),
        "counterparty": moved["to"] if outgoing else moved["from"],
        "display": {"crypto": f"{crypto:.9f}".rstrip("0").rstrip("."), "usd": f"{usd:.2f}"},
    }


def eth_item(q: QueryContext, sent: SentTransaction, address: str, step: Json) -> Json:
    item = {"transactionHash": sent.chain_id, "from": sent.sender, **common(q, sent, address, step)}
    if sent.to:
        item["to"] = sent.to
    return item


def sol_item(q: QueryContext, sent: SentTransaction, address: str, step: Json) -> Json:
    return {
        "signature": sent.chain_id,
        "feePayer": sent.sender,
        "signers": [dict(s) for s in sent.signers],
        **common(q, sent, address, step),
    }


def page(items: list[tuple[SentTransaction, Json]], body: Json, cursor: Callable[[Json], str]) -> Json:
    views = [view for _, view in items]
    shown = paginate(views, body.get("paginationOptions"), cursor)
    if not shown:
        return {"transactions": [], "pageInfo": {"hasNextPage": False, "hasPreviousPage": False}}
    first, last = views.index(shown[0]), views.index(shown[-1])
    info = {
        "hasNextPage": last < len(views) - 1,
        "hasPreviousPage": first > 0,
        "startCursor": cursor(shown[0]),
        "endCursor": cursor(shown[-1]),
    }
    return {"transactions": shown, "pageInfo": info}
