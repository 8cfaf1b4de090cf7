"""Smart contract interfaces (created, deleted): ABIs and IDLs that policies read."""

from __future__ import annotations

from simulator.handling.context import Context
from simulator.state.records import Record
from simulator.wire import Json


def create_smart_contract_interface(ctx: Context, params: Json) -> Json:
    if params.get("type") == "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM":
        from simulator.chains.eth_calls import validate_abi

        validate_abi(params["smartContractInterface"])  # refused on upload, not later when a policy reads it
    sci_id = ctx.new_id()
    fields = {"smartContractInterfaceId": sci_id, "organizationId": ctx.org.organization_id, **params}
    ctx.org.smart_contract_interfaces[sci_id] = Record(sci_id, fields, ctx.now_ms)
    return {"smartContractInterfaceId": sci_id}


def delete_smart_contract_interface(ctx: Context, params: Json) -> Json:
    sci_id = params["smartContractInterfaceId"]
    ctx.org.find(ctx.org.smart_contract_interfaces, sci_id, "smart contract interface")
    del ctx.org.smart_contract_interfaces[sci_id]
    return {"smartContractInterfaceId": sci_id}
