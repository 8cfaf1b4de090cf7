"""Chain transaction formats: parse an unsigned transaction, describe it to policies, sign it.

Every chain module exposes ``parse(unsigned: str) -> ParsedTransaction``; parsing happens
before the policy decision (policies read ``view``), signing only once the activity may run.
"""

from __future__ import annotations

from typing import Any, Protocol


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
