"""Unsigned transactions built by independent libraries, for tests that sign them through the HTTP
surface (no tests here): Solana with solders' builders, Tron raw data with Google's protobuf runtime,
Bitcoin PSBTs with python-bitcoin-utils. The approaches follow tests/chains/, copied, not imported.
"""

from __future__ import annotations

import hashlib
from typing import Any

from bitcoinutils.keys import PublicKey  # type: ignore[import-untyped]
from bitcoinutils.psbt import PSBT  # type: ignore[import-untyped]
from bitcoinutils.setup import setup  # type: ignore[import-untyped]
from bitcoinutils.transactions import Transaction, TxInput, TxOutput  # type: ignore[import-untyped]
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # type: ignore[import-untyped]
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.message import Message, MessageV0
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

SYSTEM = Pubkey.from_string("11111111111111111111111111111111")
BLOCKHASH = Hash.from_bytes(hashlib.sha256(b"blockhash").digest())


def solana_key(label: str) -> str:
    return str(Pubkey.from_bytes(hashlib.sha256(label.encode()).digest()))


def solana_transfer(payer: str, to: str, lamports: int, v0: bool = False) -> str:
    """Hex of a wire transaction (zeroed signature slot) paying ``lamports`` from ``payer`` to ``to``."""
    data = (2).to_bytes(4, "little") + lamports.to_bytes(8, "little")
    metas = [AccountMeta(Pubkey.from_string(payer), True, True), AccountMeta(Pubkey.from_string(to), False, True)]
    instruction = Instruction(SYSTEM, data, metas)
    fee_payer = Pubkey.from_string(payer)
    if v0:
        message: Message | MessageV0 = MessageV0.try_compile(fee_payer, [instruction], [], BLOCKHASH)
    else:
        message = Message.new_with_blockhash([instruction], fee_payer, BLOCKHASH)
    return bytes(VersionedTransaction.populate(message, [Signature.default()])).hex()


# Tron: the few protocol messages a TRX transfer needs, declared through protobuf's descriptors ---------
OPTIONAL, REPEATED = 1, 3
TYPES = {"bytes": 12, "int64": 3, "int32": 5, "string": 9, "message": 11}
TRON_SCHEMA: dict[str, list[tuple[Any, ...]]] = {
    "Transaction": [("raw_data", 1, "message", OPTIONAL, "Raw"), ("signature", 2, "bytes", REPEATED)],
    "Raw": [
        ("ref_block_bytes", 1, "bytes", OPTIONAL),
        ("ref_block_hash", 4, "bytes", OPTIONAL),
        ("expiration", 8, "int64", OPTIONAL),
        ("contract", 11, "message", REPEATED, "Contract"),
        ("timestamp", 14, "int64", OPTIONAL),
    ],
    "Contract": [("type", 1, "int32", OPTIONAL), ("parameter", 2, "message", OPTIONAL, "Any")],
    "Any": [("type_url", 1, "string", OPTIONAL), ("value", 2, "bytes", OPTIONAL)],
    "TransferContract": [
        ("owner_address", 1, "bytes", OPTIONAL),
        ("to_address", 2, "bytes", OPTIONAL),
        ("amount", 3, "int64", OPTIONAL),
    ],
}


def tron_messages() -> dict[str, Any]:
    file = descriptor_pb2.FileDescriptorProto(name="tron_builders.proto", package="tron_builders", syntax="proto3")
    for name, fields in TRON_SCHEMA.items():
        message = file.message_type.add(name=name)
        for field_name, number, kind, label, *type_name in fields:
            field = message.field.add(name=field_name, number=number, type=TYPES[kind], label=label)
            if type_name:
                field.type_name = f".tron_builders.{type_name[0]}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {n: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tron_builders.{n}")) for n in TRON_SCHEMA}


TRON = tron_messages()


def tron_transfer(owner: bytes, to: bytes, amount: int) -> str:
    """Hex of ``Transaction.raw`` for a TransferContract (what TronWeb's raw_data_hex holds)."""
    parameter = TRON["TransferContract"](owner_address=owner, to_address=to, amount=amount)
    contract = TRON["Contract"](type=1)
    contract.parameter.type_url = "type.googleapis.com/protocol.TransferContract"
    contract.parameter.value = parameter.SerializeToString()
    raw = TRON["Raw"](
        ref_block_bytes=bytes.fromhex("b7a1"),
        ref_block_hash=bytes.fromhex("0123456789abcdef"),
        expiration=1_755_000_060_000,
        timestamp=1_755_000_000_000,
        contract=[contract],
    )
    return bytes(raw.SerializeToString()).hex()


def tron_signature(signed_hex: str) -> tuple[bytes, bytes]:
    """The raw data and the one signature of a signed Tron transaction."""
    tx = TRON["Transaction"].FromString(bytes.fromhex(signed_hex))
    return tx.raw_data.SerializeToString(), bytes(tx.signature[0])


# Bitcoin: a PSBT spending one output of the given kind ---------------------------------------------------
def bitcoin_psbt(public_hex: str, kind: str, amount: int = 50_000, fee: int = 1_500) -> tuple[PSBT, Any, Any]:
    """A PSBT spending ``amount`` sats from ``public_hex``'s ``kind`` (p2pkh, p2wpkh, p2tr) output."""
    setup("mainnet")
    key = PublicKey(public_hex)
    script = {
        "p2pkh": key.get_address(),
        "p2wpkh": key.get_segwit_address(),
        "p2tr": key.get_taproot_address(),
    }[kind].to_script_pub_key()
    funding = Transaction([TxInput("11" * 32, 0)], [TxOutput(amount, script)], has_segwit=False)
    spend = Transaction([TxInput(funding.get_txid(), 0)], [TxOutput(amount - fee, script)])
    psbt = PSBT(spend)
    if kind == "p2pkh":
        psbt.inputs[0].non_witness_utxo = funding
    else:
        psbt.inputs[0].witness_utxo = TxOutput(amount, script)
    return psbt, script, funding
