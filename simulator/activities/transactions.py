"""sign_transaction: parse the unsigned transaction, let policies read it, sign it with the real key.

Each ``TRANSACTION_TYPE_*`` has a chain module in ``simulator/chains`` whose ``parse`` returns a
``ParsedTransaction``. Parsing happens twice: once before the decision (``policy_context``, so
that a bad transaction is a 400 and policies can read ``eth.tx`` and the rest) and once when the
activity runs, which may be after approvals; it is cheap, and keeps nothing but JSON in state.
"""

from __future__ import annotations

import importlib
from typing import Any

from simulator.activities.context import Context, Json
from simulator.activities.signing import signing_key
from simulator.chains import ParsedTransaction
from simulator.errors import InvalidArgument

CHAINS = {
    "TRANSACTION_TYPE_ETHEREUM": "simulator.chains.ethereum",
    "TRANSACTION_TYPE_SOLANA": "simulator.chains.solana",
    "TRANSACTION_TYPE_TRON": "simulator.chains.tron",
    "TRANSACTION_TYPE_BITCOIN": "simulator.chains.bitcoin",
}


def parse(transaction_type: str, unsigned: str) -> ParsedTransaction:
    module = CHAINS.get(transaction_type)
    if module is None:
        raise InvalidArgument(
            f"transaction type {transaction_type} is not simulated: the simulator signs "
            f"{', '.join(sorted(CHAINS))} (see the README's fidelity notes)",
            error_code="UNSUPPORTED_TRANSACTION_TYPE",
        )
    parsed: ParsedTransaction = importlib.import_module(module).parse(unsigned)
    return parsed


def nested(namespace: str, view: Json) -> Json:
    """``eth.tx`` and a view -> ``{"eth": {"tx": view}}``, as the policy language reads it."""
    out: Any = view
    for part in reversed(namespace.split(".")):
        out = {part: out}
    result: Json = out
    return result


def signer_context(ctx: Context, sign_with: str) -> Json:
    """``wallet``, ``wallet_account`` and ``private_key`` of the key a request signs with."""
    wanted = sign_with.lower()
    for wallet in ctx.org.wallets.values():
        for account in wallet.accounts:
            if account.address.lower() == wanted:
                return {
                    "wallet": {"id": wallet.wallet_id, "name": wallet.name},
                    "wallet_account": {"address": account.address, "curve": account.curve, "path": account.path},
                }
    for key in ctx.org.private_keys.values():
        if key.private_key_id == sign_with or any(a["address"].lower() == wanted for a in key.addresses):
            return {"private_key": {"id": key.private_key_id, "name": key.name, "tags": list(key.tag_ids)}}
    return {}


def policy_context(ctx: Context, params: Json) -> Json:
    parsed = parse(params["type"], params["unsignedTransaction"])
    return {**nested(parsed.namespace, parsed.view), **signer_context(ctx, params["signWith"])}


def sign_transaction(ctx: Context, params: Json) -> Json:
    parsed = parse(params["type"], params["unsignedTransaction"])
    curve, secret = signing_key(ctx, params["signWith"])
    return {"signedTransaction": parsed.sign(curve, secret)}
