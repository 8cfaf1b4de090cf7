"""Tron transactions: raw_data built with Google's protobuf runtime from java-tron's field numbers,
parsed and signed by the simulator (which has its own small decoder), read back with protobuf, and
the signature recovered with eth-keys to the signer's Tron address.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import base58
import pytest
from eth_keys.datatypes import PrivateKey, Signature
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # type: ignore[import-untyped]

from simulator.chains import tron
from simulator.errors import InvalidArgument

SECRET = hashlib.sha256(b"tron owner").digest()
OPTIONAL, REPEATED = 1, 3
TYPES = {"bytes": 12, "int64": 3, "int32": 5, "bool": 8, "string": 9, "message": 11}
SCHEMA: dict[str, list[tuple[str, int, str, int] | tuple[str, int, str, int, str]]] = {
    "Transaction": [("raw_data", 1, "message", OPTIONAL, "Raw"), ("signature", 2, "bytes", REPEATED)],
    "Raw": [
        ("ref_block_bytes", 1, "bytes", OPTIONAL),
        ("ref_block_hash", 4, "bytes", OPTIONAL),
        ("expiration", 8, "int64", OPTIONAL),
        ("data", 10, "bytes", OPTIONAL),
        ("contract", 11, "message", REPEATED, "Contract"),
        ("timestamp", 14, "int64", OPTIONAL),
        ("fee_limit", 18, "int64", OPTIONAL),
    ],
    "Contract": [("type", 1, "int32", OPTIONAL), ("parameter", 2, "message", OPTIONAL, "Any"),
                 ("permission_id", 5, "int32", OPTIONAL)],
    "Any": [("type_url", 1, "string", OPTIONAL), ("value", 2, "bytes", OPTIONAL)],
    "TransferContract": [("owner_address", 1, "bytes", OPTIONAL), ("to_address", 2, "bytes", OPTIONAL),
                         ("amount", 3, "int64", OPTIONAL)],
    "TriggerSmartContract": [("owner_address", 1, "bytes", OPTIONAL), ("contract_address", 2, "bytes", OPTIONAL),
                             ("call_value", 3, "int64", OPTIONAL), ("data", 4, "bytes", OPTIONAL)],
    "DelegateResourceContract": [("owner_address", 1, "bytes", OPTIONAL), ("resource", 2, "int32", OPTIONAL),
                                 ("balance", 3, "int64", OPTIONAL), ("receiver_address", 4, "bytes", OPTIONAL),
                                 ("lock", 5, "bool", OPTIONAL), ("lock_period", 6, "int64", OPTIONAL)],
    "AccountPermissionUpdateContract": [("owner_address", 1, "bytes", OPTIONAL),
                                        ("owner", 2, "message", OPTIONAL, "Permission"),
                                        ("actives", 4, "message", REPEATED, "Permission")],
    "Permission": [("type", 1, "int32", OPTIONAL), ("id", 2, "int32", OPTIONAL),
                   ("permission_name", 3, "string", OPTIONAL), ("threshold", 4, "int64", OPTIONAL),
                   ("operations", 6, "bytes", OPTIONAL), ("keys", 7, "message", REPEATED, "Key")],
    "Key": [("address", 1, "bytes", OPTIONAL), ("weight", 2, "int64", OPTIONAL)],
}  # fmt: skip


def message_classes() -> dict[str, Any]:
    """Message classes for the schema above, made by protobuf's own descriptor machinery."""
    file = descriptor_pb2.FileDescriptorProto(name="tron_test.proto", package="tron_test", syntax="proto3")
    for name, fields in SCHEMA.items():
        message = file.message_type.add(name=name)
        for field_name, number, kind, label, *type_name in fields:
            field = message.field.add(name=field_name, number=number, type=TYPES[kind], label=label)
            if type_name:
                field.type_name = f".tron_test.{type_name[0]}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tron_test.{name}")) for name in SCHEMA}


PB = message_classes()
OWNER = b"\x41" + PrivateKey(SECRET).public_key.to_canonical_address()
OTHER = b"\x41" + bytes(range(20))


def base58_address(raw: bytes) -> str:
    return base58.b58encode_check(raw).decode()


def raw_data(contract_type: int, name: str, parameter: Any, **extra: Any) -> bytes:
    contract = PB["Contract"](type=contract_type, permission_id=extra.pop("permission_id", 0))
    contract.parameter.type_url = f"type.googleapis.com/protocol.{name}"
    contract.parameter.value = parameter.SerializeToString()
    raw = PB["Raw"](
        ref_block_bytes=bytes.fromhex("b7a1"),
        ref_block_hash=bytes.fromhex("0123456789abcdef"),
        expiration=1_755_000_060_000,
        timestamp=1_755_000_000_000,
        contract=[contract],
        **extra,
    )
    return bytes(raw.SerializeToString())


