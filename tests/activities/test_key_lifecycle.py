"""Export, import and delete through the HTTP surface, with real bundles.

What the simulator seals is opened with cryptography's own HPKE (OpenSSL) and its envelopes
checked with python-ecdsa; mnemonics re-derived with bip-utils; imported keys made locally with
eth-keys, PyNaCl and python-ecdsa, and their signatures verified with those libraries. The import
bundles themselves come from the simulator.testing helpers (the client's side).
"""

from __future__ import annotations

import hashlib
import json
import os

import base58
import ecdsa
import pytest
from bip_utils import Bip39MnemonicGenerator, Bip39WordsNum
from bundle_checks import independent_open, verify_envelope
from conftest import DEFAULTS, ETH_ACCOUNT, new_user, ok, result_of
from eth_hash.auto import keccak
from eth_keys import keys as eth
from nacl.signing import SigningKey, VerifyKey
from support import assert_error, eth_address_of, new_wallet, submit

from simulator import testing
from simulator.crypto import keys

ORG, ROOT = DEFAULTS["organizationId"], DEFAULTS["userId"]


def opened(bundle: str, client_key: testing.ClientKeyPair) -> bytes:
    data = verify_envelope(bundle)
    assert data["organizationId"] == ORG
    receiver = keys.ec_key_from_hex("p256", client_key.private_key)
    return independent_open(bytes.fromhex(data["encappedPublic"]), bytes.fromhex(data["ciphertext"]), receiver)


def test_the_signer_key_is_published(client):
    published = ok(client.post("/_simulator/keys", b"", method="GET"))
    assert (
        published["signer"]
        == json.loads(submit(client, "init_import_wallet", {"userId": ROOT}, "initImportWalletResult")["importBundle"])[
            "enclaveQuorumPublic"
        ]
    )


@pytest.mark.parametrize("compressed", [False, True])
def test_export_wallet_gives_the_mnemonic_that_rederives_the_addresses(client, compressed):
    wallet = new_wallet(client)
    target = testing.ClientKeyPair.generate()
    public = target.public_key if compressed else target.public_key_uncompressed
    result = submit(
        client, "export_wallet", {"walletId": wallet["walletId"], "targetPublicKey": public}, "exportWalletResult"
    )
    mnemonic = opened(result["exportBundle"], target).decode()
    assert result["walletId"] == wallet["walletId"]
    assert eth_address_of(mnemonic) == wallet["addresses"][0]
    assert ok(client.query("get_wallet", walletId=wallet["walletId"]))["wallet"]["exported"] is True
    listed = ok(client.query("list_wallet_accounts", walletId=wallet["walletId"], includeWalletDetails=True))
    assert all(a["walletDetails"]["exported"] for a in listed["accounts"])
    assert "exported" not in listed["accounts"][0]  # v1WalletAccount has no such field


def test_export_wallet_in_another_language(client):
    wallet = new_wallet(client, accounts=[ETH_ACCOUNT])
    target = testing.ClientKeyPair.generate()
    params = {
        "walletId": wallet["walletId"],
        "targetPublicKey": target.public_key,
        "language": "MNEMONIC_LANGUAGE_SPANISH",
    }
    spanish = opened(submit(client, "export_wallet", params, "exportWalletResult")["exportBundle"], target).decode()
    english = opened(
        submit(client, "export_wallet", {**params, "language": "MNEMONIC_LANGUAGE_ENGLISH"}, "exportWalletResult")[
            "exportBundle"
        ],
        target,
    ).decode()
    from bip_utils import Bip39Languages, Bip39MnemonicDecoder

    assert spanish != english and eth_address_of(english) == wallet["addresses"][0]
    assert Bip39MnemonicDecoder(Bip39Languages.SPANISH).Decode(spanish) == Bip39MnemonicDecoder().Decode(english)


