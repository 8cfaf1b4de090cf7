"""Solana transactions: built by @solana/web3.js v1, parsed and signed by the simulator, checked by
web3.js (deserialization as @turnkey/solana does it) and @noble/curves' Ed25519 verify.

The node tests run when node and tests/js/node_modules are present (`npm ci --prefix tests/js`);
the refusal and fuzz tests need only Python (PyNaCl for keys, solders to build odd messages).
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import base58
import pytest
from nacl.signing import SigningKey

from simulator.chains import solana
from simulator.errors import InvalidArgument

JS = Path(__file__).resolve().parents[1] / "js"
needs_node = pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules" / "@solana" / "web3.js").is_dir()),
    reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)",
)
SEEDS = {name: hashlib.sha256(name.encode()).digest() for name in ("payer", "cosigner", "stranger")}


def public(name: str) -> str:
    return base58.b58encode(bytes(SigningKey(SEEDS[name]).verify_key)).decode()


def other_key(label: str) -> str:
    return base58.b58encode(hashlib.sha256(label.encode()).digest()).decode()


SPEC = {
    "payer": public("payer"),
    "cosigner": public("cosigner"),
    **{name: other_key(name) for name in ("recipient", "mint", "tokenFrom", "tokenTo", "table", "blockhash")},
}


def node(request: dict[str, Any]) -> Any:
    run = subprocess.run(
        ["node", str(JS / "solana.js"), json.dumps(request)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.fixture(scope="module")
def built() -> dict[str, str]:
    return dict(node({"build": SPEC}))


@needs_node
def test_legacy_view_names_accounts_programs_and_transfers(built: dict[str, str]) -> None:
    view = solana.parse(built["legacy"]).view
    assert view["account_keys"][:2] == [SPEC["payer"], SPEC["cosigner"]]
    assert view["program_keys"] == [
        "11111111111111111111111111111111",
        "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
    ]
    assert view["recent_blockhash"] == SPEC["blockhash"]
    assert view["transfers"] == [
        {"from": SPEC["payer"], "to": SPEC["recipient"], "amount": 1234},
        {"from": SPEC["cosigner"], "to": SPEC["recipient"], "amount": 99},
    ]
    assert view["spl_transfers"] == [
        {
            "from": SPEC["tokenFrom"],
            "to": SPEC["tokenTo"],
            "amount": 5000000,
            "owner": SPEC["payer"],
            "signers": [],
            "token_mint": SPEC["mint"],
        }
    ]
    first = view["instructions"][0]
    assert first["instruction_data_hex"] == "02000000d204000000000000"
    assert first["accounts"] == [
        {"account_key": SPEC["payer"], "signer": True, "writable": True},
        {"account_key": SPEC["recipient"], "signer": False, "writable": True},
    ]
    assert view["address_table_lookups"] == [] and first["address_table_lookups"] == []


@needs_node
def test_v0_view_leaves_lookup_table_accounts_unresolved(built: dict[str, str]) -> None:
    view = solana.parse(built["v0"]).view
    table = {"address_table_key": SPEC["table"], "writable_indexes": [0, 1], "readonly_indexes": [2]}
    assert view["address_table_lookups"] == [table]
    assert view["transfers"][0] == {"from": SPEC["payer"], "to": "ADDRESS_TABLE_LOOKUP", "amount": 1234}
    spl = view["spl_transfers"][0]
    assert (spl["to"], spl["token_mint"], spl["owner"]) == (
        "ADDRESS_TABLE_LOOKUP",
        "ADDRESS_TABLE_LOOKUP",
        SPEC["payer"],
    )
    assert view["account_keys"].count("ADDRESS_TABLE_LOOKUP") == 3
    token_ix = view["instructions"][2]
    assert token_ix["address_table_lookups"] == [
        {"address_table_key": SPEC["table"], "writable_indexes": [1], "readonly_indexes": [2]}
    ]
    assert token_ix["accounts"][1] == {"account_key": "ADDRESS_TABLE_LOOKUP", "signer": False, "writable": False}


@needs_node
@pytest.mark.parametrize("form", ["legacy", "v0"])
def test_each_signer_fills_only_its_own_slot(built: dict[str, str], form: str) -> None:
    by_cosigner = solana.parse(built[form]).sign("CURVE_ED25519", SEEDS["cosigner"])
    by_both = solana.parse(by_cosigner).sign("CURVE_ED25519", SEEDS["payer"])
    assert len(by_cosigner) == len(by_both) == len(built[form]) and not by_both.startswith("0x")
    checks = node({"verify": [{"hex": h, "versioned": form == "v0"} for h in (by_cosigner, by_both)]})
    assert checks[0] == [
        {"publicKey": SPEC["payer"], "state": "empty"},
        {"publicKey": SPEC["cosigner"], "state": "valid"},
    ]
    assert [slot["state"] for slot in checks[1]] == ["valid", "valid"]


@needs_node
def test_signature_verifies_with_pynacl_over_the_message(built: dict[str, str]) -> None:
    signed = bytes.fromhex(solana.parse(built["legacy"]).sign("CURVE_ED25519", SEEDS["payer"]))
    message_offset = 1 + 2 * 64
    SigningKey(SEEDS["payer"]).verify_key.verify(signed[message_offset:], signed[1:65])
    assert signed[65:129] == bytes(64)


def solders_transaction(program_index: int = 2, lookups: bool = False, slots: int | None = None) -> str:
    """A one-signer transaction built with solders (for shapes web3.js will not build)."""
    from solders.hash import Hash
    from solders.instruction import CompiledInstruction
    from solders.message import MessageAddressTableLookup, MessageHeader, MessageV0
    from solders.pubkey import Pubkey
    from solders.signature import Signature
    from solders.transaction import VersionedTransaction

    keys = [Pubkey.from_string(public("payer")), Pubkey.from_string(other_key("x")), Pubkey.default()]
    table = [MessageAddressTableLookup(Pubkey.from_string(other_key("t")), bytes([0]), bytes([1]))] if lookups else []
    ix = CompiledInstruction(program_index, bytes([2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]), bytes([0, 1]))
    message = MessageV0(MessageHeader(1, 0, 1), keys, Hash.default(), [ix], table)
    signatures = [Signature.default()] * (1 if slots is None else slots)
    return bytes(VersionedTransaction.populate(message, signatures)).hex()


def refusal(unsigned: str, curve: str = "CURVE_ED25519", seed: bytes = SEEDS["payer"]) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        solana.parse(unsigned).sign(curve, seed)
    return caught.value


def test_refusals_say_what_is_wrong() -> None:
    good = solders_transaction()
    assert solana.parse("0x" + good).signers == (public("payer"),)
    stranger = refusal(good, seed=SEEDS["stranger"])
    assert stranger.error_code == "REQUEST_INVALID" and public("stranger") in stranger.message
    assert "CURVE_ED25519" in refusal(good, curve="CURVE_SECP256K1", seed=bytes(31) + b"\x01").message
    looked_up_program = refusal(solders_transaction(program_index=3, lookups=True))
    assert looked_up_program.error_code == "INVALID_TRANSACTION" and "lookup table" in looked_up_program.message
    message_only = refusal(good[2 + 128 :])
    assert message_only.error_code == "INVALID_TRANSACTION"
    assert "2 signature slots" in refusal(solders_transaction(slots=2)).message
    assert "hex" in refusal("zz").message and "empty" in refusal("").message
    assert "malformed" in refusal(solders_transaction(program_index=9)).message


def test_random_and_mutated_bytes_parse_or_are_refused() -> None:
    rng = random.Random(20260818)
    valid = bytes.fromhex(solders_transaction(lookups=True))
    for _ in range(1500):
        if rng.random() < 0.5:
            candidate = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
        else:
            mutated = bytearray(valid)
            for _ in range(rng.randrange(1, 4)):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            candidate = bytes(mutated[: rng.randrange(len(mutated) + 1)]) if rng.random() < 0.3 else bytes(mutated)
        try:
            parsed = solana.parse(candidate.hex())
        except InvalidArgument as error:
            assert error.error_code == "INVALID_TRANSACTION"
            continue
        try:
            parsed.sign("CURVE_ED25519", SEEDS["payer"])
        except InvalidArgument as error:
            assert error.error_code == "REQUEST_INVALID"
