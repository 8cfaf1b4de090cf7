"""Chain transaction formats: parse an unsigned transaction, describe it to policies, sign it.

Every chain module exposes ``parse(unsigned: str) -> ParsedTransaction``; parsing happens
before the policy decision (policies read ``view``), signing only once the activity may run.
"""

from __future__ import annotations

from typing import Any, Protocol

from simulator.errors import InvalidArgument


class ParsedTransaction(Protocol):
    """An unsigned transaction, understood."""

    @property
    def namespace(self) -> str:
        """Where the policy language finds it: ``eth.tx``, ``solana.tx``, ``tron.tx``, ``bitcoin.tx``."""
        ...

    @property
    def view(self) -> dict[str, Any]:
        """The transaction's fields as the policy language names them under ``namespace``."""
        ...

    def sign(self, curve: str, private_key: bytes) -> str:
        """The signed transaction, in the exact form the real service returns it.

        Raises ``simulator.errors.InvalidArgument`` when the key cannot sign this transaction
        (wrong curve, not among the signers).
        """
        ...


def invalid(reason: str) -> InvalidArgument:
    """The service's refusal of an unparseable transaction."""
    return InvalidArgument(f"failed to parse transaction: {reason}", error_code="INVALID_TRANSACTION")


def unsigned_bytes(unsigned: str, what: str) -> bytes:
    """``unsignedTransaction`` as bytes: hex with or without ``0x``, nothing else, never empty."""
    text = unsigned[2:] if unsigned[:2].lower() == "0x" else unsigned
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise invalid(f"unsignedTransaction must be the hex of {what}") from None
    # fromhex skips ASCII whitespace (and refuses other whitespace); the service does not: any left
    # the text longer than its two digits a byte (a scan of it per character cost ≈10 µs a transaction)
    if not raw or len(text) != 2 * len(raw):
        raise invalid("unsignedTransaction is empty" if not raw else "unsignedTransaction must not contain spaces")
    return raw
