"""``tron.tx.contract[i]``: a Tron contract and its parameters as the policy language names them.

Field numbers are java-tron's (``core/Tron.proto``, ``core/contract/*.proto``); addresses are
shown in base58check (``T...``), byte strings as unprefixed hex, resources by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulator.crypto.chain_formats import base58check
from simulator.protobuf_wire import Message

TRON_ADDRESS_PREFIX = 0x41
# Transaction.Contract fields, and the google.protobuf.Any inside it
CONTRACT_TYPE, PARAMETER, PERMISSION_ID, ANY_VALUE = 1, 2, 5, 2
CONTRACT_TYPES = {
    0: "AccountCreateContract", 1: "TransferContract", 2: "TransferAssetContract", 3: "VoteAssetContract",
    4: "VoteWitnessContract", 5: "WitnessCreateContract", 6: "AssetIssueContract", 8: "WitnessUpdateContract",
    9: "ParticipateAssetIssueContract", 10: "AccountUpdateContract", 11: "FreezeBalanceContract",
    12: "UnfreezeBalanceContract", 13: "WithdrawBalanceContract", 14: "UnfreezeAssetContract",
    15: "UpdateAssetContract", 16: "ProposalCreateContract", 17: "ProposalApproveContract",
    18: "ProposalDeleteContract", 19: "SetAccountIdContract", 20: "CustomContract", 30: "CreateSmartContract",
    31: "TriggerSmartContract", 32: "GetContract", 33: "UpdateSettingContract", 41: "ExchangeCreateContract",
    42: "ExchangeInjectContract", 43: "ExchangeWithdrawContract", 44: "ExchangeTransactionContract",
    45: "UpdateEnergyLimitContract", 46: "AccountPermissionUpdateContract", 48: "ClearABIContract",
    49: "UpdateBrokerageContract", 51: "ShieldedTransferContract", 52: "MarketSellAssetContract",
    53: "MarketCancelOrderContract", 54: "FreezeBalanceV2Contract", 55: "UnfreezeBalanceV2Contract",
    56: "WithdrawExpireUnfreezeContract", 57: "DelegateResourceContract", 58: "UnDelegateResourceContract",
    59: "CancelAllUnfreezeV2Contract",
}  # fmt: skip
RESOURCES = {0: "BANDWIDTH", 1: "ENERGY", 2: "TRON_POWER"}
PERMISSION_TYPES = {0: "Owner", 1: "Witness", 2: "Active"}


def describe(contract: Message) -> dict[str, Any]:
    number = contract.varint(CONTRACT_TYPE)
    name = CONTRACT_TYPES.get(number, f"UnknownContract{number}")
    view: dict[str, Any] = {"type": name, "permission_id": contract.varint(PERMISSION_ID)}
    parse_parameters = PARAMETERS.get(name)
    if parse_parameters is not None:
        view.update(parse_parameters(contract.message(PARAMETER).message(ANY_VALUE)))
    return view


def address(raw: bytes) -> str:
    if len(raw) == 21 and raw[0] == TRON_ADDRESS_PREFIX:
        return base58check(raw[0], raw[1:])
    return raw.hex()  # not a Tron address; shown as it is rather than refused


def transfer(p: Message) -> dict[str, Any]:
    return {"owner_address": address(p.blob(1)), "to_address": address(p.blob(2)), "amount": p.varint(3)}


def trigger_smart_contract(p: Message) -> dict[str, Any]:
    return {
        "owner_address": address(p.blob(1)),
        "contract_address": address(p.blob(2)),
        "call_value": p.varint(3),
        "data": p.blob(4).hex(),
        "call_token_value": p.varint(5),
        "token_id": p.varint(6),
    }


def delegate_resource(p: Message) -> dict[str, Any]:
    return {
        **undelegate_resource(p),
        "lock": p.varint(5, signed=False) != 0,
        "lock_period": p.varint(6),
    }


def undelegate_resource(p: Message) -> dict[str, Any]:
    return {
        "owner_address": address(p.blob(1)),
        "resource": resource(p.varint(2)),
        "balance": p.varint(3),
        "receiver_address": address(p.blob(4)),
    }


def freeze_balance_v2(p: Message) -> dict[str, Any]:
    return {"owner_address": address(p.blob(1)), "frozen_balance": p.varint(2), "resource": resource(p.varint(3))}


def unfreeze_balance_v2(p: Message) -> dict[str, Any]:
    return {"owner_address": address(p.blob(1)), "unfreeze_balance": p.varint(2), "resource": resource(p.varint(3))}


def account_permission_update(p: Message) -> dict[str, Any]:
    view: dict[str, Any] = {"owner_address": address(p.blob(1))}
    if p.blobs(2):
        view["owner"] = permission(p.message(2))
    if p.blobs(3):
        view["witness"] = permission(p.message(3))
    view["actives"] = [permission(active) for active in p.messages(4)]
    return view


def permission(p: Message) -> dict[str, Any]:
    """Tron.proto ``Permission``: type, id, permission_name, threshold, parent_id, operations, keys."""
    return {
        "type": PERMISSION_TYPES.get(p.varint(1), str(p.varint(1))),
        "id": p.varint(2),
        "permission_name": p.blob(3).decode("utf-8", errors="replace"),
        "threshold": p.varint(4),
        "parent_id": p.varint(5),
        "operations": p.blob(6).hex(),
        "keys": [{"address": address(key.blob(1)), "weight": key.varint(2)} for key in p.messages(7)],
    }


def resource(code: int) -> str:
    return RESOURCES.get(code, str(code))


PARAMETERS: dict[str, Callable[[Message], dict[str, Any]]] = {
    "TransferContract": transfer,
    "TriggerSmartContract": trigger_smart_contract,
    "DelegateResourceContract": delegate_resource,
    "UnDelegateResourceContract": undelegate_resource,
    "FreezeBalanceV2Contract": freeze_balance_v2,
    "UnfreezeBalanceV2Contract": unfreeze_balance_v2,
    "AccountPermissionUpdateContract": account_permission_update,
}
