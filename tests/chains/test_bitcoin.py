"""Bitcoin PSBTs: built with python-bitcoin-utils, signed by the simulator, then read back, sighashed,
verified and finalized by python-bitcoin-utils (ECDSA checked with `ecdsa`, Schnorr with its BIP-340
reference code) — never by embit, which the simulator uses.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from bitcoinutils.keys import PrivateKey, PublicKey  # type: ignore[import-untyped]
from bitcoinutils.psbt import PSBT  # type: ignore[import-untyped]
from bitcoinutils.schnorr import schnorr_verify  # type: ignore[import-untyped]
from bitcoinutils.script import Script  # type: ignore[import-untyped]
from bitcoinutils.setup import setup  # type: ignore[import-untyped]
from bitcoinutils.transactions import Transaction, TxInput, TxOutput  # type: ignore[import-untyped]
from ecdsa import SECP256k1, VerifyingKey  # type: ignore[import-untyped]
from ecdsa.util import sigdecode_der  # type: ignore[import-untyped]

from simulator.chains import bitcoin
from simulator.errors import InvalidArgument

setup("mainnet")
OWNER, OTHER = (hashlib.sha256(label).digest() for label in (b"btc owner", b"btc other"))


def pub(secret: bytes) -> PublicKey:
    return PrivateKey(b=secret).get_public_key()


@dataclass
class Coin:
    """One funding output and the PSBT fields its spender needs."""

    kind: str
    script_pubkey: Script
    redeem_script: Script | None = None
    witness_script: Script | None = None

    @property
    def segwit(self) -> bool:
        return self.kind in ("p2wpkh", "p2wsh", "p2tr", "p2sh-p2wpkh")


def coins(secret: bytes) -> dict[str, Coin]:
    key = pub(secret)
    bare = Script([key.to_hex(), "OP_CHECKSIG"])
    wpkh = key.get_segwit_address().to_script_pub_key()
    return {
        "p2pkh": Coin("p2pkh", key.get_address().to_script_pub_key()),
        "p2wpkh": Coin("p2wpkh", wpkh),
        "p2tr": Coin("p2tr", key.get_taproot_address().to_script_pub_key()),
        "p2sh": Coin("p2sh", bare.to_p2sh_script_pub_key(), redeem_script=bare),
        "p2wsh": Coin("p2wsh", bare.to_p2wsh_script_pub_key(), witness_script=bare),
        "p2sh-p2wpkh": Coin("p2sh-p2wpkh", wpkh.to_p2sh_script_pub_key(), redeem_script=wpkh),
    }


def build(spends: list[tuple[bytes, str]], tweak: Callable[[PSBT], None] | None = None) -> tuple[PSBT, list[int]]:
    """A PSBT spending one funding output per (owner, kind); returns it and the amounts spent."""
    funded = [coins(secret)[kind] for secret, kind in spends]
    amounts = [10_000 * (i + 1) for i in range(len(funded))]
    funding = Transaction(
        [TxInput("11" * 32, 0)], [TxOutput(a, c.script_pubkey) for a, c in zip(amounts, funded)], has_segwit=False
    )
    sequences = [b"\x00\x00\x00\x00" if i == 0 else b"\xfd\xff\xff\xff" for i in range(len(funded))]
    spend = Transaction(
        [TxInput(funding.get_txid(), i, sequence=s) for i, s in enumerate(sequences)],
        [TxOutput(sum(amounts) - 1_500, pub(OTHER).get_segwit_address().to_script_pub_key())],
        locktime=(840_000).to_bytes(4, "little"),
    )
    psbt = PSBT(spend)
    for psi, coin, amount in zip(psbt.inputs, funded, amounts):
        if coin.segwit:
            psi.witness_utxo = TxOutput(amount, coin.script_pubkey)
        else:
            psi.non_witness_utxo = funding
        psi.redeem_script, psi.witness_script = coin.redeem_script, coin.witness_script
    if tweak:
        tweak(psbt)
    return psbt, amounts


def verify_ecdsa(signed: PSBT, index: int, script_code: Script, amount: int | None) -> None:
    [(key, signature)] = signed.inputs[index].partial_sigs.items()
    assert key == bytes.fromhex(pub(OWNER).to_hex()) and signature[-1] == 0x01
    if amount is None:
        digest = signed.tx.get_transaction_digest(index, script_code, 0x01)
    else:
        digest = signed.tx.get_transaction_segwit_digest(index, script_code, amount, 0x01)
    VerifyingKey.from_string(key, curve=SECP256k1).verify_digest(signature[:-1], digest, sigdecode=sigdecode_der)
    s = sigdecode_der(signature[:-1], SECP256k1.order)[1]
    assert s <= SECP256k1.order // 2  # low-S


def test_every_owned_input_is_signed_and_verifies_independently() -> None:
    kinds = ["p2pkh", "p2wpkh", "p2tr", "p2sh", "p2wsh"]
    unsigned, amounts = build([(OWNER, kind) for kind in kinds] + [(OTHER, "p2wpkh")])
    signed = PSBT.from_hex(bitcoin.parse(unsigned.to_hex()).sign("CURVE_SECP256K1", OWNER))
    key = pub(OWNER)
    verify_ecdsa(signed, 0, key.get_address().to_script_pub_key(), None)
    verify_ecdsa(signed, 1, key.get_address().to_script_pub_key(), amounts[1])  # BIP-143 scriptCode of P2WPKH
    bare = Script([key.to_hex(), "OP_CHECKSIG"])
    verify_ecdsa(signed, 3, bare, None)
    verify_ecdsa(signed, 4, bare, amounts[4])
    scripts = [coins(s)[k].script_pubkey for s, k in [(OWNER, k) for k in kinds] + [(OTHER, "p2wpkh")]]
    digest = signed.tx.get_transaction_taproot_digest(2, scripts, amounts, sighash=0x00)
    tap_signature = signed.inputs[2].unknown[b"\x13"]
    output_key = bytes.fromhex(key.get_taproot_address().to_witness_program())
    assert len(tap_signature) == 64 and schnorr_verify(digest, output_key, tap_signature)
    assert not signed.inputs[2].partial_sigs
    assert not signed.inputs[5].partial_sigs and b"\x13" not in signed.inputs[5].unknown  # not ours: untouched
    assert all(psi.final_scriptsig is None and psi.final_scriptwitness is None for psi in signed.inputs)
    assert signed.tx.inputs[0].sequence == b"\x00\x00\x00\x00"  # a zero sequence survives the round trip


def test_the_client_can_finalize_and_extract_what_comes_back() -> None:
    unsigned, _ = build([(OWNER, "p2pkh"), (OWNER, "p2wpkh"), (OWNER, "p2sh")])
    signed = PSBT.from_hex(bitcoin.parse(unsigned.to_hex()).sign("CURVE_SECP256K1", OWNER))
    signed.finalize()
    final = signed.extract_transaction()
    assert final.has_segwit and len(final.witnesses[1].stack) == 2
    assert final.inputs[0].script_sig.to_hex().endswith(pub(OWNER).to_hex())


def test_two_parties_sign_their_own_inputs_in_turn() -> None:
    unsigned, _ = build([(OWNER, "p2wpkh"), (OTHER, "p2wpkh")])
    once = bitcoin.parse(unsigned.to_hex()).sign("CURVE_SECP256K1", OWNER)
    twice = PSBT.from_hex(bitcoin.parse(once).sign("CURVE_SECP256K1", OTHER))
    owners = [next(iter(psi.partial_sigs)) for psi in twice.inputs]
    assert owners == [bytes.fromhex(pub(OWNER).to_hex()), bytes.fromhex(pub(OTHER).to_hex())]


def test_view_has_the_policy_fields() -> None:
    unsigned, amounts = build([(OWNER, "p2wpkh"), (OWNER, "p2pkh")])
    view = bitcoin.parse(unsigned.to_hex()).view
    txid = unsigned.tx.inputs[0].txid
    assert view["version"] == "2" and view["locktime"] == {"amount": 840_000, "type": "Blocks"}
    assert view["inputs"] == [
        {"tx_id": txid, "vout": 0, "sequence": 0},
        {"tx_id": txid, "vout": 1, "sequence": 0xFFFFFFFD},
    ]
    assert view["outputs"] == [
        {
            "value": sum(amounts) - 1_500,
            "script_pubkey": pub(OTHER).get_segwit_address().to_script_pub_key().to_hex(),
            "address": pub(OTHER).get_segwit_address().to_string(),
            "address_type": "p2wpkh",
        }
    ]
    assert view["fee"] == 1_500
    testnet = bitcoin.parse(unsigned.to_hex(), network="TESTNET").view["outputs"][0]["address"]
    assert testnet.startswith("tb1q")


def refusal(psbt_hex: str, curve: str = "CURVE_SECP256K1", secret: bytes = OWNER) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        bitcoin.parse(psbt_hex).sign(curve, secret)
    return caught.value


def set_field(index: int, **fields: Any) -> Callable[[PSBT], None]:
    def tweak(psbt: PSBT) -> None:
        for name, value in fields.items():
            setattr(psbt.inputs[index], name, value)

    return tweak


def test_refusals_say_what_is_wrong() -> None:
    ours, _ = build([(OWNER, "p2wpkh")])
    theirs, _ = build([(OTHER, "p2wpkh")])
    assert refusal(theirs.to_hex()).error_code == "REQUEST_INVALID"
    assert "CURVE_SECP256K1" in refusal(ours.to_hex(), curve="CURVE_ED25519").message
    assert "not base64" in refusal(ours.to_base64()).message
    wrapped = refusal(build([(OWNER, "p2sh-p2wpkh")])[0].to_hex())
    assert wrapped.error_code == "INVALID_TRANSACTION" and "P2SH-wrapped" in wrapped.message
    legacy_with_witness_utxo = build([(OWNER, "p2pkh")], set_field(0, witness_utxo=TxOutput(10_000, Script([]))))[0]
    assert "witness_utxo" in refusal(legacy_with_witness_utxo.to_hex()).message
    taproot_all = refusal(build([(OWNER, "p2tr")], set_field(0, sighash_type=0x01))[0].to_hex())
    assert "SIGHASH_DEFAULT" in taproot_all.message
    no_utxo = refusal(build([(OWNER, "p2wpkh")], set_field(0, witness_utxo=None))[0].to_hex())
    assert "neither witness_utxo nor non_witness_utxo" in no_utxo.message
    other_funding = Transaction([TxInput("22" * 32, 0)], [TxOutput(1, Script([]))])
    wrong_previous = build([(OWNER, "p2pkh")], set_field(0, non_witness_utxo=other_funding))[0]
    assert "txid differs" in refusal(wrong_previous.to_hex()).message
    assert "magic" in refusal("00" * 10).message and "hex" in refusal("xyz").message


def test_random_and_mutated_bytes_parse_or_are_refused() -> None:
    rng = random.Random(20260818)
    valid = bytes.fromhex(build([(OWNER, "p2wpkh"), (OWNER, "p2pkh")])[0].to_hex())
    for _ in range(600):
        if rng.random() < 0.4:
            candidate = b"psbt\xff" + bytes(rng.randrange(256) for _ in range(rng.randrange(0, 120)))
        else:
            mutated = bytearray(valid)
            for _ in range(rng.randrange(1, 4)):
                mutated[rng.randrange(5, len(mutated))] = rng.randrange(256)
            candidate = bytes(mutated)
        try:
            bitcoin.parse(candidate.hex()).sign("CURVE_SECP256K1", OWNER)
        except InvalidArgument as error:
            assert error.error_code in ("INVALID_TRANSACTION", "REQUEST_INVALID")
