"""sign_transaction through the HTTP surface, for every transaction type the simulator signs: the
signer is a wallet account (or a private key, by address and by id) created through the API, the
transaction is built by an independent library (viem and ethers through tests/js/eth_vectors.js,
solders, python-bitcoin-utils, protobuf) and the result is checked by another (eth-account, PyNaCl,
python-bitcoin-utils with ecdsa and its BIP-340 code, eth-keys). Then the refusals, each with its
error code, and the official Python client.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess

import base58
import pytest
import turnkey_sdk_types as T
from bitcoinutils.keys import PublicKey  # type: ignore[import-untyped]
from bitcoinutils.psbt import PSBT  # type: ignore[import-untyped]
from bitcoinutils.schnorr import schnorr_verify  # type: ignore[import-untyped]
from conftest import ETH_ACCOUNT, ROOT, result_of
from ecdsa import SECP256k1, VerifyingKey  # type: ignore[import-untyped]
from ecdsa.util import sigdecode_der  # type: ignore[import-untyped]
from eth_account import Account
from eth_keys.datatypes import Signature as EthSignature
from nacl.signing import VerifyKey
from solders.message import to_bytes_versioned
from solders.transaction import VersionedTransaction
from support import SOL_ACCOUNT, assert_error
from tx_builders import bitcoin_psbt, solana_key, solana_transfer, tron_signature, tron_transfer

JS = ROOT / "tests" / "js"
needs_node = pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules" / "viem").is_dir()),
    reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)",
)
ETH_TYPE, SOL_TYPE = "TRANSACTION_TYPE_ETHEREUM", "TRANSACTION_TYPE_SOLANA"
BTC_TYPE, TRON_TYPE = "TRANSACTION_TYPE_BITCOIN", "TRANSACTION_TYPE_TRON"


def account(curve: str, path: str, address_format: str) -> dict[str, str]:
    return {"curve": curve, "pathFormat": "PATH_FORMAT_BIP32", "path": path, "addressFormat": address_format}


ACCOUNTS = [
    ETH_ACCOUNT,
    SOL_ACCOUNT,
    account("CURVE_SECP256K1", "m/44'/195'/0'/0/0", "ADDRESS_FORMAT_TRON"),
    account("CURVE_SECP256K1", "m/84'/0'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH"),
    account("CURVE_SECP256K1", "m/44'/0'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH"),
    account("CURVE_SECP256K1", "m/86'/0'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR"),
]


@pytest.fixture
def wallet(client):
    made = result_of(
        client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "signing", "accounts": ACCOUNTS}),
        "createWalletResult",
    )
    listed = result_of_query(client, "list_wallet_accounts", walletId=made["walletId"])["accounts"]
    keys = {a["address"]: a["publicKey"] for a in listed}
    names = ["eth", "sol", "tron", "p2wpkh", "p2pkh", "p2tr"]
    return {name: (address, keys[address]) for name, address in zip(names, made["addresses"])}


def result_of_query(client, op, **fields):
    answer = client.query(op, **fields)
    assert answer.status == 200, answer.body
    return answer.body


def sign(client, sign_with: str, transaction_type: str, unsigned: str):
    params = {"signWith": sign_with, "type": transaction_type, "unsignedTransaction": unsigned}
    return client.submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", params)


def signed(client, sign_with: str, transaction_type: str, unsigned: str) -> str:
    return str(
        result_of(sign(client, sign_with, transaction_type, unsigned), "signTransactionResult")["signedTransaction"]
    )


@pytest.fixture(scope="module")
def eth_built():
    spec = {"build": {"to": "0x" + "ab" * 20, "delegate": "0x" + "5a" * 20, "authorityKey": "0x" + "42" * 32}}
    run = subprocess.run(
        ["node", str(JS / "eth_vectors.js"), json.dumps(spec)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)["build"]["transactions"]


ETH_KINDS = [
    "viem_legacy_eip155",
    "viem_legacy_no_chain",
    "viem_eip2930",
    "viem_eip1559",
    "viem_eip4844",
    "viem_eip7702",
    "ethers_legacy",
    "ethers_eip2930",
    "ethers_eip1559",
]


@needs_node
@pytest.mark.parametrize("kind", ETH_KINDS)
def test_ethereum_types_are_signed_by_the_account(client, wallet, eth_built, kind):
    address = wallet["eth"][0]
    raw = bytes.fromhex(signed(client, address, ETH_TYPE, eth_built[kind]))
    assert Account.recover_transaction(raw).lower() == address.lower()
    assert raw.hex() == raw.hex().lower()


@needs_node
def test_a_private_key_signs_by_address_and_by_id(client, eth_built):
    params = {
        "privateKeys": [
            {
                "privateKeyName": "pk",
                "curve": "CURVE_SECP256K1",
                "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                "privateKeyTags": [],
            }
        ]
    }
    made = result_of(
        client.submit("create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", params),
        "createPrivateKeysResultV2",
    )
    key = made["privateKeys"][0]
    address = key["addresses"][0]["address"]
    for sign_with in (address, key["privateKeyId"]):
        raw = bytes.fromhex(signed(client, sign_with, ETH_TYPE, eth_built["viem_eip1559"]))
        assert Account.recover_transaction(raw).lower() == address.lower()


@pytest.mark.parametrize("v0", [False, True], ids=["legacy", "v0"])
def test_solana_transactions_are_signed_in_their_slot(client, wallet, v0):
    address = wallet["sol"][0]
    result = signed(client, address, SOL_TYPE, solana_transfer(address, solana_key("to"), 1000, v0))
    tx = VersionedTransaction.from_bytes(bytes.fromhex(result))
    VerifyKey(base58.b58decode(address)).verify(to_bytes_versioned(tx.message), bytes(tx.signatures[0]))
    assert (type(tx.message).__name__ == "MessageV0") is v0


def test_tron_transfer_signature_recovers_the_owner(client, wallet):
    address = wallet["tron"][0]
    owner = base58.b58decode_check(address)
    raw = bytes.fromhex(tron_transfer(owner, b"\x41" + bytes(20), 1_000_000))
    data, signature = tron_signature(signed(client, address, TRON_TYPE, raw.hex()))
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big")
    public = EthSignature(vrs=(signature[64], r, s)).recover_public_key_from_msg_hash(hashlib.sha256(raw).digest())
    assert data == raw and b"\x41" + public.to_canonical_address() == owner


@pytest.mark.parametrize("kind", ["p2wpkh", "p2pkh"])
def test_bitcoin_ecdsa_inputs_verify(client, wallet, kind):
    address, public = wallet[kind]
    psbt, script, funding = bitcoin_psbt(public, kind)
    result = PSBT.from_hex(signed(client, address, BTC_TYPE, psbt.to_hex()))
    [(key, signature)] = result.inputs[0].partial_sigs.items()
    key_object = PublicKey(public)
    if kind == "p2wpkh":
        code = key_object.get_address().to_script_pub_key()
        digest = result.tx.get_transaction_segwit_digest(0, code, funding.outputs[0].amount, 0x01)
    else:
        digest = result.tx.get_transaction_digest(0, script, 0x01)
    VerifyingKey.from_string(key, curve=SECP256k1).verify_digest(signature[:-1], digest, sigdecode=sigdecode_der)
    assert key.hex() == public.lower() and signature[-1] == 0x01


def test_bitcoin_taproot_key_path_verifies(client, wallet):
    address, public = wallet["p2tr"]
    psbt, script, funding = bitcoin_psbt(public, "p2tr")
    result = PSBT.from_hex(signed(client, address, BTC_TYPE, psbt.to_hex()))
    digest = result.tx.get_transaction_taproot_digest(0, [script], [funding.outputs[0].amount], sighash=0x00)
    output_key = bytes.fromhex(PublicKey(public).get_taproot_address().to_witness_program())
    assert schnorr_verify(digest, output_key, result.inputs[0].unknown[b"\x13"])


@needs_node
def test_refusals_carry_their_error_codes(client, wallet, eth_built):
    eth, sol = wallet["eth"][0], wallet["sol"][0]
    unparseable = sign(client, eth, ETH_TYPE, "c0ffee")
    assert assert_error(unparseable, 400, 3, "failed to parse transaction")["turnkeyErrorCode"] == "INVALID_TRANSACTION"
    solana_bytes = solana_transfer(sol, solana_key("to"), 1)
    wrong_type = sign(client, eth, ETH_TYPE, solana_bytes)
    assert wrong_type.status == 400 and wrong_type.body["turnkeyErrorCode"] in (
        "INVALID_TRANSACTION",
        "UNSUPPORTED_TRANSACTION_TYPE",
    )
    wrong_curve = sign(client, sol, ETH_TYPE, eth_built["viem_eip1559"])
    assert_error(wrong_curve, 400, 3, "CURVE_SECP256K1")
    curve = sign(client, eth, SOL_TYPE, solana_bytes)
    assert_error(curve, 400, 3, "CURVE_ED25519")
    stranger = sign(client, "0x" + "12" * 20, ETH_TYPE, eth_built["viem_eip1559"])
    assert stranger.status in (400, 404) and "0x" + "12" * 20 in stranger.body["message"]
    tempo = sign(client, eth, "TRANSACTION_TYPE_TEMPO", "76c0")
    assert assert_error(tempo, 400, 3, "TRANSACTION_TYPE_TEMPO")["turnkeyErrorCode"] == "UNSUPPORTED_TRANSACTION_TYPE"


@needs_node
def test_the_official_python_client_signs(turnkey_client, simulator_credentials, eth_built):
    made = turnkey_client.create_wallet(
        T.CreateWalletBody(walletName="py", accounts=[T.v1WalletAccountParams(**ETH_ACCOUNT)])
    )
    address = made.addresses[0]
    answer = turnkey_client.sign_transaction(
        T.SignTransactionBody(signWith=address, type=ETH_TYPE, unsignedTransaction=eth_built["ethers_eip1559"])
    )
    raw = bytes.fromhex(answer.signedTransaction)
    assert Account.recover_transaction(raw).lower() == address.lower()


@needs_node
def test_hex_with_whitespace_is_refused_and_the_same_hex_without_signs(client, wallet, eth_built):
    """``bytes.fromhex`` skips ASCII whitespace; the service reads no spaces in ``unsignedTransaction``."""
    eth = wallet["eth"][0]
    unsigned = eth_built["viem_eip1559"].removeprefix("0x")
    for spaced in (unsigned[:10] + " " + unsigned[10:], unsigned + "\n", "\t" + unsigned):
        refused = sign(client, eth, ETH_TYPE, spaced)
        assert assert_error(refused, 400, 3, "must not contain spaces")["turnkeyErrorCode"] == "INVALID_TRANSACTION"
    assert assert_error(sign(client, eth, ETH_TYPE, "  "), 400, 3, "unsignedTransaction is empty")
    assert sign(client, eth, ETH_TYPE, unsigned).status == 200