def transfer(amount: int = 7_000_000) -> bytes:
    return raw_data(1, "TransferContract", PB["TransferContract"](owner_address=OWNER, to_address=OTHER, amount=amount))


def test_signed_transaction_is_the_raw_data_plus_a_recoverable_signature() -> None:
    raw = transfer()
    signed = PB["Transaction"].FromString(bytes.fromhex(tron.parse(raw.hex()).sign("CURVE_SECP256K1", SECRET)))
    assert signed.raw_data.SerializeToString() == raw and len(signed.signature) == 1
    signature = signed.signature[0]
    assert len(signature) == 65 and signature[64] in (0, 1)
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big")
    recovered = Signature(vrs=(signature[64], r, s)).recover_public_key_from_msg_hash(hashlib.sha256(raw).digest())
    assert b"\x41" + recovered.to_canonical_address() == OWNER
    assert tron.parse(raw.hex()).txid == hashlib.sha256(raw).hexdigest()


def test_view_of_a_trx_transfer() -> None:
    view = tron.parse("0x" + transfer().hex()).view
    assert view == {
        "ref_block_bytes": "b7a1",
        "ref_block_hash": "0123456789abcdef",
        "expiration": 1_755_000_060_000,
        "timestamp": 1_755_000_000_000,
        "data": "",
        "fee_limit": 0,
        "contract": [
            {
                "type": "TransferContract",
                "permission_id": 0,
                "owner_address": base58_address(OWNER),
                "to_address": base58_address(OTHER),
                "amount": 7_000_000,
            }
        ],
    }
    assert view["contract"][0]["owner_address"].startswith("T")


def test_view_of_trc20_call_delegation_and_permission_update() -> None:
    call = PB["TriggerSmartContract"](owner_address=OWNER, contract_address=OTHER, data=bytes.fromhex("a9059cbb00"))
    trc20 = tron.parse(raw_data(31, "TriggerSmartContract", call, fee_limit=30_000_000, data=b"memo").hex()).view
    assert trc20["fee_limit"] == 30_000_000 and trc20["data"] == b"memo".hex()
    assert trc20["contract"][0]["data"][:8] == "a9059cbb"
    assert trc20["contract"][0]["contract_address"] == base58_address(OTHER)
    delegate = PB["DelegateResourceContract"](
        owner_address=OWNER, resource=1, balance=5, receiver_address=OTHER, lock=True, lock_period=100
    )
    view = tron.parse(raw_data(57, "DelegateResourceContract", delegate, permission_id=2).hex()).view["contract"][0]
    assert (view["resource"], view["lock"], view["lock_period"], view["permission_id"]) == ("ENERGY", True, 100, 2)
    key = PB["Key"](address=OTHER, weight=1)
    owner = PB["Permission"](type=0, permission_name="owner", threshold=1, keys=[key])
    active = PB["Permission"](type=2, id=2, permission_name="active", threshold=1, operations=b"\x7f", keys=[key])
    update = PB["AccountPermissionUpdateContract"](owner_address=OWNER, owner=owner, actives=[active])
    view = tron.parse(raw_data(46, "AccountPermissionUpdateContract", update).hex()).view["contract"][0]
    assert view["owner"]["keys"] == [{"address": base58_address(OTHER), "weight": 1}]
    assert view["actives"][0]["type"] == "Active" and view["actives"][0]["operations"] == "7f"
    vote = tron.parse(raw_data(4, "VoteWitnessContract", PB["Key"](address=OWNER)).hex()).view["contract"][0]
    assert vote == {"type": "VoteWitnessContract", "permission_id": 0}


def refusal(unsigned: str, curve: str = "CURVE_SECP256K1") -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        tron.parse(unsigned).sign(curve, SECRET)
    return caught.value


def test_refusals_say_what_is_wrong() -> None:
    assert "CURVE_SECP256K1" in refusal(transfer().hex(), curve="CURVE_ED25519").message
    for bad, words in (
        ("zz", "raw_data_hex"),
        ("", "empty"),
        ("5a050000", "runs past the end"),
        (transfer()[:-3].hex(), "truncated"),
        (PB["Raw"](expiration=5).SerializeToString().hex(), "no contract"),
        ("0b", "wire type 3"),
        ("08" + "ff" * 11, "varint"),
    ):
        error = refusal(bad)
        assert error.error_code == "INVALID_TRANSACTION" and words in error.message, (bad, error.message)


def test_random_and_mutated_bytes_parse_or_are_refused() -> None:
    rng = random.Random(20260818)
    valid = transfer()
    for _ in range(3000):
        if rng.random() < 0.4:
            candidate = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 80)))
        else:
            mutated = bytearray(valid)
            for _ in range(rng.randrange(1, 4)):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            candidate = bytes(mutated)
        try:
            tron.parse(candidate.hex()).sign("CURVE_SECP256K1", SECRET)
        except InvalidArgument as error:
            assert error.error_code == "INVALID_TRANSACTION"
