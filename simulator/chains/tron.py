"""Tron transactions (``TRANSACTION_TYPE_TRON``): parsed for ``tron.tx``, signed with secp256k1.

The input is TronWeb's ``raw_data_hex`` (the ``Transaction.raw`` protobuf); the output is the hex
of the signed ``Transaction`` protobuf (``raw_data`` = 1, ``signature`` = 2), which is what
``tronWeb.trx.sendHexTransaction`` and ``/wallet/broadcasthex`` take. The signature is
r‖s‖v over SHA-256(raw_data) with v the recovery id (0/1, as Turnkey's raw-payload signatures
report it; java-tron also accepts 27/28). Contract parameters are described for the types the
real policy engine parses; other contract types are signed with only ``type`` and
``permission_id`` described.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from simulator.chains import invalid, tron_contracts, unsigned_bytes
from simulator.crypto import keys
from simulator.errors import InvalidArgument
from simulator.protobuf_wire import Message, ProtoError, length_delimited

SECP256K1 = "CURVE_SECP256K1"
RAW_DATA, SIGNATURE = 1, 2  # Transaction fields
# Transaction.raw fields (java-tron protocol/src/main/protos/core/Tron.proto)
REF_BLOCK_BYTES, REF_BLOCK_HASH, EXPIRATION, DATA, CONTRACT, TIMESTAMP, FEE_LIMIT = 1, 4, 8, 10, 11, 14, 18


@dataclass(frozen=True)
class TronTransaction:
    """An unsigned Tron transaction (its ``raw_data``), understood."""

    raw_data: bytes
    view: dict[str, Any]
    namespace: str = "tron.tx"

    @property
    def txid(self) -> str:
        """The transaction id Tron shows: SHA-256 of raw_data, hex."""
        return hashlib.sha256(self.raw_data).hexdigest()

    def sign(self, curve: str, private_key: bytes) -> str:
        """Hex of the signed ``Transaction`` protobuf, ready for broadcasthex."""
        if curve != SECP256K1:
            raise InvalidArgument(
                f"invalid signing key: Tron transactions are signed with {SECP256K1} keys, not {curve}"
            )
        digest = hashlib.sha256(self.raw_data).digest()
        # RFC 6979 and low-S by libsecp256k1; the 65th byte is the recovery id
        signature = keys.secp256k1_signer(private_key).sign_recoverable(digest, hasher=None)
        return (length_delimited(RAW_DATA, self.raw_data) + length_delimited(SIGNATURE, signature)).hex()


def parse(unsigned: str) -> TronTransaction:
    """Decode TronWeb's ``raw_data_hex``; refuse anything that is not a Transaction.raw protobuf."""
    raw_data = unsigned_bytes(unsigned, "the transaction's raw_data (raw_data_hex)")
    try:
        view = describe(Message(raw_data))
    except ProtoError as error:
        raise invalid(f"not a Tron Transaction.raw protobuf ({error})") from None
    return TronTransaction(raw_data=raw_data, view=view)


def describe(raw: Message) -> dict[str, Any]:
    contracts = raw.messages(CONTRACT)
    if not contracts:
        raise invalid("the transaction has no contract")
    return {
        "ref_block_bytes": raw.blob(REF_BLOCK_BYTES).hex(),
        "ref_block_hash": raw.blob(REF_BLOCK_HASH).hex(),
        "expiration": raw.varint(EXPIRATION),
        "timestamp": raw.varint(TIMESTAMP),
        "data": raw.blob(DATA).hex(),
        "fee_limit": raw.varint(FEE_LIMIT),
        "contract": [tron_contracts.describe(contract) for contract in contracts],
    }
