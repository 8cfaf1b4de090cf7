"""sign_raw_payload with EIP-712 typed data and EIP-7702 authorizations, through the HTTP surface,
checked by eth-account (an independent implementation of both standards)."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import ETH_ACCOUNT, ok

eth_account = pytest.importorskip("eth_account")
sys.setrecursionlimit(1000)  # eth-account's py_ecc raises it process-wide; deep recursion would then crash

from eth_account import Account  # noqa: E402
from eth_account.messages import encode_typed_data  # noqa: E402

MAIL = {
    "types": {
        "EIP712Domain": [
            {"name": "name", "type": "string"},
            {"name": "version", "type": "string"},
            {"name": "chainId", "type": "uint256"},
            {"name": "verifyingContract", "type": "address"},
        ],
        "Person": [{"name": "name", "type": "string"}, {"name": "wallets", "type": "address[]"}],
        "Mail": [
            {"name": "from", "type": "Person"},
            {"name": "to", "type": "Person[]"},
            {"name": "contents", "type": "string"},
        ],
    },
    "primaryType": "Mail",
    "domain": {"name": "Ether Mail", "version": "1", "chainId": 1, "verifyingContract": "0x" + "cc" * 20},
    "message": {
        "from": {"name": "Cow", "wallets": ["0x" + "cd" * 20]},
        "to": [{"name": "Bob", "wallets": ["0x" + "bb" * 20, "0x" + "b0" * 20]}],
        "contents": "Hello, Bob!",
    },
}


def eth_address(client) -> str:
    made = ok(
        client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH_ACCOUNT]})
    )
    return made["activity"]["result"]["createWalletResult"]["addresses"][0]


def signed(client, address: str, payload: str, encoding: str) -> dict:
    params = {"signWith": address, "payload": payload, "encoding": encoding, "hashFunction": "HASH_FUNCTION_NO_OP"}
    answer = ok(client.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", params))
    return answer["activity"]["result"]["signRawPayloadResult"]


def test_typed_data_with_nested_structs_and_arrays_recovers_to_the_account(client):
    address = eth_address(client)
    sig = signed(client, address, json.dumps(MAIL), "PAYLOAD_ENCODING_EIP712")
    assert sig["v"] in ("00", "01")
    vrs = (int(sig["v"], 16) + 27, int(sig["r"], 16), int(sig["s"], 16))
    assert Account.recover_message(encode_typed_data(full_message=MAIL), vrs=vrs) == address


def test_an_eip7702_authorization_recovers_to_the_account(client):
    address = eth_address(client)
    authorization = {"address": "0x" + "42" * 20, "chainId": 11155111, "nonce": 7}
    sig = signed(client, address, json.dumps(authorization), "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION")
    # eth-account computes the standard's digest independently (any key signs the same digest)
    digest = Account.sign_authorization(authorization, "0x" + "01" * 32).authorization_hash
    recovered = Account._recover_hash(digest, vrs=(int(sig["v"], 16), int(sig["r"], 16), int(sig["s"], 16)))
    assert recovered == address


def test_malformed_typed_data_is_a_clear_400(client):
    address = eth_address(client)
    broken = {**MAIL, "primaryType": "Letter"}
    params = {
        "signWith": address,
        "payload": json.dumps(broken),
        "encoding": "PAYLOAD_ENCODING_EIP712",
        "hashFunction": "HASH_FUNCTION_NO_OP",
    }
    response = client.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", params)
    assert response.status == 400 and "EIP-712 typed data" in response.body["message"], response.body


BIG = "9" * 5000


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("uint" + BIG, "1"),  # int() refuses 4,300+ digits: these four were a 500
        ("bytes" + BIG, "0x00"),
        ("uint256[" + BIG + "]", []),
        ("uint256", "0x" + "f" * 5000),  # the out-of-range message wrote the number in decimal
        ("uint256", "١٢"),  # other scripts' digits, which int() reads
        ("uint256", "12\n"),
        ("bytes١", "0x00"),
        ("uint256", "NaN"),
    ],
    ids=["width", "bytesN", "array-length", "huge-hex", "arabic-indic", "newline", "arabic-bytesN", "nan"],
)
def test_typed_data_numbers_a_client_wrote_oddly_are_a_400(client, kind, value):
    address = eth_address(client)
    document = {
        "types": {"EIP712Domain": [{"name": "name", "type": "string"}], "M": [{"name": "v", "type": kind}]},
        "primaryType": "M",
        "domain": {"name": "x"},
        "message": {"v": value},
    }
    params = {
        "signWith": address,
        "payload": json.dumps(document),
        "encoding": "PAYLOAD_ENCODING_EIP712",
        "hashFunction": "HASH_FUNCTION_NO_OP",
    }
    response = client.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", params)
    assert response.status == 400 and "EIP-712 typed data" in response.body["message"], response.body
