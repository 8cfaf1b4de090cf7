"""The fields of each Ethereum transaction type, decoded from RLP, and what ``eth.tx`` shows of them.

Field widths follow the execution clients' decoders (alloy / go-ethereum): chain id, nonce and gas
are 64-bit, fees 128-bit, value 256-bit; a wider or non-canonical integer is not a transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulator.chains.eth_rlp import (
    UINT64,
    UINT128,
    UINT256,
    Item,
    RlpFieldError,
    as_address,
    as_bytes,
    as_hash,
    as_list,
    as_uint,
)

LEGACY = 0
LEGACY_LAYOUT = ("nonce", "gas_price", "gas", "to", "value", "data")
_FEE_1559 = ("chain_id", "nonce", "max_priority_fee_per_gas", "max_fee_per_gas", "gas", "to", "value", "data")
LAYOUTS: dict[int, tuple[str, ...]] = {
    1: ("chain_id", "nonce", "gas_price", "gas", "to", "value", "data", "access_list"),
    2: (*_FEE_1559, "access_list"),
    3: (*_FEE_1559, "access_list", "max_fee_per_blob_gas", "blob_versioned_hashes"),
    4: (*_FEE_1559, "access_list", "authorization_list"),
}
TYPE_NAMES = {LEGACY: "LEGACY", 1: "TYPE_1", 2: "TYPE_2", 3: "TYPE_3", 4: "TYPE_4"}
# EIP-4844 and EIP-7702 transactions cannot create contracts: their destination is a plain address
NEEDS_DESTINATION = (3, 4)


def _uint(bits: int) -> Callable[[Item, str], int]:
    return lambda item, field: as_uint(item, field, bits)


def _destination(item: Item, field: str) -> str:
    return as_address(item, field, empty_allowed=True)


def _data(item: Item, field: str) -> bytes:
    return as_bytes(item, field)


def access_list(item: Item, field: str) -> list[dict[str, Any]]:
    """EIP-2930 ``[[address, [storage_key, ...]], ...]`` as ``[{address, storage_keys}]``."""
    entries = []
    for index, entry in enumerate(as_list(item, field)):
        where = f"{field}[{index}]"
        pair = as_list(entry, where)
        if len(pair) != 2:
            raise RlpFieldError(f"{where} must be [address, storage_keys], got {len(pair)} items")
        keys = as_list(pair[1], f"{where}.storage_keys")
        entries.append(
            {
                "address": as_address(pair[0], f"{where}.address", empty_allowed=False),
                "storage_keys": [as_hash(key, f"{where}.storage_keys[{n}]") for n, key in enumerate(keys)],
            }
        )
    return entries


def authorization_list(item: Item, field: str) -> list[dict[str, Any]]:
    """EIP-7702 ``[[chain_id, address, nonce, y_parity, r, s], ...]`` (already signed by each authority)."""
    authorizations = []
    for index, entry in enumerate(as_list(item, field)):
        where = f"{field}[{index}]"
        parts = as_list(entry, where)
        if len(parts) != 6:
            raise RlpFieldError(f"{where} must be [chain_id, address, nonce, y_parity, r, s], got {len(parts)} items")
        authorizations.append(
            {
                "chain_id": as_uint(parts[0], f"{where}.chain_id", UINT256),
                "address": as_address(parts[1], f"{where}.address", empty_allowed=False),
                "nonce": as_uint(parts[2], f"{where}.nonce", UINT64),
                "y_parity": as_uint(parts[3], f"{where}.y_parity", 8),
                "r": as_uint(parts[4], f"{where}.r", UINT256),
                "s": as_uint(parts[5], f"{where}.s", UINT256),
            }
        )
    return authorizations


def blob_hashes(item: Item, field: str) -> list[str]:
    return [as_hash(entry, f"{field}[{n}]") for n, entry in enumerate(as_list(item, field))]


DECODERS: dict[str, Callable[[Item, str], Any]] = {
    "chain_id": _uint(UINT64),
    "nonce": _uint(UINT64),
    "gas": _uint(UINT64),
    "gas_price": _uint(UINT128),
    "max_priority_fee_per_gas": _uint(UINT128),
    "max_fee_per_gas": _uint(UINT128),
    "max_fee_per_blob_gas": _uint(UINT128),
    "value": _uint(UINT256),
    "to": _destination,
    "data": _data,
    "access_list": access_list,
    "blob_versioned_hashes": blob_hashes,
    "authorization_list": authorization_list,
}


def decode_fields(layout: tuple[str, ...], items: list[Item]) -> dict[str, Any]:
    """``{field: value}`` for RLP items already counted against ``layout``."""
    return {name: DECODERS[name](item, name) for name, item in zip(layout, items)}


INT_FIELDS = ("gas", "nonce", "chain_id", "max_fee_per_gas", "max_priority_fee_per_gas", "max_fee_per_blob_gas")


def policy_view(tx_type: int, fields: dict[str, Any]) -> dict[str, Any]:
    """``eth.tx`` as the policy language documents it (EthereumTransaction).

    Addresses and data are lowercase hex; empty calldata is ``''`` (Turnkey's own policy example
    tests ``eth.tx.data == ''`` for a plain transfer) and a contract creation has ``to == ''``.
    ``gas_price`` of fee-market transactions is ``max_fee_per_gas``, as the docs say. Fields a
    transaction type does not have are absent; ``from`` is added by ``with_sender``.
    """
    data: bytes = fields["data"]
    view: dict[str, Any] = {
        "type": TYPE_NAMES[tx_type],
        "to": fields["to"],
        "value": fields["value"],
        "data": "0x" + data.hex() if data else "",
    }
    view.update({name: fields[name] for name in INT_FIELDS if fields.get(name) is not None})
    gas_price = fields.get("gas_price", fields.get("max_fee_per_gas"))
    if gas_price is not None:
        view["gas_price"] = gas_price
    return view
