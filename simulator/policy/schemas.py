"""The request-dependent keywords of the condition language, as Turnkey's language page documents them.

Transaction namespaces (``eth.tx``, ``solana.tx``, ...) exist only when the request carries that
kind of payload; the target keywords (``wallet``, ``private_key``, ...) only when it targets one.
Each namespace lists its documented top-level fields (a policy naming another is refused when it
is compiled) and which of its fields are integers, so that a view may hold a big number as a
decimal or 0x-hex string and the language still compares it as the ``int``/``uint`` it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

INT = "int"
# A schema: INT, a dict of field -> schema for a struct, or a one-item list [schema] for a list's items.
Schema = Any

TRON_PERMISSION: Schema = {"id": INT, "threshold": INT, "parent_id": INT, "keys": [{"weight": INT}]}
LOOKUP: Schema = {"writable_indexes": [INT], "readonly_indexes": [INT]}


@dataclass(frozen=True, slots=True)
class Namespace:
    """A transaction keyword: its documented ``fields``, the ``ints`` among them, and what provides it."""

    path: str
    fields: tuple[str, ...]
    ints: Schema
    provided_by: str


def ints(names: str) -> dict[str, str]:
    """A struct schema whose space-separated ``names`` are all ints."""
    return dict.fromkeys(names.split(), INT)


def _namespace(path: str, fields: str, ints: Schema, provided_by: str) -> Namespace:
    return Namespace(path, tuple(fields.split()), ints, provided_by)


NAMESPACES: dict[str, Namespace] = {
    n.path: n
    for n in (
        _namespace(
            "eth.tx",
            "from to data value gas gas_price chain_id nonce max_fee_per_gas max_priority_fee_per_gas "
            "max_fee_per_blob_gas type function_name function_signature contract_call_args",
            ints("value gas gas_price chain_id nonce max_fee_per_gas max_priority_fee_per_gas max_fee_per_blob_gas"),
            "sign_transaction with TRANSACTION_TYPE_ETHEREUM",
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
        _namespace(
            "solana.tx",
            "account_keys program_keys instructions transfers recent_blockhash spl_transfers address_table_lookups",
            {
                "instructions": [{"address_table_lookups": [LOOKUP]}],
                "transfers": [{"amount": INT}],
                "spl_transfers": [{"amount": INT}],
                "address_table_lookups": [LOOKUP],
            },
            "sign_transaction with TRANSACTION_TYPE_SOLANA",
        ),
        _namespace(
            "tron.tx",
            "ref_block_bytes ref_block_hash expiration timestamp data fee_limit contract",
            {
                **ints("expiration timestamp fee_limit"),
                "contract": [
                    {
                        **ints(
                            "permission_id amount call_value call_token_value token_id balance lock_period "
                            "frozen_balance unfreeze_balance"
                        ),
                        "owner": TRON_PERMISSION,
                        "witness": TRON_PERMISSION,
                        "actives": [TRON_PERMISSION],
                    }
                ],
            },
            "sign_transaction with TRANSACTION_TYPE_TRON",
        ),
        _namespace(
            "bitcoin.tx",
            "version inputs outputs locktime fee",
            {
                "inputs": [{"vout": INT, "sequence": INT}],
                "outputs": [{"value": INT}],
                "locktime": {"amount": INT},
                "fee": INT,
            },
            "sign_transaction with TRANSACTION_TYPE_BITCOIN",
        ),
        _namespace(
            "tempo.tx",
            "chain_id from nonce gas_limit max_fee_per_gas max_priority_fee_per_gas fee_token valid_before "
            "valid_after calls",
            ints("chain_id nonce gas_limit max_fee_per_gas max_priority_fee_per_gas valid_before valid_after"),
            "sign_transaction with TRANSACTION_TYPE_TEMPO (which the simulator does not sign)",
        ),
    )
}
TRANSACTION_ROOTS = frozenset(path.split(".")[0] for path in NAMESPACES)
# The targets of sign and export requests: present only when the request targets one of them.
TARGET_KEYWORDS = frozenset(("wallet", "wallets", "private_key", "wallet_account"))


def sub_namespaces(root: str) -> list[str]:
    """The keywords under a transaction root, e.g. ``eth`` -> eth.tx, eth.eip_712, eth.eip_7702_authorization."""
    return [path for path in NAMESPACES if path.split(".")[0] == root]
