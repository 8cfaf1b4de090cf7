"""The request-dependent keywords of the condition language, as Turnkey's language page documents them.

Transaction namespaces (``eth.tx``, ``solana.tx``, ...) exist only when the request carries that
kind of payload; the target keywords (``wallet``, ``private_key``, ...) only when it targets one.
Each namespace lists its documented top-level fields (a policy naming another is refused when it
is compiled) and which of its fields are integers, so that a view may hold a big number as a
decimal or 0x-hex string and the language still compares it as the ``int``/``uint`` it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.chains.registry import CHAINS, INT, Schema

__all__ = ["INT", "NAMESPACES", "TARGET_KEYWORDS", "TRANSACTION_ROOTS", "Namespace", "Schema", "sub_namespaces"]


@dataclass(frozen=True, slots=True)
class Namespace:
    """A transaction keyword: its documented ``fields``, the ``ints`` among them, and what provides it."""

    path: str
    fields: tuple[str, ...]
    ints: Schema
    provided_by: str


def _namespace(path: str, fields: str, ints: Schema, provided_by: str) -> Namespace:
    return Namespace(path, tuple(fields.split()), ints, provided_by)


def _signed_by(transaction_type: str, signed: bool) -> str:
    return f"sign_transaction with {transaction_type}" + ("" if signed else " (which the simulator does not sign)")


# The chains' transaction namespaces (simulator/chains/registry.py declares them), then the payloads'.
NAMESPACES: dict[str, Namespace] = {
    n.path: n
    for n in (
        *(
            Namespace(c.namespace, c.fields, c.ints, _signed_by(c.transaction_type, c.module is not None))
            for c in CHAINS.values()
        ),
        _namespace(
            "eth.eip_712",
            "primary_type domain message",
            {"domain": {"chain_id": INT}},
            "sign_raw_payload with PAYLOAD_ENCODING_EIP712",
        ),
        _namespace(
            "eth.eip_7702_authorization",
            "address chain_id nonce",
            {"chain_id": INT, "nonce": INT},
            "sign_raw_payload with PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
        ),
    )
}
TRANSACTION_ROOTS = frozenset(path.split(".")[0] for path in NAMESPACES)
# The targets of sign and export requests (``secret``: export_secrets): present only when the request targets one of them.
TARGET_KEYWORDS = frozenset(("wallet", "wallets", "private_key", "wallet_account", "secret"))


def sub_namespaces(root: str) -> list[str]:
    """The keywords under a transaction root, e.g. ``eth`` -> eth.tx, eth.eip_712, eth.eip_7702_authorization."""
    return [path for path in NAMESPACES if path.split(".")[0] == root]
