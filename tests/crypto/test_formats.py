"""The address formats of the main-interface issue, checked against published values and
independent libraries (eth-utils for EIP-55, base58 for Solana)."""

from __future__ import annotations

import base58
import pytest
from eth_utils import to_checksum_address

from simulator.crypto import addresses, hd

SEED = hd.mnemonic_to_seed("abandon " * 11 + "about")


def public(curve: str, path: str) -> bytes:
    return hd.derive(SEED, curve, path).public_key


@pytest.mark.parametrize(
    "path, address",
    [
        ("m/44'/60'/0'/0/0", "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"),
        ("m/44'/60'/0'/0/1", "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0"),
    ],
)
def test_ethereum_addresses_of_the_test_mnemonic(path, address):
    assert (
        addresses.address_for("ADDRESS_FORMAT_ETHEREUM", "CURVE_SECP256K1", public("CURVE_SECP256K1", path)) == address
    )


@pytest.mark.parametrize("index", range(12))
def test_eip55_checksums_agree_with_eth_utils(index):
    address = addresses.address_for(
        "ADDRESS_FORMAT_ETHEREUM", "CURVE_SECP256K1", public("CURVE_SECP256K1", f"m/44'/60'/{index}'/0/0")
    )
    assert address == to_checksum_address(address.lower())


def test_solana_address_of_the_test_mnemonic():
    key = public("CURVE_ED25519", "m/44'/501'/0'/0'")
    address = addresses.address_for("ADDRESS_FORMAT_SOLANA", "CURVE_ED25519", key)
    assert address == "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk"  # as Phantom and Solflare show it
    assert base58.b58decode(address) == key


@pytest.mark.parametrize("curve, path", [("CURVE_SECP256K1", "m/0'/0"), ("CURVE_P256", "m/0'/0")])
def test_compressed_and_uncompressed_are_the_public_key(curve, path):
    key = public(curve, path)
    assert addresses.address_for("ADDRESS_FORMAT_COMPRESSED", curve, key) == key.hex()
    full = addresses.address_for("ADDRESS_FORMAT_UNCOMPRESSED", curve, key)
    assert full.startswith("04") and len(full) == 130 and full[2:66] == key.hex()[2:]


@pytest.mark.parametrize(
    "fmt, curve, error, phrase",
    [
        ("ADDRESS_FORMAT_ETHEREUM", "CURVE_ED25519", hd.InvalidCurve, "invalid curve"),
        ("ADDRESS_FORMAT_SOLANA", "CURVE_SECP256K1", hd.InvalidCurve, "invalid curve"),
        ("ADDRESS_FORMAT_UNCOMPRESSED", "CURVE_ED25519", hd.InvalidCurve, "invalid curve"),
        ("ADDRESS_FORMAT_NOPE", "CURVE_SECP256K1", hd.InvalidAddressFormat, "invalid address format"),
    ],
)
def test_refusals(fmt, curve, error, phrase):
    with pytest.raises(error, match=phrase):
        addresses.address_for(fmt, curve, public("CURVE_SECP256K1", "m/0'"))
