"""Reads of smart contract interfaces."""

from __future__ import annotations

from simulator.handler_support.query_context import QueryContext
from simulator.state.records import Record
from simulator.wire import Json


def list_smart_contract_interfaces(q: QueryContext, body: Json) -> Json:
    return {"smartContractInterfaces": [interface_api(c) for c in q.org.smart_contract_interfaces.values()]}


def get_smart_contract_interface(q: QueryContext, body: Json) -> Json:
    sci = q.find(q.org.smart_contract_interfaces, body["smartContractInterfaceId"], "smart contract interface")
    return {"smartContractInterface": interface_api(sci)}


def interface_api(record: Record) -> Json:
    """The stored interface; ``notes`` is required on the wire and "" when none was given (as the service writes it)."""
    return {"notes": "", **record.to_api()}
