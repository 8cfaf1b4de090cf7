"""HD wallets over the API: more accounts, private keys and tags, and signing with the real keys.

Signatures are checked with independent libraries: eth-keys (recovering the Ethereum address),
python-ecdsa (secp256k1 and P-256) and PyNaCl (Ed25519).
"""

from __future__ import annotations

import hashlib

import ecdsa
import nacl.signing
import pytest
from conftest import ETH_ACCOUNT, ok, result_of
from eth_keys import keys as eth_keys
from support import assert_error

SOLANA = {
    "curve": "CURVE_ED25519",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/501'/0'/0'",
    "addressFormat": "ADDRESS_FORMAT_SOLANA",
}
P256 = {
    "curve": "CURVE_P256",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/0'/0",
    "addressFormat": "ADDRESS_FORMAT_COMPRESSED",
}


def wallet(client, *accounts) -> dict:
    return result_of(
        client.submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "signer", "accounts": list(accounts)}
        ),
        "createWalletResult",
    )


def sign(client, sign_with: str, payload: str, encoding: str, hash_function: str):
    return client.submit(
        "sign_raw_payload",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        {"signWith": sign_with, "payload": payload, "encoding": encoding, "hashFunction": hash_function},
    )


def public_key(client, address: str) -> str:
    accounts = ok(client.query("list_wallet_accounts"))["accounts"]
    return next(a["publicKey"] for a in accounts if a["address"] == address)


def test_create_wallet_accounts_adds_and_previews(client):
    made = wallet(client, ETH_ACCOUNT)
    second = {**ETH_ACCOUNT, "path": "m/44'/60'/0'/0/1"}
    preview = result_of(
        client.submit(
            "create_wallet_accounts",
            "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
            {"walletId": made["walletId"], "accounts": [second], "persist": False},
        ),
        "createWalletAccountsResult",
    )["addresses"]
    assert len(ok(client.query("list_wallet_accounts", walletId=made["walletId"]))["accounts"]) == 1
    added = result_of(
        client.submit(
            "create_wallet_accounts",
            "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
            {"walletId": made["walletId"], "accounts": [second]},
        ),
        "createWalletAccountsResult",
    )
    assert added["addresses"] == preview
    listed = ok(client.query("list_wallet_accounts", walletId=made["walletId"]))["accounts"]
    assert [a["address"] for a in listed] == made["addresses"] + preview
    again = client.submit(
        "create_wallet_accounts",
        "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
        {"walletId": made["walletId"], "accounts": [ETH_ACCOUNT]},
    )
    assert_error(again, 400, 3, "paths cannot be reused")


def test_private_keys_and_their_tags(client):
    specs = [
        {
            "privateKeyName": "eth",
            "curve": "CURVE_SECP256K1",
            "privateKeyTags": [],
            "addressFormats": ["ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_COMPRESSED"],
        },
        {
            "privateKeyName": "sol",
            "curve": "CURVE_ED25519",
            "privateKeyTags": [],
            "addressFormats": ["ADDRESS_FORMAT_SOLANA"],
        },
    ]
    made = result_of(
        client.submit("create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", {"privateKeys": specs}),
        "createPrivateKeysResultV2",
    )["privateKeys"]
    assert [a["format"] for a in made[0]["addresses"]] == specs[0]["addressFormats"]
    ids = [k["privateKeyId"] for k in made]
    tag = result_of(
        client.submit(
            "create_private_key_tag",
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
            {"privateKeyTagName": "hot", "privateKeyIds": ids},
        ),
        "createPrivateKeyTagResult",
    )
    listed = ok(client.query("list_private_keys"))["privateKeys"]
    assert [(k["privateKeyName"], k["privateKeyTags"]) for k in listed] == [
        ("eth", [tag["privateKeyTagId"]]),
        ("sol", [tag["privateKeyTagId"]]),
    ]
    assert listed[0]["addresses"][1]["address"] == listed[0]["publicKey"]
    duplicate = client.submit("create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", {"privateKeys": specs[:1]})
    assert_error(duplicate, 400, 3, "private key name must be unique")


def test_ethereum_signature_recovers_the_account_address(client):
    address = wallet(client, ETH_ACCOUNT)["addresses"][0]
    message = b"hello simulator"
    prefixed = b"\x19Ethereum Signed Message:\n" + str(len(message)).encode() + message
    result = result_of(
        sign(client, address, prefixed.hex(), "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256"),
        "signRawPayloadResult",
    )
    signature = eth_keys.Signature(vrs=(int(result["v"], 16), int(result["r"], 16), int(result["s"], 16)))
    from eth_hash.auto import keccak

    recovered = signature.recover_public_key_from_msg_hash(keccak(prefixed))
    assert recovered.to_checksum_address() == address
    key = ecdsa.VerifyingKey.from_string(bytes.fromhex(public_key(client, address)), curve=ecdsa.SECP256k1)
    assert key.verify_digest(bytes.fromhex(result["r"] + result["s"]), keccak(prefixed))
    assert int(result["s"], 16) <= ecdsa.SECP256k1.order // 2  # low-S, as Ethereum requires


