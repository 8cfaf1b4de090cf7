"""Ethereum transactions (``TRANSACTION_TYPE_ETHEREUM``): parsed for ``eth.tx``, signed with secp256k1.

The input is the unsigned serialization viem's ``serializeTransaction`` and ethers'
``unsignedSerialized`` produce, hex with or without ``0x``: legacy (6 fields, or EIP-155's 9 with
``chainId, 0, 0``) and the typed envelopes 0x01 (EIP-2930), 0x02 (EIP-1559), 0x03 (EIP-4844,
the transaction body only, never the network wrapper with blobs) and 0x04 (EIP-7702, its
authorization list already signed). The output is the signed serialization as lowercase hex
without ``0x`` (viem and ethers prepend it): legacy with ``v = 27 + recid`` or EIP-155's
``chainId * 2 + 35 + recid``, typed with ``yParity, r, s`` appended. Signatures are RFC 6979 and
low-S (libsecp256k1), so a seeded run repeats them and nodes accept them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from simulator.chains import eth_rlp, invalid, unsigned_bytes
from simulator.chains.eth_fields import LAYOUTS, LEGACY, LEGACY_LAYOUT, NEEDS_DESTINATION, decode_fields, policy_view
from simulator.chains.eth_rlp import UINT64, Item, RlpFieldError
from simulator.crypto import keys
from simulator.crypto.hashing import keccak256
from simulator.errors import InvalidArgument

SECP256K1 = "CURVE_SECP256K1"
SIGNATURE_FIELDS = 3  # v/yParity, r, s


@dataclass(frozen=True)
class EthereumTransaction:
    """An unsigned Ethereum transaction, understood.

    ``fields`` holds every decoded field by its ``eth.tx`` name (``access_list`` as
    ``[{address, storage_keys}]``, ``authorization_list`` as ``[{chain_id, address, nonce,
    y_parity, r, s}]``, ``blob_versioned_hashes``, ``data`` as bytes); ``view`` is what policies read.
    """

    tx_type: int
    fields: dict[str, Any]
    unsigned: bytes
    view: dict[str, Any]
    namespace: str = "eth.tx"

    @property
    def chain_id(self) -> int | None:
        """The chain id; None for a pre-EIP-155 legacy transaction."""
        chain_id: int | None = self.fields.get("chain_id")
        return chain_id

    @property
    def signing_digest(self) -> bytes:
        """keccak256 of the unsigned serialization: what the sender signs."""
        return keccak256(self.unsigned)

    def sign(self, curve: str, private_key: bytes) -> str:
        """The signed transaction as lowercase hex without ``0x``, ready to broadcast."""
        if curve != SECP256K1:
            raise InvalidArgument(
                f"invalid signing key: Ethereum transactions are signed with {SECP256K1} keys, not {curve}"
            )
        signature = keys.secp256k1_signer(private_key).sign_recoverable(self.signing_digest, hasher=None)
        r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big")
        return self.serialize_signed(r, s, signature[64]).hex()

    def serialize_signed(self, r: int, s: int, recovery_id: int) -> bytes:
        """The transaction with a signature (r, s and the recovery id 0/1) in place."""
        if self.tx_type != LEGACY:  # the unsigned list (strictly decoded by parse) with the signature appended
            return bytes([self.tx_type]) + eth_rlp.extend_list(self.unsigned[1:], [recovery_id, r, s])
        items = self._unsigned_items()
        chain_id = self.chain_id
        v = 27 + recovery_id if chain_id is None else chain_id * 2 + 35 + recovery_id
        return eth_rlp.encode([*items[: len(LEGACY_LAYOUT)], v, r, s])

    def _unsigned_items(self) -> list[Item]:
        body = self.unsigned if self.tx_type == LEGACY else self.unsigned[1:]
        return eth_rlp.as_list(eth_rlp.decode(body), "transaction")

    def with_sender(self, address: str) -> EthereumTransaction:
        """The same transaction with ``eth.tx.from`` (the ``signWith`` address, lowercased) in its view."""
        return dataclasses.replace(self, view={**self.view, "from": address.lower()})

    def with_contract_interface(self, abi_json: str) -> EthereumTransaction:
        """The view with ``function_name``, ``function_signature`` and ``contract_call_args`` decoded
        through a stored smart-contract interface for ``to``; unchanged when the calldata matches no
        function of it."""
        from simulator.chains.eth_calls import decode_call

        return dataclasses.replace(self, view={**self.view, **decode_call(self.fields["data"], abi_json)})


def parse(unsigned: str) -> EthereumTransaction:
    """Decode an unsigned transaction of any supported type; refuse anything else with its reason."""
    raw = unsigned_bytes(unsigned, "the RLP-serialized unsigned transaction")
    first = raw[0]
    try:
        if first >= 0xC0:
            return _parse_legacy(raw)
        if first in LAYOUTS:
            return _parse_typed(first, raw)
    except RlpFieldError as error:
        raise invalid(str(error)) from None
    if first <= 0x7F:
        raise InvalidArgument(
            f"unsupported transaction type 0x{first:02x}: Ethereum transactions are legacy (an RLP list) or "
            "typed 0x01 (EIP-2930), 0x02 (EIP-1559), 0x03 (EIP-4844) or 0x04 (EIP-7702)",
            error_code="UNSUPPORTED_TRANSACTION_TYPE",
        )
    raise invalid(f"starts with 0x{first:02x}, which is neither an RLP list (legacy) nor a transaction type byte")


def _parse_legacy(raw: bytes) -> EthereumTransaction:
    items = eth_rlp.as_list(eth_rlp.decode(raw), "transaction")
    if len(items) not in (6, 9):
        raise invalid(
            f"a legacy transaction has 6 fields, or 9 with EIP-155's chainId, 0, 0; got {len(items)} "
            "(nonce, gasPrice, gasLimit, to, value, data)"
        )
    fields = decode_fields(LEGACY_LAYOUT, items[:6])
    if len(items) == 9:
        fields["chain_id"] = _eip155_chain_id(items[6:])
    return EthereumTransaction(LEGACY, fields, raw, policy_view(LEGACY, fields))


def _eip155_chain_id(tail: list[Item]) -> int:
    chain_id = eth_rlp.as_uint(tail[0], "chain_id", UINT64)
    if tail[1] != b"" or tail[2] != b"":
        raise invalid("the transaction is already signed (r and s are set); send the unsigned transaction")
    if chain_id == 0:
        raise invalid("EIP-155 chain id 0 is not a chain; leave chainId, 0, 0 out for a transaction without one")
    return chain_id


def _parse_typed(tx_type: int, raw: bytes) -> EthereumTransaction:
    items = eth_rlp.as_list(eth_rlp.decode(raw[1:]), "transaction")
    layout = LAYOUTS[tx_type]
    if tx_type == 3 and len(items) == 4 and isinstance(items[0], list):
        raise invalid(
            "EIP-4844 network wrapper (transaction, blobs, commitments, proofs) is not accepted: send the "
            "transaction body only (viem: serializeTransaction with sidecars: false)"
        )
    if len(items) == len(layout) + SIGNATURE_FIELDS:
        raise invalid("the transaction is already signed (yParity, r and s are set); send the unsigned transaction")
    if len(items) != len(layout):
        raise invalid(
            f"a type 0x{tx_type:02x} transaction has {len(layout)} fields ({', '.join(layout)}), got {len(items)}"
        )
    fields = decode_fields(layout, items)
    if tx_type in NEEDS_DESTINATION and not fields["to"]:
        raise invalid(f"a type 0x{tx_type:02x} transaction cannot create a contract: to must be a 20-byte address")
    return EthereumTransaction(tx_type, fields, raw, policy_view(tx_type, fields))


def unsigned_eip1559(
    *,
    chain_id: int,
    nonce: int,
    max_priority_fee_per_gas: int,
    max_fee_per_gas: int,
    gas: int,
    to: str,
    value: int = 0,
    data: bytes = b"",
) -> str:
    """The unsigned type-2 serialization (hex, no ``0x``) of a call with an empty access list, for
    activities that build a transaction from fields (eth_send_transaction)."""
    destination = bytes.fromhex(to[2:] if to[:2].lower() == "0x" else to)
    body: list[eth_rlp.Encodable] = [
        chain_id,
        nonce,
        max_priority_fee_per_gas,
        max_fee_per_gas,
        gas,
        destination,
        value,
        data,
        [],
    ]
    return (b"\x02" + eth_rlp.encode(body)).hex()
