"""Solana transactions (``TRANSACTION_TYPE_SOLANA``): parsed for ``solana.tx``, signed with Ed25519.

The input is what @turnkey/solana sends: hex of the full wire transaction (compact-u16 signature
count, 64-byte signature slots, then the legacy or v0 message). Signing writes the signature into
the slot of the key's public key among the required signers and leaves every other byte as it
came, so legacy stays legacy and v0 stays v0. Address lookup tables are not resolved: looked-up
accounts read ``ADDRESS_TABLE_LOOKUP``, and a program id taken from a lookup table is refused, as
the real policy engine does. ``solders`` (the Rust Solana SDK's types) does the decoding ; it is
imported on first use to keep its 25 ms off the simulator's start path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import base58
from cryptography.hazmat.primitives.asymmetric import ed25519

from simulator.chains import invalid, solana_view, unsigned_bytes
from simulator.errors import InvalidArgument

if TYPE_CHECKING:
    from solders.message import Message, MessageV0
    from solders.transaction import VersionedTransaction

SIGNATURE_SIZE = 64
ED25519 = "CURVE_ED25519"


@dataclass(frozen=True)
class SolanaTransaction:
    """An unsigned Solana wire transaction, understood."""

    raw: bytes
    message_offset: int  # where the message (the signed bytes) starts
    signers: tuple[str, ...]  # base58 public keys of the required signers, in slot order
    view: dict[str, Any]
    legacy: bool
    namespace: str = "solana.tx"

    def sign(self, curve: str, private_key: bytes) -> str:
        """The transaction with the key's Ed25519 signature in its slot, as unprefixed hex."""
        if curve != ED25519:
            raise InvalidArgument(
                f"invalid signing key: Solana transactions are signed with {ED25519} keys, not {curve}"
            )
        key = ed25519.Ed25519PrivateKey.from_private_bytes(private_key)
        public = base58.b58encode(key.public_key().public_bytes_raw()).decode()
        if public not in self.signers:
            raise InvalidArgument(
                f"invalid signer: {public} is not among the transaction's required signers ({', '.join(self.signers)})"
            )
        slot = self.message_offset - SIGNATURE_SIZE * (len(self.signers) - self.signers.index(public))
        signature = key.sign(self.raw[self.message_offset :])
        return (self.raw[:slot] + signature + self.raw[slot + SIGNATURE_SIZE :]).hex()


def parse(unsigned: str) -> SolanaTransaction:
    """Decode hex of a wire transaction with (empty) signature slots; refuse anything else."""
    raw = unsigned_bytes(unsigned, "the serialized transaction")
    tx, message = decode(raw)
    header = message.header
    if len(tx.signatures) != header.num_required_signatures:
        raise invalid(
            f"the transaction has {len(tx.signatures)} signature slots but its message requires "
            f"{header.num_required_signatures} signatures (send the full wire transaction, as "
            "Transaction.serialize({requireAllSignatures: false}) gives it, not the message alone)"
        )
    refuse_looked_up_programs(tx)
    try:
        tx.sanitize()
    except Exception as error:  # solders.SanitizeError: out-of-range indices, bad header counts
        raise invalid(f"the message is malformed ({error})") from None
    keys = tuple(str(key) for key in message.account_keys)
    return SolanaTransaction(
        raw=raw,
        message_offset=signature_section_size(len(tx.signatures)),
        signers=keys[: header.num_required_signatures],
        view=solana_view.describe(message),
        legacy=not solana_view.is_v0(message),
    )


def decode(raw: bytes) -> tuple[VersionedTransaction, Message | MessageV0]:
    from solders.message import Message, MessageV0
    from solders.transaction import VersionedTransaction

    try:
        tx = VersionedTransaction.from_bytes(raw)
    except ValueError as error:
        raise invalid(f"not a Solana wire transaction ({error})") from None
    if bytes(tx) != raw:
        raise invalid("not a Solana wire transaction (trailing or non-canonical bytes)")
    message = tx.message
    if not isinstance(message, (Message, MessageV0)):
        raise invalid("only legacy and version 0 messages are supported")
    return tx, message


def signature_section_size(count: int) -> int:
    """The compact-u16 count (1 to 3 bytes, 7 bits each) plus the signature slots."""
    length_bytes = 1 if count < 0x80 else 2 if count < 0x4000 else 3
    return length_bytes + SIGNATURE_SIZE * count


def refuse_looked_up_programs(tx: VersionedTransaction) -> None:
    """Out-of-range indexes are left to ``sanitize``; this names the case the service documents."""
    static = len(tx.message.account_keys)
    lookups = getattr(tx.message, "address_table_lookups", [])
    looked_up = sum(len(t.writable_indexes) + len(t.readonly_indexes) for t in lookups)
    for index, instruction in enumerate(tx.message.instructions):
        if static <= instruction.program_id_index < static + looked_up:
            raise invalid(
                f"instruction {index} takes its program id from an address lookup table; program ids "
                "must be static account keys"
            )
