"""sign_transaction: parse the unsigned transaction, let policies read it, sign it with the real key.

Each ``TRANSACTION_TYPE_*`` has a chain module in ``simulator/chains`` whose ``parse`` returns a
``ParsedTransaction``. Parsing happens twice: once before the decision (``policy_context``, so
that a bad transaction is a 400 and policies can read ``eth.tx`` and the rest) and once when the
activity runs, which may be after approvals; it is cheap, and keeps nothing but JSON in state.
"""

from __future__ import annotations

import importlib
from typing import Any

from simulator.activities.signing import payload_view, signing_key
from simulator.chains import ParsedTransaction
from simulator.chains.ethereum import EthereumTransaction
from simulator.errors import InvalidArgument
from simulator.handling.context import Context
from simulator.wire import Json

CHAINS = {
    "TRANSACTION_TYPE_ETHEREUM": "simulator.chains.ethereum",
    "TRANSACTION_TYPE_SOLANA": "simulator.chains.solana",
    "TRANSACTION_TYPE_TRON": "simulator.chains.tron",
    "TRANSACTION_TYPE_BITCOIN": "simulator.chains.bitcoin",
}


def parse(transaction_type: str, unsigned: str, network: str = "MAINNET") -> ParsedTransaction:
    """The unsigned transaction, understood; ``network`` names Bitcoin outputs' addresses in the view."""
    module = CHAINS.get(transaction_type)
    if module is None:
        raise InvalidArgument(
            f"transaction type {transaction_type} is not simulated: the simulator signs "
            f"{', '.join(sorted(CHAINS))} (see the README's fidelity notes)",
            error_code="UNSUPPORTED_TRANSACTION_TYPE",
        )
    chain = importlib.import_module(module)
    if transaction_type == "TRANSACTION_TYPE_BITCOIN":
        parsed: ParsedTransaction = chain.parse(unsigned, network)
    else:
        parsed = chain.parse(unsigned)
    return parsed


def bitcoin_network(ctx: Context, sign_with: str) -> str:
    """MAINNET, TESTNET, SIGNET or REGTEST, from the signing account's address format."""
    wanted = sign_with.lower()
    for wallet in ctx.org.wallets.values():
        for account in wallet.accounts:
            if account.address.lower() == wanted and account.address_format.startswith("ADDRESS_FORMAT_BITCOIN_"):
                return account.address_format.split("_")[3]
    return "MAINNET"


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
                flags = {"imported": wallet.imported, "exported": wallet.exported}
                return {
                    "wallet": {"id": wallet.wallet_id, "label": wallet.name, **flags},
                    "wallet_account": {"address": account.address, "curve": account.curve, "path": account.path},
                }
    for key in ctx.org.private_keys.values():
        if key.private_key_id == sign_with or any(a["address"].lower() == wanted for a in key.addresses):
            flags = {"imported": key.imported, "exported": key.exported}
            return {"private_key": {"id": key.private_key_id, "label": key.name, "tags": list(key.tag_ids), **flags}}
    return {}


def parsed_from(ctx: Context, params: Json) -> ParsedTransaction:
    """The transaction of ``params``, parsed once per request (policies read it, then the handler signs it)."""
    key = f"transaction {params['type']} {params['unsignedTransaction']} {params['signWith']}"
    if key not in ctx.memo:
        ctx.memo[key] = parse(params["type"], params["unsignedTransaction"], bitcoin_network(ctx, params["signWith"]))
    parsed: ParsedTransaction = ctx.memo[key]
    return parsed


def policy_context(ctx: Context, params: Json) -> Json:
    parsed = parsed_from(ctx, params)
    signer = signer_context(ctx, params["signWith"])
    if isinstance(parsed, EthereumTransaction):
        parsed = with_sender_and_call(ctx, parsed, ethereum_address(ctx, params["signWith"], signer))
    return {**nested(parsed.namespace, parsed.view), **signer}


def ethereum_address(ctx: Context, sign_with: str, signer: Json) -> str:
    """``eth.tx.from``: the account's address, or a private key's Ethereum address."""
    if "wallet_account" in signer:
        return str(signer["wallet_account"]["address"])
    key = ctx.org.private_keys.get(signer.get("private_key", {}).get("id", ""))
    found = [a["address"] for a in key.addresses if a.get("format") == "ADDRESS_FORMAT_ETHEREUM"] if key else []
    return found[0] if found else sign_with


def with_sender_and_call(ctx: Context, parsed: EthereumTransaction, sender: str) -> EthereumTransaction:
    """The view with ``from``, and the call decoded through a stored interface for ``to``."""
    parsed = parsed.with_sender(sender)
    for record in ctx.org.smart_contract_interfaces.values():
        fields = record.fields
        if fields.get("type") == "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM" and str(
            fields.get("smartContractAddress", "")
        ).lower() == parsed.view.get("to"):
            return parsed.with_contract_interface(fields["smartContractInterface"])
    return parsed


def payload_policy_context(ctx: Context, params: Json) -> Json:
    """sign_raw_payload(s): the signing targets, and typed data or an authorization as policies read them."""
    payloads = params.get("payloads") or [params.get("payload", "")]
    try:
        view = payload_view(payloads[0], params["encoding"]) if payloads else {}
    except InvalidArgument:
        view = {}  # the handler refuses the payload with the precise reason
    return {**view, **signer_context(ctx, params["signWith"])}


def sign_transaction(ctx: Context, params: Json) -> Json:
    parsed = parsed_from(ctx, params)
    curve, secret = signing_key(ctx, params["signWith"])
    return {"signedTransaction": parsed.sign(curve, secret)}
