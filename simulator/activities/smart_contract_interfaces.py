"""Smart contract interfaces (created, deleted): ABIs and IDLs that policies read."""

from __future__ import annotations

import json

from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.model import documented_rules
from simulator.state.records import Record
from simulator.wire import Json


def create_smart_contract_interface(ctx: Context, params: Json) -> Json:
    if params.get("type") == "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM":
        from simulator.chains.eth_calls import validate_abi

        validate_abi(params["smartContractInterface"])  # refused on upload, not later when a policy reads it
    elif params.get("type") == "SMART_CONTRACT_INTERFACE_TYPE_SOLANA" and documented_rules.enforced(ctx):
        check_idl_types(params["smartContractInterface"])
    sci_id = ctx.new_id()
    fields = {"smartContractInterfaceId": sci_id, "organizationId": ctx.org.organization_id, **params}
    ctx.org.smart_contract_interfaces[sci_id] = Record(sci_id, fields, ctx.now_ms)
    return {"smartContractInterfaceId": sci_id}


def delete_smart_contract_interface(ctx: Context, params: Json) -> Json:
    sci_id = params["smartContractInterfaceId"]
    ctx.org.find(ctx.org.smart_contract_interfaces, sci_id, "smart contract interface")
    del ctx.org.smart_contract_interfaces[sci_id]
    return {"smartContractInterfaceId": sci_id}


def check_idl_types(text: str) -> None:
    """smart-contract-interfaces.mdx: "The `types` key must be present in all uploaded IDLs" (``[]`` when none)."""
    try:
        idl = json.loads(text)
    except ValueError:
        idl = None
    if not isinstance(idl, dict):
        raise InvalidArgument(
            "invalid Solana IDL: smartContractInterface must be the JSON text of an IDL object "
            f"{{instructions, types, ...}} {documented_rules.LENIENT_HINT}"
        )
    if not isinstance(idl.get("types"), list):
        raise InvalidArgument(
            "invalid Solana IDL: the types key must be present in every uploaded IDL, as an array "
            '(add "types": [] for a program without custom types) ' + documented_rules.LENIENT_HINT
        )
