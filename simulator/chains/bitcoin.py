"""Bitcoin PSBTs (``TRANSACTION_TYPE_BITCOIN``): parsed for ``bitcoin.tx``, signed input by input.

As DOCS ``features/networks/bitcoin.mdx`` describes the real service: the input is a hex PSBT; the
key signs every input it owns and nothing else; P2PKH, P2SH, P2WPKH and P2WSH inputs get a DER
ECDSA signature (SIGHASH_ALL) in their partial signatures, P2TR key-path inputs a BIP-340 Schnorr
signature with the BIP-86-tweaked key (SIGHASH_DEFAULT) as their taproot key-spend signature; the
PSBT comes back as hex, NOT finalized. P2SH-wrapped SegWit, taproot script paths and any other
sighash type are refused. ``embit`` reads and writes the PSBT and computes the sighashes (BIP-143,
BIP-341); coincurve (libsecp256k1) signs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import coincurve

from simulator.chains import bitcoin_psbt
from simulator.chains.bitcoin_psbt import Psbt, PsbtInput
from simulator.crypto.chain_formats import NETWORKS, hash160, tagged_hash, taproot_output_key
from simulator.errors import InvalidArgument

SECP256K1 = "CURVE_SECP256K1"
SIGHASH_DEFAULT, SIGHASH_ALL = 0x00, 0x01
TAP_KEY_SIG = b"\x13"  # PSBT_IN_TAP_KEY_SIG, which embit keeps among the unknown fields
CURVE_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


@dataclass(frozen=True)
class BitcoinTransaction:
    """An unsigned (or partly signed) PSBT, understood."""

    psbt_bytes: bytes
    view: dict[str, Any]
    namespace: str = "bitcoin.tx"

    def sign(self, curve: str, private_key: bytes) -> str:
        """The PSBT with this key's signature on every input it owns, as hex, not finalized."""
        if curve != SECP256K1:
            raise InvalidArgument(f"invalid signing key: Bitcoin inputs are signed with {SECP256K1} keys, not {curve}")
        psbt = bitcoin_psbt.read(self.psbt_bytes)
        key = coincurve.PrivateKey(private_key)
        public = key.public_key.format(compressed=True)
        signed = [index for index, spend in enumerate(psbt.inputs) if sign_input(psbt, index, spend, key, public)]
        if not signed:
            raise InvalidArgument(
                f"invalid signer: no input of the PSBT spends an output of public key {public.hex()} "
                "(P2PKH, P2SH, P2WPKH, P2WSH or P2TR key path)"
            )
        return bitcoin_psbt.write(psbt).hex()


def parse(unsigned: str, network: str = "MAINNET") -> BitcoinTransaction:
    """Decode a hex PSBT. ``network`` (MAINNET, TESTNET, SIGNET, REGTEST) only sets how output
    addresses are written in the view: a PSBT does not say which network it is for."""
    if network not in NETWORKS:
        raise ValueError(f"unknown Bitcoin network {network!r}: one of {', '.join(NETWORKS)}")
    raw = bitcoin_psbt.psbt_bytes(unsigned)
    psbt = bitcoin_psbt.read(raw)
    return BitcoinTransaction(psbt_bytes=raw, view=bitcoin_psbt.describe(psbt, network))


def sign_input(psbt: Psbt, index: int, spend: PsbtInput, key: coincurve.PrivateKey, public: bytes) -> bool:
    """Sign input ``index`` if ``public`` owns it; refuse an owned input of a kind the service refuses."""
    script = spend.utxo.script_pubkey
    kind, data = script.script_type(), script.data
    if kind == "p2tr":
        return sign_taproot(psbt, index, spend, key, public, data[2:])
    if kind == "p2pkh" and data[3:23] == hash160(public):
        require_legacy_utxo(index, spend)
        return sign_ecdsa(psbt, index, spend, key, public, script, segwit=False)
    if kind == "p2sh" and wraps_key(spend, public):
        raise unsupported(index, "a P2SH-wrapped SegWit input (P2SH-P2WPKH / P2SH-P2WSH)")
    if kind == "p2sh" and spend.redeem_script is not None and owns_script(spend.redeem_script.data, public):
        require_legacy_utxo(index, spend)
        return sign_ecdsa(psbt, index, spend, key, public, spend.redeem_script, segwit=False)
    if kind == "p2wpkh" and data[2:] == hash160(public):
        require_witness_utxo(index, spend)
        script_code = bitcoin_psbt.script(b"\x76\xa9\x14" + data[2:] + b"\x88\xac")  # BIP-143 P2WPKH scriptCode
        return sign_ecdsa(psbt, index, spend, key, public, script_code, segwit=True)
    if kind == "p2wsh" and spend.witness_script is not None and owns_script(spend.witness_script.data, public):
        require_witness_utxo(index, spend)
        return sign_ecdsa(psbt, index, spend, key, public, spend.witness_script, segwit=True)
    return False


