"""The chain registry: each documented transaction type declared once, each view within its namespace.

Adding a chain is a row in simulator/chains/registry.py plus its module (ARCHITECTURE.md, "Adding a
chain"); these checks catch a row that forgets the swagger, a view that outgrows its documented
fields, and a namespace the policy language does not know.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from eth_keys import keys
from tx_builders import bitcoin_psbt, solana_key, solana_transfer, tron_transfer

from simulator.chains.registry import CHAINS, parse
from simulator.errors import InvalidArgument
from simulator.policy.schemas import NAMESPACES

SIGN_TRANSACTION = Path(__file__).resolve().parents[2] / "schemas" / "submit" / "sign_transaction.json"
KEY = hashlib.sha256(b"registry signer").digest()
PUBLIC = keys.PrivateKey(KEY).public_key.to_compressed_bytes().hex()
OWNER = b"\x41" + keys.PrivateKey(KEY).public_key.to_canonical_address()
_CALL = "94111111111111111111111111111111111111111188112210f47de9811585a9059cbb00"
_FEES = "0784773594008506fc23ac0082ea60"

# One unsigned transaction per signed chain, built by the same independent libraries the chain tests use.
SAMPLES = {
    "TRANSACTION_TYPE_ETHEREUM": f"02f50a{_FEES}{_CALL}c0",
    "TRANSACTION_TYPE_SOLANA": solana_transfer(solana_key("payer"), solana_key("payee"), 5_000),
    "TRANSACTION_TYPE_TRON": tron_transfer(OWNER, b"\x41" + bytes(range(20)), 7_000_000),
    "TRANSACTION_TYPE_BITCOIN": bitcoin_psbt(PUBLIC, "p2wpkh")[0].to_hex(),
}


def test_every_documented_transaction_type_is_declared() -> None:
    """The swagger's v1TransactionType enum, as the request schema derived from it carries it."""
    schema = json.loads(SIGN_TRANSACTION.read_text())
    [documented] = {
        tuple(rule["then"]["properties"]["parameters"]["properties"]["type"]["enum"]) for rule in schema["allOf"]
    }
    assert sorted(documented) == sorted(CHAINS)


@pytest.mark.parametrize("transaction_type", sorted(SAMPLES))
def test_each_view_stays_within_its_declared_fields(transaction_type: str) -> None:
    chain = CHAINS[transaction_type]
    parsed = parse(transaction_type, SAMPLES[transaction_type])
    assert parsed.namespace == chain.namespace
    assert parsed.view and set(parsed.view) <= set(chain.fields)


def test_every_chain_namespace_reaches_the_policy_language() -> None:
    assert {chain.namespace for chain in CHAINS.values()} <= set(NAMESPACES)
    assert {t for t, chain in CHAINS.items() if chain.module} == set(SAMPLES)


def test_a_declared_but_unsigned_type_is_refused_as_unsupported() -> None:
    with pytest.raises(InvalidArgument) as refused:
        parse("TRANSACTION_TYPE_TEMPO", "00")
    assert refused.value.error_code == "UNSUPPORTED_TRANSACTION_TYPE"
    assert "TRANSACTION_TYPE_BITCOIN, TRANSACTION_TYPE_ETHEREUM, TRANSACTION_TYPE_SOLANA, TRANSACTION_TYPE_TRON" in str(
        refused.value
    )
