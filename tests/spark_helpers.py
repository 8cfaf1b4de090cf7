"""Spark helpers two folders use: the regtest Spark account, a wallet's mnemonic exported and
opened independently, keys derived with bip_utils (tests/activities/test_spark_signing.py,
tests/clients/test_spark_js.py)."""

from __future__ import annotations

import hashlib

import coincurve
from bip_utils import Bip32Slip10Secp256k1, Bip39SeedGenerator  # type: ignore[import-untyped]
from bundle_checks import independent_open, verify_envelope
from support import submit

from simulator import testing
from simulator.crypto import keys

SPARK = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/8797555'/0'/0'",
    "addressFormat": "ADDRESS_FORMAT_SPARK_REGTEST",
}


def mnemonic_of(client, wallet_id: str) -> str:
    target = testing.ClientKeyPair.generate()
    params = {"walletId": wallet_id, "targetPublicKey": target.public_key}
    data = verify_envelope(submit(client, "export_wallet", params, "exportWalletResult")["exportBundle"])
    receiver = keys.ec_key_from_hex("p256", target.private_key)
    return independent_open(bytes.fromhex(data["encappedPublic"]), bytes.fromhex(data["ciphertext"]), receiver).decode()


def key_at(mnemonic: str, path: str) -> coincurve.PrivateKey:
    node = Bip32Slip10Secp256k1.FromSeed(Bip39SeedGenerator(mnemonic).Generate()).DerivePath(path)
    return coincurve.PrivateKey(bytes(node.PrivateKey().Raw().ToBytes()))


def leaf_path(leaf_id: str) -> str:
    return f"m/8797555'/0'/1'/{int.from_bytes(hashlib.sha256(leaf_id.encode()).digest()[:4], 'big') % 2**31}'"
