"""The key lifecycle with the official JS clients (@turnkey/sdk-server, @turnkey/crypto), unmodified:
tests/js/key_lifecycle.js does the calls and the client-side crypto; what it prints is checked
here with independent libraries (bip-utils, eth-keys, PyNaCl).

Runs when node and tests/js/node_modules are present (`npm ci --prefix tests/js`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import base58
import pytest
from bip_utils import Bip39MnemonicGenerator, Bip39WordsNum
from conftest import ROOT
from eth_hash.auto import keccak
from eth_keys import keys as eth
from nacl.signing import SigningKey
from support import eth_address_of

from simulator.crypto import service_keys

JS = ROOT / "tests" / "js"
pytestmark = pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules").is_dir()),
    reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)",
)


def test_turnkey_crypto_exports_and_imports_with_the_signer_override(simulator, simulator_credentials):
    mnemonic = str(Bip39MnemonicGenerator().FromWordsNumber(Bip39WordsNum.WORDS_NUM_12))
    local = eth.PrivateKey(os.urandom(32))
    payload = os.urandom(32).hex()
    given = {
        **simulator_credentials,
        "url": simulator.url,
        "signer": service_keys.public_hex("signer"),
        "mnemonic": mnemonic,
        "privateKey": local.to_bytes().hex(),
        "payload": payload,
    }
    run = subprocess.run(
        ["node", str(JS / "key_lifecycle.js"), json.dumps(given)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert eth_address_of(out["mnemonic"]) == out["wallet"][0]
    assert "does not match signer key from bundle" in out["withoutOverride"]
    keypair = base58.b58decode(out["solanaKeypair"])
    assert base58.b58encode(bytes(SigningKey(keypair[:32]).verify_key)).decode() == out["wallet"][1]
    assert out["walletExported"] is True and len(out["deleted"]) == 1
    assert out["importedKey"] == [
        {"format": "ADDRESS_FORMAT_ETHEREUM", "address": local.public_key.to_checksum_address()}
    ]
    sig = out["signature"]
    signature = eth.Signature(vrs=(int(sig["v"], 16), int(sig["r"], 16), int(sig["s"], 16)))
    assert signature.recover_public_key_from_msg_hash(keccak(bytes.fromhex(payload))) == local.public_key
    assert out["importedWallet"] == [eth_address_of(mnemonic)]
    assert "Turnkey error 3: wallet has not been exported" in out["deleteRefused"]
    assert simulator.simulator.crashes == []
