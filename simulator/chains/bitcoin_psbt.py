"""Reading, checking and writing PSBTs (BIP-174/370) with embit, and what ``bitcoin.tx`` shows of one.

embit is imported on first use, to keep it off the simulator's start path. Two of its defaults
would change the transaction, so they are corrected here: an input's sequence 0 (which enables
locktime and RBF) and a transaction version 0 would come back as 0xFFFFFFFF and 2.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

from simulator.chains import invalid, unsigned_bytes
from simulator.crypto.bech32 import bech32_encode
from simulator.crypto.chain_formats import NETWORKS, base58check, hash160

Psbt = Any  # embit ships no type information
PsbtInput = Any
PSBT_MAGIC = b"psbt\xff"
LOCKTIME_THRESHOLD = 500_000_000  # below: a block height; from here on: a UNIX time
WITNESS_VERSIONS = {"p2wpkh": 0, "p2wsh": 0, "p2tr": 1}


def psbt_bytes(unsigned: str) -> bytes:
    if unsigned.startswith("cHNidP"):
        raise invalid("unsignedTransaction must be the PSBT as hex, not base64")
    raw = unsigned_bytes(unsigned, "a serialized PSBT")
    if not raw.startswith(PSBT_MAGIC):
        raise invalid("not a PSBT (it must start with the magic bytes 70736274ff)")
    return raw


@functools.cache
def psbt_class() -> Any:
    from embit.psbt import PSBT, InputScope  # type: ignore[import-untyped]
    from embit.transaction import Transaction, TransactionInput  # type: ignore[import-untyped]

    class ExactInput(InputScope):  # type: ignore[misc]
        @property
        def vin(self) -> Any:
            return TransactionInput(
                self.txid, self.vout, sequence=0xFFFFFFFF if self.sequence is None else self.sequence
            )

    class ExactPsbt(PSBT):  # type: ignore[misc]
        PSBTIN_CLS = ExactInput

        @property
        def tx(self) -> Any:
            return Transaction(
                version=2 if self.tx_version is None else self.tx_version,
                locktime=self.locktime or 0,
                vin=[spend.vin for spend in self.inputs],
                vout=[output.vout for output in self.outputs],
            )

    return ExactPsbt


def read(raw: bytes) -> Psbt:
    try:
        psbt = psbt_class().parse(raw)
    except Exception as error:  # embit raises PSBTError, EmbitError, ValueError, RuntimeError, ... on bad bytes
        raise invalid(f"not a valid PSBT ({error or type(error).__name__})") from None
    if not psbt.inputs:
        raise invalid("the PSBT has no inputs")
    for index, spend in enumerate(psbt.inputs):
        check_input(index, spend)
    return psbt


def write(psbt: Psbt) -> bytes:
    return bytes(psbt.serialize())


def check_input(index: int, spend: PsbtInput) -> None:
    """Every input must say what it spends, and say it consistently (the fee and taproot sighashes need it)."""
    if spend.non_witness_utxo is not None:
        previous = spend.non_witness_utxo
        if previous.txid() != spend.txid:
            raise invalid(f"input {index}: non_witness_utxo is not the transaction the input spends (txid differs)")
        if spend.vout >= len(previous.vout):
            raise invalid(f"input {index}: non_witness_utxo has no output {spend.vout}")
        witness = spend.witness_utxo
        if witness is not None and witness.serialize() != previous.vout[spend.vout].serialize():
            raise invalid(f"input {index}: witness_utxo differs from the output non_witness_utxo shows")
    elif spend.witness_utxo is None:
        raise invalid(f"input {index}: it carries neither witness_utxo nor non_witness_utxo")
    check_scripts(index, spend)


def check_scripts(index: int, spend: PsbtInput) -> None:
    data = spend.utxo.script_pubkey.data
    kind = spend.utxo.script_pubkey.script_type()
    if kind == "p2sh" and spend.redeem_script is not None and hash160(spend.redeem_script.data) != data[2:22]:
        raise invalid(f"input {index}: redeem_script does not hash to the P2SH output it spends")
    witness_script = spend.witness_script.data if spend.witness_script is not None else None
    if kind == "p2wsh" and witness_script is not None and hashlib.sha256(witness_script).digest() != data[2:]:
        raise invalid(f"input {index}: witness_script does not hash to the P2WSH output it spends")


def spent_output(psbt: Psbt, index: int) -> Any:
    return psbt.inputs[index].utxo


def script(data: bytes) -> Any:
    from embit.script import Script  # type: ignore[import-untyped]

    return Script(data)


def public_key(sec: bytes) -> Any:
    from embit.ec import PublicKey  # type: ignore[import-untyped]

    return PublicKey.parse(sec)


def describe(psbt: Psbt, network: str) -> dict[str, Any]:
    """``bitcoin.tx``: version, inputs, outputs, locktime and fee (inputs minus outputs, in sats)."""
    tx = psbt.tx
    spent = sum(spend.utxo.value for spend in psbt.inputs)
    return {
        "version": str(tx.version),
        "inputs": [{"tx_id": vin.txid.hex(), "vout": vin.vout, "sequence": vin.sequence} for vin in tx.vin],
        "outputs": [output_view(output, network) for output in tx.vout],
        "locktime": {"amount": tx.locktime, "type": "Blocks" if tx.locktime < LOCKTIME_THRESHOLD else "Seconds"},
        "fee": spent - sum(output.value for output in tx.vout),
    }


def output_view(output: Any, network: str) -> dict[str, Any]:
    kind = output.script_pubkey.script_type()
    data = output.script_pubkey.data
    return {
        "value": output.value,
        "script_pubkey": data.hex(),
        "address": address(kind, data, network),
        "address_type": kind or "",
    }


def address(kind: str | None, data: bytes, network: str) -> str:
    """The output's address on ``network``, or "" for scripts without one (OP_RETURN, bare multisig)."""
    pubkey_hash_version, script_hash_version, hrp = NETWORKS[network]
    if kind == "p2pkh":
        return base58check(pubkey_hash_version, data[3:23])
    if kind == "p2sh":
        return base58check(script_hash_version, data[2:22])
    if kind in WITNESS_VERSIONS:
        return bech32_encode(hrp, WITNESS_VERSIONS[kind], data[2:])
    return ""