def test_signatures_are_deterministic(client):
    address = wallet(client, ETH_ACCOUNT)["addresses"][0]
    args = (address, "abc", "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_SHA256")
    first = result_of(sign(client, *args), "signRawPayloadResult")
    second = client.submit(
        "sign_raw_payload",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        {
            "signWith": address,
            "payload": "abc",
            "encoding": "PAYLOAD_ENCODING_TEXT_UTF8",
            "hashFunction": "HASH_FUNCTION_SHA256",
        },
        timestampMs=str(int(__import__("time").time() * 1000) + 5),
    )
    assert result_of(second, "signRawPayloadResult") == first


def test_solana_signature_verifies_with_pynacl(client):
    address = wallet(client, SOLANA)["addresses"][0]
    result = result_of(
        sign(client, address, "deadbeef", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NOT_APPLICABLE"),
        "signRawPayloadResult",
    )
    verifier = nacl.signing.VerifyKey(bytes.fromhex(public_key(client, address)))
    verifier.verify(bytes.fromhex("deadbeef"), bytes.fromhex(result["r"] + result["s"]))


def test_p256_signature_verifies_with_python_ecdsa(client):
    address = wallet(client, P256)["addresses"][0]
    digest = hashlib.sha256(b"payload").digest()
    result = result_of(
        sign(client, address, digest.hex(), "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP"),
        "signRawPayloadResult",
    )
    key = ecdsa.VerifyingKey.from_string(bytes.fromhex(address), curve=ecdsa.NIST256p)
    assert key.verify_digest(bytes.fromhex(result["r"] + result["s"]), digest)


def test_sign_raw_payloads_and_signing_with_a_private_key_id(client):
    made = result_of(
        client.submit(
            "create_private_keys",
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
            {
                "privateKeys": [
                    {"privateKeyName": "k", "curve": "CURVE_SECP256K1", "privateKeyTags": [], "addressFormats": []}
                ]
            },
        ),
        "createPrivateKeysResultV2",
    )["privateKeys"][0]
    result = result_of(
        client.submit(
            "sign_raw_payloads",
            "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
            {
                "signWith": made["privateKeyId"],
                "payloads": ["01", "02"],
                "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                "hashFunction": "HASH_FUNCTION_SHA256",
            },
        ),
        "signRawPayloadsResult",
    )
    public = ok(client.query("list_private_keys"))["privateKeys"][0]["publicKey"]
    key = ecdsa.VerifyingKey.from_string(bytes.fromhex(public), curve=ecdsa.SECP256k1)
    for payload, sig in zip(("01", "02"), result["signatures"]):
        assert key.verify_digest(bytes.fromhex(sig["r"] + sig["s"]), hashlib.sha256(bytes.fromhex(payload)).digest())


@pytest.mark.parametrize(
    "account, payload, encoding, hash_function, status, phrase",
    [
        (
            ETH_ACCOUNT,
            "abc",
            "PAYLOAD_ENCODING_TEXT_UTF8",
            "HASH_FUNCTION_NOT_APPLICABLE",
            400,
            "invalid hash function",
        ),
        (ETH_ACCOUNT, "abcd", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP", 400, "must be a 32-byte digest"),
        (ETH_ACCOUNT, "zz", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_SHA256", 400, "invalid payload encoding"),
        (SOLANA, "00", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256", 400, "invalid hash function"),
        (ETH_ACCOUNT, "{}", "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_KECCAK256", 400, "invalid hash function"),
        (ETH_ACCOUNT, "{}", "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP", 400, "EIP-712 typed data"),
        (
            SOLANA,
            '{"address": "0x' + "11" * 20 + '", "chainId": 1, "nonce": 0}',
            "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
            "HASH_FUNCTION_NO_OP",
            400,
            "signed with CURVE_SECP256K1 keys",
        ),
    ],
)
def test_sign_refusals(client, account, payload, encoding, hash_function, status, phrase):
    address = wallet(client, account)["addresses"][0]
    assert_error(sign(client, address, payload, encoding, hash_function), status, {400: 3, 501: 12}[status], phrase)


def test_signing_with_an_unknown_address_is_not_found(client):
    assert_error(
        sign(client, "0x" + "00" * 20, "00", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_SHA256"),
        404,
        5,
        "could not find a wallet account or private key",
    )
