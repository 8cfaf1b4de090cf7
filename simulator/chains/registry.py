"""The chains, each declared once: its transaction type, its module, and the policy namespace it fills.

Adding a chain is a row here plus its module (ARCHITECTURE.md, "Adding a chain"): sign_transaction
dispatches through ``parse``, and the policy language (``simulator.policy.schemas``) takes its
transaction namespaces from these rows. A chain module is imported only when its first transaction
arrives: its wire-format library stays off the start path (tests/cli/test_startup_imports.py).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from simulator.chains import ParsedTransaction
from simulator.errors import InvalidArgument

INT = "int"
# A schema: INT, a dict of field -> schema for a struct, or a one-item list [schema] for a list's items.
Schema = Any


def ints(names: str) -> dict[str, str]:
    """A struct schema whose space-separated ``names`` are all ints."""
    return dict.fromkeys(names.split(), INT)


@dataclass(frozen=True, slots=True)
class Chain:
    """A ``TRANSACTION_TYPE_*``: the module whose ``parse`` reads it (None: not signed) and its policy namespace.

    ``fields`` are the namespace's documented top-level fields, ``ints`` the schema of its integer
    fields (a view may give a big number as a string; the language compares it as an int).
    ``takes_network``: ``parse(unsigned, network)``, the network named by the signing account's
    address format (Bitcoin names its outputs' addresses with it).
    """

    transaction_type: str
    module: str | None
    namespace: str
    fields: tuple[str, ...]
    ints: Schema
    takes_network: bool = False


TRON_PERMISSION: Schema = {"id": INT, "threshold": INT, "parent_id": INT, "keys": [{"weight": INT}]}
LOOKUP: Schema = {"writable_indexes": [INT], "readonly_indexes": [INT]}

CHAINS: dict[str, Chain] = {
    chain.transaction_type: chain
    for chain in (
        Chain(
            "TRANSACTION_TYPE_ETHEREUM",
            "simulator.chains.ethereum",
            "eth.tx",
            tuple(
                [
                    "from",
                    "to",
                    "data",
                    "value",
                    "gas",
                    "gas_price",
                    "chain_id",
                    "nonce",
                    "max_fee_per_gas",
                    "max_priority_fee_per_gas",
                    "max_fee_per_blob_gas",
                    "type",
                    "function_name",
                    "function_signature",
                    "contract_call_args",
                ]
            ),
            ints("value gas gas_price chain_id nonce max_fee_per_gas max_priority_fee_per_gas max_fee_per_blob_gas"),
        ),
        Chain(
            "TRANSACTION_TYPE_SOLANA",
            "simulator.chains.solana",
            "solana.tx",
            tuple(
                [
                    "account_keys",
                    "program_keys",
                    "instructions",
                    "transfers",
                    "recent_blockhash",
                    "spl_transfers",
                    "address_table_lookups",
                ]
            ),
            {
                "instructions": [{"address_table_lookups": [LOOKUP]}],
                "transfers": [{"amount": INT}],
                "spl_transfers": [{"amount": INT}],
                "address_table_lookups": [LOOKUP],
            },
        ),
        Chain(
            "TRANSACTION_TYPE_TRON",
            "simulator.chains.tron",
            "tron.tx",
            tuple(["ref_block_bytes", "ref_block_hash", "expiration", "timestamp", "data", "fee_limit", "contract"]),
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
        ),
        Chain(
            "TRANSACTION_TYPE_BITCOIN",
            "simulator.chains.bitcoin",
            "bitcoin.tx",
            tuple(["version", "inputs", "outputs", "locktime", "fee"]),
            {
                "inputs": [{"vout": INT, "sequence": INT}],
                "outputs": [{"value": INT}],
                "locktime": {"amount": INT},
                "fee": INT,
            },
            takes_network=True,
        ),
        Chain(  # documented, so policies may name it; the simulator does not sign it
            "TRANSACTION_TYPE_TEMPO",
            None,
            "tempo.tx",
            tuple(
                [
                    "chain_id",
                    "from",
                    "nonce",
                    "gas_limit",
                    "max_fee_per_gas",
                    "max_priority_fee_per_gas",
                    "fee_token",
                    "valid_before",
                    "valid_after",
                    "calls",
                ]
            ),
            ints("chain_id nonce gas_limit max_fee_per_gas max_priority_fee_per_gas valid_before valid_after"),
        ),
    )
}
SIGNED = tuple(sorted(t for t, chain in CHAINS.items() if chain.module is not None))


def parse(transaction_type: str, unsigned: str, network: str = "MAINNET") -> ParsedTransaction:
    """The unsigned transaction, understood; ``network`` names Bitcoin outputs' addresses in the view."""
    chain = CHAINS.get(transaction_type)
    if chain is None or chain.module is None:
        raise InvalidArgument(
            f"transaction type {transaction_type} is not simulated: the simulator signs "
            f"{', '.join(SIGNED)} (see the README's fidelity notes)",
            error_code="UNSUPPORTED_TRANSACTION_TYPE",
        )
    module = importlib.import_module(chain.module)
    parsed: ParsedTransaction = module.parse(unsigned, network) if chain.takes_network else module.parse(unsigned)
    return parsed