def sign_ecdsa(
    psbt: Psbt, index: int, spend: PsbtInput, key: coincurve.PrivateKey, public: bytes, script_code: Any, segwit: bool
) -> bool:
    require_sighash(index, spend, SIGHASH_ALL, "SIGHASH_ALL")
    if segwit:
        digest = psbt.tx.sighash_segwit(index, script_code, spend.utxo.value, sighash=SIGHASH_ALL)
    else:
        digest = psbt.tx.sighash_legacy(index, script_code, sighash=SIGHASH_ALL)
    # libsecp256k1 signs deterministically (RFC 6979) and always low-S, as BIP-62 relay policy wants
    signature = key.sign(digest, hasher=None) + bytes([SIGHASH_ALL])
    spend.partial_sigs[bitcoin_psbt.public_key(public)] = signature
    return True


def sign_taproot(
    psbt: Psbt, index: int, spend: PsbtInput, key: coincurve.PrivateKey, public: bytes, output_key: bytes
) -> bool:
    internal = spend.taproot_internal_key.xonly() if spend.taproot_internal_key is not None else None
    if output_key != taproot_output_key(public):
        if internal == public[1:]:
            raise unsupported(index, "a taproot output committing to a script tree (only BIP-86 key paths are signed)")
        return False
    require_witness_utxo(index, spend)
    require_sighash(index, spend, SIGHASH_DEFAULT, "SIGHASH_DEFAULT")
    if spend.taproot_scripts or spend.taproot_sigs or spend.taproot_merkle_root:
        raise unsupported(index, "taproot script-path data (tap_scripts, tap_script_sigs, tap_merkle_root)")
    scripts = [bitcoin_psbt.spent_output(psbt, i).script_pubkey for i in range(len(psbt.inputs))]
    values = [bitcoin_psbt.spent_output(psbt, i).value for i in range(len(psbt.inputs))]
    digest = psbt.tx.sighash_taproot(index, script_pubkeys=scripts, values=values, sighash=SIGHASH_DEFAULT)
    # zero auxiliary randomness keeps signing deterministic (BIP-340 allows it; nonces stay secret-derived)
    spend.unknown[TAP_KEY_SIG] = tweaked_key(key, public).sign_schnorr(digest, bytes(32))
    return True


def tweaked_key(key: coincurve.PrivateKey, public: bytes) -> coincurve.PrivateKey:
    """BIP-341/86: negate the secret if its point has odd Y, then add TapTweak(x) with no script tree."""
    secret = int.from_bytes(key.secret, "big")
    if public[0] == 0x03:
        secret = CURVE_ORDER - secret
    return coincurve.PrivateKey(secret.to_bytes(32, "big")).add(tagged_hash("TapTweak", public[1:]))


def owns_script(script: bytes, public: bytes) -> bool:
    """A bare script that pushes this compressed key (``<key> OP_CHECKSIG``, multisig, ...)."""
    return b"\x21" + public in script


def wraps_key(spend: PsbtInput, public: bytes) -> bool:
    """A P2SH input whose redeem script is a witness program of this key (P2SH-P2WPKH or P2SH-P2WSH)."""
    redeem = spend.redeem_script.data if spend.redeem_script is not None else b""
    if redeem == b"\x00\x14" + hash160(public):
        return True
    witness_script = spend.witness_script.data if spend.witness_script is not None else b""
    return redeem[:2] == b"\x00\x20" and owns_script(witness_script, public)


def require_legacy_utxo(index: int, spend: PsbtInput) -> None:
    if spend.non_witness_utxo is None or spend.witness_utxo is not None:
        raise invalid_input(index, "a legacy input needs non_witness_utxo and must not carry witness_utxo")


def require_witness_utxo(index: int, spend: PsbtInput) -> None:
    if spend.witness_utxo is None:
        raise invalid_input(index, "a SegWit or Taproot input needs witness_utxo")


def require_sighash(index: int, spend: PsbtInput, wanted: int, name: str) -> None:
    if spend.sighash_type is not None and spend.sighash_type != wanted:
        raise unsupported(index, f"sighash type {spend.sighash_type:#04x} (only {name} is signed for this input)")


def unsupported(index: int, what: str) -> InvalidArgument:
    return InvalidArgument(
        f"failed to sign transaction: input {index} is {what}, which is not supported; sign its sighash with "
        "sign_raw_payload instead",
        error_code="INVALID_TRANSACTION",
    )


def invalid_input(index: int, reason: str) -> InvalidArgument:
    return InvalidArgument(f"failed to parse transaction: input {index}: {reason}", error_code="INVALID_TRANSACTION")