def test_export_wallet_account_gives_the_raw_key_per_curve(client):
    wallet = new_wallet(client)
    eth_address, sol_address = wallet["addresses"]
    target = testing.ClientKeyPair.generate()
    for address in (eth_address, sol_address):
        result = submit(
            client,
            "export_wallet_account",
            {"address": address, "targetPublicKey": target.public_key_uncompressed},
            "exportWalletAccountResult",
        )
        raw = opened(result["exportBundle"], target)
        assert len(raw) == 32 and result["address"] == address
    assert eth.PrivateKey(opened_account(client, eth_address.lower(), target)).public_key.to_checksum_address() == (
        eth_address
    )
    assert base58.b58encode(bytes(SigningKey(raw).verify_key)).decode() == sol_address
    assert ok(client.query("get_wallet", walletId=wallet["walletId"]))["wallet"]["exported"] is False


def opened_account(client, address: str, target: testing.ClientKeyPair) -> bytes:
    params = {"address": address, "targetPublicKey": target.public_key}
    return opened(submit(client, "export_wallet_account", params, "exportWalletAccountResult")["exportBundle"], target)


def test_export_private_key_gives_the_raw_key(client):
    made = submit(
        client,
        "create_private_keys",
        {
            "privateKeys": [
                {
                    "privateKeyName": "k",
                    "curve": "CURVE_SECP256K1",
                    "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                    "privateKeyTags": [],
                }
            ]
        },
        "createPrivateKeysResultV2",
        "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
    )["privateKeys"][0]
    target = testing.ClientKeyPair.generate()
    params = {"privateKeyId": made["privateKeyId"], "targetPublicKey": target.public_key}
    raw = opened(submit(client, "export_private_key", params, "exportPrivateKeyResult")["exportBundle"], target)
    assert eth.PrivateKey(raw).public_key.to_checksum_address() == made["addresses"][0]["address"]
    assert (
        testing.decrypt_export_bundle(
            submit(client, "export_private_key", params, "exportPrivateKeyResult")["exportBundle"],
            target.private_key,
            ORG,
        )
        == raw.hex()
    )
    shown = ok(client.query("get_private_key", privateKeyId=made["privateKeyId"]))["privateKey"]
    assert shown["exported"] is True and shown["imported"] is False


@pytest.mark.parametrize(
    "params, status, phrase",
    [
        (
            {"walletId": "00000000-0000-4000-8000-0000000000a4", "targetPublicKey": "02" + "11" * 32},
            404,
            "wallet 00000000-0000-4000-8000-0000000000a4 not found",
        ),
        ({"walletId": None, "targetPublicKey": "beef"}, 400, "invalid targetPublicKey"),
    ],
)
def test_export_refusals(client, params, status, phrase):
    if params["walletId"] is None:
        params = {**params, "walletId": new_wallet(client)["walletId"]}
    assert_error(
        client.submit("export_wallet", "ACTIVITY_TYPE_EXPORT_WALLET", params), status, 3 if status == 400 else 5, phrase
    )


# import ------------------------------------------------------------------------------------------
def init_import(client, kind: str = "wallet", user_id: str = ROOT) -> str:
    result = submit(client, f"init_import_{kind}", {"userId": user_id}, f"initImport{camel(kind)}Result")
    data = verify_envelope(result["importBundle"])
    assert data["organizationId"] == ORG and data["userId"] == user_id and len(data["targetPublic"]) == 130
    return result["importBundle"]


def camel(kind: str) -> str:
    return "".join(part.title() for part in kind.split("_"))


def import_wallet(client, sealed: str, name: str = "imported", user_id: str = ROOT):
    params = {"userId": user_id, "walletName": name, "encryptedBundle": sealed, "accounts": [ETH_ACCOUNT]}
    return client.submit("import_wallet", "ACTIVITY_TYPE_IMPORT_WALLET", params)


