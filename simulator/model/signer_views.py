"""What policies read of a signing or broadcast request, as the signing, transaction and broadcast
families build it: the signer's wallet, account or private key, a chain's view under its
namespace (``eth.tx``), and an Ethereum transaction with its sender and its decoded call."""

from __future__ import annotations

from typing import Any

from simulator.chains.ethereum import EthereumTransaction
from simulator.handler_support.context import Context
from simulator.state import lookups
from simulator.wire import Json


def nested(namespace: str, view: Json) -> Json:
    """``eth.tx`` and a view -> ``{"eth": {"tx": view}}``, as the policy language reads it."""
    out: Any = view
    for part in reversed(namespace.split(".")):
        out = {part: out}
    result: Json = out
    return result


def signer_of(ctx: Context, sign_with: str) -> lookups.Signer | None:
    """``lookups.signer``, once a request: its policy context and its handler both ask."""
    key = f"signer {ctx.org.organization_id} {sign_with}"
    if key not in ctx.memo:
        ctx.memo[key] = lookups.signer(ctx.org, sign_with)
    found: lookups.Signer | None = ctx.memo[key]
    return found


def signer_context(ctx: Context, sign_with: str) -> Json:
    """``wallet``, ``wallet_account`` and ``private_key`` of the key a request signs with."""
    found = signer_of(ctx, sign_with)
    if found is None:
        return {}
    flags = {"imported": found.imported, "exported": found.exported}
    if found.kind == lookups.WALLET_ACCOUNT:
        return {
            "wallet": {"id": found.signer_id, "label": found.name, **flags},
            "wallet_account": {"address": found.address, "curve": found.curve, "path": found.path},
        }
    return {"private_key": {"id": found.signer_id, "label": found.name, "tags": list(found.tag_ids), **flags}}


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
