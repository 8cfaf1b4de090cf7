"""Every address format of the interface, against published vectors and independent libraries:
bip-utils (Bitcoin, Dogecoin, Cosmos, Tron, XRP, Stellar, Sui, Aptos, TON decoders/encoders) and
the BIP-173 reference ``bech32`` package (witness version and program of P2WSH)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import bech32 as bech32_reference
import bip_utils as bu
import pytest
from bip_utils.ton.addr import TonAddrVersions

from simulator.crypto import addresses, hd

SEED = hd.mnemonic_to_seed("abandon " * 11 + "about")


def key(curve: str, path: str) -> bytes:
    return hd.derive(SEED, curve, path).public_key


def address(fmt: str, curve: str, path: str) -> str:
    return addresses.address_for(fmt, curve, key(curve, path))


@pytest.mark.parametrize(
    "fmt, path, expected",
    [  # BIP-44/49/84/86 and SLIP/SEP vectors for the test mnemonic
        ("ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH", "m/44'/0'/0'/0/0", "1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA"),
        ("ADDRESS_FORMAT_BITCOIN_MAINNET_P2SH", "m/49'/0'/0'/0/0", "37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf"),
        ("ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", "m/84'/0'/0'/0/0", "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"),
        (
            "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR",
            "m/86'/0'/0'/0/0",
            "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr",
        ),
        ("ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH", "m/84'/1'/0'/0/0", "tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl"),
        ("ADDRESS_FORMAT_COSMOS", "m/44'/118'/0'/0/0", "cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4"),
        ("ADDRESS_FORMAT_XRP", "m/44'/144'/0'/0/0", "rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v3"),
        ("ADDRESS_FORMAT_DOGE_MAINNET", "m/44'/3'/0'/0/0", "DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC"),
    ],
)
def test_published_secp256k1_vectors(fmt, path, expected):
    assert address(fmt, "CURVE_SECP256K1", path) == expected


def test_stellar_sep5_vector():
    assert (
        address("ADDRESS_FORMAT_XLM", "CURVE_ED25519", "m/44'/148'/0'")
        == "GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX"
    )


NETWORKS = {
    "MAINNET": ("bc", bu.CoinsConf.BitcoinMainNet),
    "TESTNET": ("tb", bu.CoinsConf.BitcoinTestNet),
    "SIGNET": ("tb", bu.CoinsConf.BitcoinTestNet),
    "REGTEST": ("bcrt", bu.CoinsConf.BitcoinRegTest),
}


@pytest.mark.parametrize("network", NETWORKS)
def test_bitcoin_forms_parse_back(network):
    hrp, conf = NETWORKS[network]
    public = key("CURVE_SECP256K1", "m/84'/0'/0'/0/7")
    fmt = f"ADDRESS_FORMAT_BITCOIN_{network}_"
    h160 = bu.Hash160.QuickDigest(public)
    pkh = conf.ParamByKey("p2pkh_net_ver")
    assert (
        bu.P2PKHAddrDecoder.DecodeAddr(addresses.address_for(fmt + "P2PKH", "CURVE_SECP256K1", public), net_ver=pkh)
        == h160
    )
    p2sh = bu.P2SHAddrDecoder.DecodeAddr(
        addresses.address_for(fmt + "P2SH", "CURVE_SECP256K1", public), net_ver=conf.ParamByKey("p2sh_net_ver")
    )
    assert p2sh == bu.Hash160.QuickDigest(b"\x00\x14" + h160)
    assert (
        bu.P2WPKHAddrDecoder.DecodeAddr(
            addresses.address_for(fmt + "P2WPKH", "CURVE_SECP256K1", public), hrp=hrp, wit_ver=0
        )
        == h160
    )
    version, program = bech32_reference.decode(hrp, addresses.address_for(fmt + "P2WSH", "CURVE_SECP256K1", public))
    assert (version, bytes(program)) == (0, hashlib.sha256(b"\x21" + public + b"\xac").digest())
    taproot = addresses.address_for(fmt + "P2TR", "CURVE_SECP256K1", public)
    assert taproot == bu.P2TRAddrEncoder.EncodeKey(public, hrp=hrp, wit_ver=1)


def test_dogecoin_testnet_version_byte():
    public = key("CURVE_SECP256K1", "m/44'/1'/0'/0/0")
    decoded = bu.P2PKHAddrDecoder.DecodeAddr(
        addresses.address_for("ADDRESS_FORMAT_DOGE_TESTNET", "CURVE_SECP256K1", public), net_ver=b"\x71"
    )
    assert decoded == bu.Hash160.QuickDigest(public)


@pytest.mark.parametrize(
    "fmt, curve, path, encode",
    [
        (
            "ADDRESS_FORMAT_COSMOS",
            "CURVE_SECP256K1",
            "m/44'/118'/0'/0/3",
            lambda k: bu.AtomAddrEncoder.EncodeKey(k, hrp="cosmos"),
        ),
        (
            "ADDRESS_FORMAT_SEI",
            "CURVE_SECP256K1",
            "m/44'/118'/0'/0/0",
            lambda k: bu.AtomAddrEncoder.EncodeKey(k, hrp="sei"),
        ),
        ("ADDRESS_FORMAT_TRON", "CURVE_SECP256K1", "m/44'/195'/0'/0/0", bu.TrxAddrEncoder.EncodeKey),
        ("ADDRESS_FORMAT_XRP", "CURVE_SECP256K1", "m/44'/144'/0'/0/2", bu.XrpAddrEncoder.EncodeKey),
        (
            "ADDRESS_FORMAT_XLM",
            "CURVE_ED25519",
            "m/44'/148'/1'",
            lambda k: bu.XlmAddrEncoder.EncodeKey(b"\x00" + k, addr_type=bu.XlmAddrTypes.PUB_KEY),
        ),
        (
            "ADDRESS_FORMAT_SUI",
            "CURVE_ED25519",
            "m/44'/784'/0'/0'/0'",
            lambda k: bu.SuiAddrEncoder.EncodeKey(b"\x00" + k),
        ),
        (
            "ADDRESS_FORMAT_APTOS",
            "CURVE_ED25519",
            "m/44'/637'/0'/0'/0'",
            lambda k: bu.AptosAddrEncoder.EncodeKey(b"\x00" + k),
        ),
    ],
)
def test_other_chains_agree_with_bip_utils(fmt, curve, path, encode):
    public = key(curve, path)
    assert addresses.address_for(fmt, curve, public) == encode(public)


@pytest.mark.parametrize(
    "version, theirs", [("V3R2", TonAddrVersions.V3R2), ("V4R2", TonAddrVersions.V4), ("V5R1", TonAddrVersions.V5R1)]
)
def test_ton_wallets_agree_with_bip_utils(version, theirs):
    public = key("CURVE_ED25519", "m/44'/607'/0'")
    mine = addresses.address_for(f"ADDRESS_FORMAT_TON_{version}", "CURVE_ED25519", public)
    assert mine == bu.TonAddrEncoder.EncodeKey(public, version=theirs, is_bounceable=False)
    assert mine.startswith("UQ") and len(mine) == 48


def test_every_interface_format_is_served():
    """The schemas' addressFormat enum is generated from the one table: same names, same order."""
    schema = json.loads((Path(__file__).resolve().parents[2] / "schemas/submit/create_wallet.json").read_text())
    found = [
        rule["then"]["properties"]["parameters"]["properties"]["accounts"]["items"]["properties"]["addressFormat"]
        for rule in schema["allOf"]
    ]
    assert found and all(enum["enum"] == list(addresses.ADDRESS_FORMATS) for enum in found)


@pytest.mark.parametrize("fmt", sorted(set(addresses.ADDRESS_FORMATS) - {"ADDRESS_FORMAT_COMPRESSED"}))
def test_a_malformed_key_is_refused(fmt):
    curve = addresses.ADDRESS_FORMATS[fmt].curves[0]
    with pytest.raises(ValueError):
        addresses.address_for(fmt, curve, b"\x05" * 7)