def test_import_wallet_derives_the_accounts_of_the_mnemonic(client):
    mnemonic = str(Bip39MnemonicGenerator().FromWordsNumber(Bip39WordsNum.WORDS_NUM_24))
    sealed = testing.encrypt_wallet_to_bundle(mnemonic, init_import(client), ROOT, ORG)
    result = result_of(import_wallet(client, sealed), "importWalletResult")
    assert result["addresses"] == [eth_address_of(mnemonic)]
    shown = ok(client.query("get_wallet", walletId=result["walletId"]))["wallet"]
    assert shown["imported"] is True and shown["exported"] is False
    target = testing.ClientKeyPair.generate()
    params = {"walletId": result["walletId"], "targetPublicKey": target.public_key}
    assert opened(submit(client, "export_wallet", params, "exportWalletResult")["exportBundle"], target) == (
        mnemonic.encode()
    )


def sign_with(client, sign_with: str, payload: str, hash_function: str) -> dict:
    params = {
        "signWith": sign_with,
        "payload": payload,
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": hash_function,
    }
    return submit(client, "sign_raw_payload", params, "signRawPayloadResult", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2")


def import_key(client, secret: str, curve: str, formats: list[str], key_format: str = "HEXADECIMAL") -> dict:
    sealed = testing.encrypt_private_key_to_bundle(
        secret, init_import(client, "private_key"), ROOT, ORG, key_format=key_format
    )
    params = {
        "userId": ROOT,
        "privateKeyName": f"k-{os.urandom(4).hex()}",
        "encryptedBundle": sealed,
        "curve": curve,
        "addressFormats": formats,
    }
    return submit(client, "import_private_key", params, "importPrivateKeyResult")


def test_imported_secp256k1_key_signs_for_the_local_public_key(client):
    local = eth.PrivateKey(os.urandom(32))
    made = import_key(client, "0x" + local.to_bytes().hex(), "CURVE_SECP256K1", ["ADDRESS_FORMAT_ETHEREUM"])
    assert made["addresses"] == [
        {"format": "ADDRESS_FORMAT_ETHEREUM", "address": local.public_key.to_checksum_address()}
    ]
    payload = os.urandom(20).hex()
    sig = sign_with(client, made["privateKeyId"], payload, "HASH_FUNCTION_KECCAK256")
    signature = eth.Signature(vrs=(int(sig["v"], 16), int(sig["r"], 16), int(sig["s"], 16)))
    assert signature.recover_public_key_from_msg_hash(keccak(bytes.fromhex(payload))) == local.public_key
    shown = ok(client.query("get_private_key", privateKeyId=made["privateKeyId"]))["privateKey"]
    assert shown["imported"] is True and shown["exported"] is False


def test_imported_solana_keypair_signs_for_the_local_public_key(client):
    local = SigningKey.generate()
    keypair = base58.b58encode(bytes(local) + bytes(local.verify_key)).decode()
    made = import_key(client, keypair, "CURVE_ED25519", ["ADDRESS_FORMAT_SOLANA"], key_format="SOLANA")
    assert made["addresses"][0]["address"] == base58.b58encode(bytes(local.verify_key)).decode()
    payload = os.urandom(40).hex()
    sig = sign_with(client, made["addresses"][0]["address"], payload, "HASH_FUNCTION_NOT_APPLICABLE")
    VerifyKey(bytes(local.verify_key)).verify(bytes.fromhex(payload), bytes.fromhex(sig["r"] + sig["s"]))


def test_imported_p256_key_signs_for_the_local_public_key(client):
    local = ecdsa.SigningKey.generate(curve=ecdsa.NIST256p)
    made = import_key(client, local.to_string().hex(), "CURVE_P256", ["ADDRESS_FORMAT_COMPRESSED"])
    assert made["addresses"][0]["address"].lower() == local.get_verifying_key().to_string("compressed").hex()
    payload = os.urandom(32).hex()
    sig = sign_with(client, made["privateKeyId"], payload, "HASH_FUNCTION_SHA256")
    signature = bytes.fromhex(sig["r"] + sig["s"])
    assert local.get_verifying_key().verify(signature, bytes.fromhex(payload), hashfunc=hashlib.sha256)


def corrupt(sealed: str) -> str:
    parsed = json.loads(sealed)
    flipped = bytearray(bytes.fromhex(parsed["ciphertext"]))
    flipped[0] ^= 1
    return json.dumps({**parsed, "ciphertext": flipped.hex()})


# another user's target needs an import for another user, which only the lenient switch allows after 0.2.0
# (organizations.mdx: imports target your own user; tests/model/test_documented_rules.py)
@pytest.mark.simulator_scenario("../scenarios/lenient_documented_rules.yaml")
def test_bad_import_bundles_each_get_a_clear_error(client, simulator):
    words = str(Bip39MnemonicGenerator().FromWordsNumber(Bip39WordsNum.WORDS_NUM_12))
    first = init_import(client)
    stale = testing.encrypt_wallet_to_bundle(words, first, ROOT, ORG)
    current = init_import(client)
    sealed = testing.encrypt_wallet_to_bundle(words, current, ROOT, ORG)
    bob = new_user(client, "Bob")
    foreign = testing.encrypt_wallet_to_bundle(words, init_import(client, user_id=bob), bob, ORG)
    other_kind = testing.encrypt_wallet_to_bundle(words, init_import(client, "private_key"), ROOT, ORG)
    cases = [
        ("not json", "invalid encryptedBundle: not JSON"),
        ('{"encappedPublic": "04"}', 'missing "ciphertext"'),
        (corrupt(sealed), "does not open with the target key"),
        (stale, "stale target"),
        (foreign, f"another import's target (init_import_wallet for user {bob}"),
        (other_kind, "another import's target (init_import_private_key"),
        (testing.encrypt_wallet_to_bundle("abandon " * 12, current, ROOT, ORG), "invalid mnemonic"),
    ]
    for bundle, phrase in cases:
        assert_error(import_wallet(client, bundle), 400, 3, phrase)
    result_of(import_wallet(client, sealed), "importWalletResult")
    assert_error(import_wallet(client, sealed, "again"), 400, 3, "already used by an earlier import")
    late = testing.encrypt_wallet_to_bundle(words, init_import(client), ROOT, ORG)
    simulator.simulator.clock.advance(48 * 3600 + 1)
    assert_error(import_wallet(client, late, "late"), 400, 3, "expired")
    assert_error(
        import_wallet(client, sealed, user_id="00000000-0000-4000-8000-0000000000a5"),
        404,
        5,
        "user 00000000-0000-4000-8000-0000000000a5 not found",
    )
    carol = new_user(client, "Carol")
    assert_error(
        import_wallet(client, corrupt(sealed), user_id=carol), 400, 3, f"user {carol} has no import in progress"
    )


@pytest.mark.parametrize(
    "secret, curve, phrase",
    [
        ("ff" * 32, "CURVE_SECP256K1", "not a scalar between 1 and the curve order"),
        ("00" * 32, "CURVE_P256", "not a scalar between 1 and the curve order"),
        ("11" * 31, "CURVE_SECP256K1", "expected 32 bytes, got 31"),
        ("11" * 64, "CURVE_ED25519", "keyFormat SOLANA"),
    ],
)
def test_a_key_that_does_not_fit_the_curve_is_refused(client, secret, curve, phrase):
    sealed = testing.encrypt_private_key_to_bundle(secret, init_import(client, "private_key"), ROOT, ORG)
    params = {"userId": ROOT, "privateKeyName": "bad", "encryptedBundle": sealed, "curve": curve, "addressFormats": []}
    assert_error(client.submit("import_private_key", "ACTIVITY_TYPE_IMPORT_PRIVATE_KEY", params), 400, 3, phrase)


def test_the_import_target_survives_snapshots_and_state_export(client, simulator):
    words = str(Bip39MnemonicGenerator().FromWordsNumber(Bip39WordsNum.WORDS_NUM_12))
    sealed = testing.encrypt_wallet_to_bundle(words, init_import(client), ROOT, ORG)
    sim = simulator.simulator
    snap = sim.snapshot()
    sim.import_state(json.loads(json.dumps(sim.export_state())))
    result_of(import_wallet(client, sealed), "importWalletResult")
    sim.restore(snap)
    assert result_of(import_wallet(client, sealed, "second"), "importWalletResult")["addresses"] == [
        eth_address_of(words)
    ]
