"""EIP-712 typed data and EIP-7702 authorizations: digests checked against eth-account
(encode_typed_data, sign_authorization) and, when node and tests/js/node_modules are present, viem
(hashTypedData, hashAuthorization) and ethers (TypedDataEncoder.hash), including the exact payloads
@turnkey/viem (serializeTypedData) and @turnkey/ethers (getPayload) send.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_keys import keys
from eth_utils import keccak

from simulator.chains import eip712
from simulator.chains.eth_authorization import authorization_digest, authorization_view
from simulator.errors import InvalidArgument

# eth-account imports py_ecc, which raises the interpreter's recursion limit to 100000 for the whole process: deep
# recursion then overflows the C stack (a segfault) instead of raising RecursionError. CPython's default again:
sys.setrecursionlimit(1000)

JS = Path(__file__).resolve().parents[1] / "js"
needs_node = pytest.mark.skipif(
    not (
        shutil.which("node") and (JS / "node_modules" / "viem").is_dir() and (JS / "node_modules" / "ethers").is_dir()
    ),
    reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)",
)


def fields(*pairs: str) -> list[dict[str, str]]:
    """``fields("name string", "wallet address")`` -> EIP-712 field definitions."""
    return [{"name": name, "type": kind} for name, kind in (pair.split(" ") for pair in pairs)]


DOMAIN_TYPE = fields("name string", "version string", "chainId uint256", "verifyingContract address")
# The example of EIP-712 itself, with its published digest
MAIL = {
    "types": {
        "EIP712Domain": DOMAIN_TYPE,
        "Person": fields("name string", "wallet address"),
        "Mail": fields("from Person", "to Person", "contents string"),
    },
    "primaryType": "Mail",
    "domain": {
        "name": "Ether Mail",
        "version": "1",
        "chainId": 1,
        "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
    },
    "message": {
        "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
        "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
        "contents": "Hello, Bob!",
    },
}
TOKEN = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
# Uniswap's Permit2 batch permit: an array of nested structs, integers as viem serializes bigints
PERMIT_BATCH = {
    "types": {
        "EIP712Domain": fields("name string", "chainId uint256", "verifyingContract address"),
        "PermitDetails": fields("token address", "amount uint160", "expiration uint48", "nonce uint48"),
        "PermitBatch": fields("details PermitDetails[]", "spender address", "sigDeadline uint256"),
    },
    "primaryType": "PermitBatch",
    "domain": {"name": "Permit2", "chainId": "1", "verifyingContract": "0x000000000022D473030F116dDEE9F6B43aC78BA3"},
    "message": {
        "details": [
            {
                "token": TOKEN,
                "amount": "1461501637330902918203684832716283019655932542975",
                "expiration": "1700000000",
                "nonce": "0",
            },
            {"token": "0xdAC17F958D2ee523a2206206994597C13D831ec7", "amount": 5, "expiration": 0, "nonce": "0x1"},
        ],
        "spender": "0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD",
        "sigDeadline": "115792089237316195423570985008687907853269984665640564039457584007913129639935",
    },
}
# Every other kind of member: bytes, bytesN, signed ints, bools, fixed and nested arrays, arrays of structs
KITCHEN_SINK = {
    "types": {
        "EIP712Domain": fields("name string", "version string", "chainId uint256", "salt bytes32"),
        "Leg": fields("venue string", "size int256", "flags bool[2]"),
        "Order": fields(
            "legs Leg[]",
            "pair Leg[2]",
            "memo bytes",
            "tag bytes4",
            "id bytes32",
            "grid uint256[][]",
            "delta int8",
            "live bool",
            "notes string[]",
            "owner address",
            "tiny uint8[3]",
        ),
    },
    "primaryType": "Order",
    "domain": {"name": "Sink", "version": "2", "chainId": 10, "salt": "0x" + "5a" * 32},
    "message": {
        "legs": [{"venue": "A", "size": "-12", "flags": [True, False]}],
        "pair": [
            {"venue": "B", "size": 7, "flags": [False, False]},
            {"venue": "C", "size": "0x10", "flags": [True, True]},
        ],
        "memo": "0xDEADBEEF",
        "tag": "0x12345678",
        "id": "0x" + "AB" * 32,
        "grid": [["1", "2"], [], ["3"]],
        "delta": -128,
        "live": True,
        "notes": ["x", "", "ünïcode"],
        "owner": TOKEN,
        "tiny": [0, 1, 255],
    },
}
# viem's serializeTypedData when `types` lacks EIP712Domain: the domain becomes {}
NO_DOMAIN_TYPE = {"domain": {}, "types": {"Ping": fields("n uint256")}, "primaryType": "Ping", "message": {"n": 1}}
DERIVED_DOMAIN = {
    "domain": {"name": "Derived", "chainId": 5, "salt": "0x" + "01" * 32},
    "types": {"Ping": fields("n uint256")},
    "primaryType": "Ping",
    "message": {"n": "2"},
}
DOMAIN_ONLY = {"types": {"EIP712Domain": DOMAIN_TYPE}, "primaryType": "EIP712Domain", "domain": MAIL["domain"]}
DOCUMENTS = {
    "mail": MAIL,
    "permit batch": PERMIT_BATCH,
    "kitchen sink": KITCHEN_SINK,
    "no domain type": NO_DOMAIN_TYPE,
    "derived domain": DERIVED_DOMAIN,
    "domain only": DOMAIN_ONLY,
}


AUTHORITY = "0x" + hashlib.sha256(b"7702 authority").hexdigest()
AUTHORIZATIONS = [
    {"address": "0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B", "chainId": 1, "nonce": 0},
    {"address": "0x0000000000000000000000000000000000000001", "chainId": 0, "nonce": 2**64 - 1},
    {"address": "0xdeadbeefdeadbeefdeadbeefdeadbeefdeadbeef", "chainId": 11155111, "nonce": 42},
]
TEXTS = [json.dumps(document) for document in DOCUMENTS.values()]
AUTHORIZATION_TEXTS = [json.dumps(auth) for auth in AUTHORIZATIONS if auth["nonce"] < 2**53]  # JS numbers


def eth_account_digest(document: dict[str, Any]) -> bytes:
    signable = encode_typed_data(full_message=document)
    return keccak(b"\x19" + signable.version + signable.header + signable.body)


def node(request: dict[str, Any]) -> Any:
    run = subprocess.run(
        ["node", str(JS / "eth_vectors.js"), json.dumps(request)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_eip712_example_has_its_published_digest() -> None:
    digest = eip712.typed_data_digest(json.dumps(MAIL))
    assert digest.hex() == "be609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2"
    # and the published signature by keccak256("cow") recovers to the key's address
    key = keys.PrivateKey(keccak(b"cow"))
    signature = keys.Signature(
        vrs=(
            1,
            0x4355C47D63924E8A72E509B65029052EB6C299D53A04E167C5775FD466751C9D,
            0x07299936D304C153F6443DFA05F40FF007D72911B6F72307F996231605B91562,
        )
    )
    assert signature.recover_public_key_from_msg_hash(digest) == key.public_key


@pytest.mark.parametrize("name", ["mail", "permit batch", "kitchen sink"])  # eth-account needs a message
def test_digests_match_eth_account(name: str) -> None:
    document = DOCUMENTS[name]
    assert eip712.typed_data_digest(json.dumps(document)) == eth_account_digest(document)


@pytest.fixture(scope="module")
def js_checks() -> dict[str, Any]:
    """viem's and ethers' answers for every document and authorization, from one node run."""
    answer: dict[str, Any] = node({"verify": {"typedData": TEXTS, "authorizations": AUTHORIZATION_TEXTS}})["verify"]
    return answer


@needs_node
def test_digests_match_viem_and_ethers_for_the_payloads_their_turnkey_signers_send(js_checks: dict[str, Any]) -> None:
    texts, checks = TEXTS, js_checks["typedData"]
    for name, text, check in zip(DOCUMENTS, texts, checks):
        expected = check["viem"][2:]
        assert eip712.typed_data_digest(text).hex() == expected, name
        assert eip712.typed_data_digest(check["viemSerialized"]).hex() == expected, name
        if check["ethers"] is not None:
            assert check["ethers"][2:] == expected, name
            assert eip712.typed_data_digest(check["ethersPayload"]).hex() == expected, name
    assert sum(check["ethers"] is not None for check in checks) >= 4


def test_view_is_what_eth_eip_712_policies_read() -> None:
    view = eip712.typed_data_view(json.dumps(PERMIT_BATCH))
    assert view["primary_type"] == "PermitBatch"
    assert view["domain"] == {
        "name": "Permit2",
        "chain_id": 1,
        "verifying_contract": "0x000000000022d473030f116ddee9f6b43ac78ba3",
    }
    first = view["message"]["details"][0]
    assert first == {"token": TOKEN.lower(), "amount": 2**160 - 1, "expiration": 1700000000, "nonce": 0}
    assert view["message"]["details"][1]["nonce"] == 1
    assert view["message"]["sigDeadline"] == 2**256 - 1
    sink = eip712.typed_data_view(json.dumps(KITCHEN_SINK))["message"]
    assert sink["memo"] == "0xdeadbeef" and sink["id"] == "0x" + "ab" * 32 and sink["delta"] == -128
    assert sink["legs"] == [{"venue": "A", "size": -12, "flags": [True, False]}]
    assert sink["notes"] == ["x", "", "ünïcode"] and sink["grid"] == [[1, 2], [], [3]]
    assert eip712.typed_data_view(json.dumps(MAIL))["domain"]["name"] == "Ether Mail"  # strings keep their case


def broken(change: dict[str, Any], base: dict[str, Any] = MAIL) -> str:
    document = json.loads(json.dumps(base))
    for path, value in change.items():
        *parents, last = path.split(".")
        target = document
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if value is None:
            del target[last]
        else:
            target[last] = value
    return json.dumps(document)


TYPED_DATA_REFUSALS = {
    "not json": ("{", "not JSON"),
    "not an object": ("[]", "JSON object"),
    "no primaryType": (broken({"primaryType": None}), "primaryType is missing"),
    "unknown primaryType": (broken({"primaryType": "Letter"}), "primaryType 'Letter' is not one of the types"),
    "types not an object": (broken({"types": []}), "types must be an object"),
    "bad field list": (broken({"types.Person": [{"name": "x"}]}), "types.Person must be a list"),
    "unknown member type": (broken({"types.Person": fields("name strin")}), "unknown type 'strin'"),
    "redefined atomic": (broken({"types.uint256": []}), "redefines a built-in type"),
    "missing member": (broken({"message.contents": None}), "message.contents is missing"),
    "bad address": (broken({"message.to.wallet": "0x1234"}), "message.to.wallet is not a valid address"),
    "struct not object": (broken({"message.from": "Cow"}), "message.from must be an object"),
    "bool as string": (broken({"message.live": "true"}, KITCHEN_SINK), "message.live is not a valid bool"),
    "uint out of range": (broken({"message.tiny": [0, 1, 256]}, KITCHEN_SINK), "out of range for uint8"),
    "negative uint": (broken({"message.details.0.nonce": "-1"}, PERMIT_BATCH), "out of range for uint48"),
    "float": (broken({"message.delta": 1.5}, KITCHEN_SINK), "message.delta is not a valid int8"),
    "bytes4 length": (broken({"message.tag": "0x1234"}, KITCHEN_SINK), "message.tag is not a valid bytes4"),
    "bytes not hex": (broken({"message.memo": "hello"}, KITCHEN_SINK), "message.memo is not a valid bytes"),
    "fixed array length": (broken({"message.tiny": [1, 2]}, KITCHEN_SINK), "exactly 3 elements, got 2"),
    "array not list": (broken({"message.notes": "x"}, KITCHEN_SINK), "message.notes must be an array"),
    "domain value": (broken({"domain.chainId": "one"}), "domain.chainId is not a valid uint256"),
    "domain not object": (broken({"domain": "x"}), "domain must be an object"),
    "too many digits": (
        broken({"message.tiny": [0, 1, "9" * 5000]}, KITCHEN_SINK),
        "message.tiny[2] is not a valid uint8",
    ),
    "nested json": ("[" * 100000, "nested too deeply"),
    "nested arrays": (
        json.dumps(
            {
                "types": {"A": fields("a uint8" + "[]" * 600)},
                "primaryType": "A",
                "domain": {},
                "message": {"a": json.loads("[" * 600 + "]" * 600)},
            }
        ),
        "nested too deeply",
    ),
}


@pytest.mark.parametrize("case", sorted(TYPED_DATA_REFUSALS))
def test_malformed_typed_data_is_refused_naming_the_problem(case: str) -> None:
    text, reason = TYPED_DATA_REFUSALS[case]
    with pytest.raises(InvalidArgument) as caught:
        eip712.typed_data_digest(text)
    assert caught.value.error_code == "REQUEST_INVALID" and caught.value.status == 400
    assert caught.value.message.startswith("invalid payload encoding: EIP-712 typed data: ")
    assert reason in caught.value.message


@pytest.mark.parametrize("authorization", AUTHORIZATIONS)
def test_authorization_digest_matches_eth_account(authorization: dict[str, Any]) -> None:
    expected = Account.sign_authorization(authorization, AUTHORITY).authorization_hash
    assert authorization_digest(json.dumps(authorization)) == bytes(expected)


@needs_node
def test_authorization_digest_matches_viem(js_checks: dict[str, Any]) -> None:
    digests = [authorization_digest(text).hex() for text in AUTHORIZATION_TEXTS]
    assert digests == [value[2:] for value in js_checks["authorizations"]] and len(digests) == 2


def test_authorization_accepts_numbers_as_strings_and_views_them_as_ints() -> None:
    as_numbers = json.dumps(AUTHORIZATIONS[2])
    as_strings = json.dumps({**AUTHORIZATIONS[2], "chainId": "11155111", "nonce": "0x2a"})
    assert authorization_digest(as_numbers) == authorization_digest(as_strings)
    assert authorization_view(as_strings) == {
        "address": AUTHORIZATIONS[2]["address"],
        "chain_id": 11155111,
        "nonce": 42,
    }
    assert authorization_view(json.dumps(AUTHORIZATIONS[0]))["address"] == AUTHORIZATIONS[0]["address"].lower()


AUTHORIZATION_REFUSALS = {
    "not json": ("nope", "must be JSON"),
    "not an object": ("[1]", "JSON object"),
    "missing nonce": (json.dumps({"address": "0x" + "11" * 20, "chainId": 1}), "missing ['nonce']"),
    "unknown key": (json.dumps({**AUTHORIZATIONS[0], "contractAddress": "x"}), "unknown ['contractAddress']"),
    "short address": (json.dumps({**AUTHORIZATIONS[0], "address": "0x1234"}), "address must be 0x and 40 hex"),
    "negative nonce": (json.dumps({**AUTHORIZATIONS[0], "nonce": -1}), "nonce = -1 is out of range"),
    "wide nonce": (json.dumps({**AUTHORIZATIONS[0], "nonce": 2**64}), "out of range (0 to 2^64 - 1)"),
    "bool chain": (json.dumps({**AUTHORIZATIONS[0], "chainId": True}), "chainId must be a non-negative integer"),
    "too many digits": (json.dumps({**AUTHORIZATIONS[0], "chainId": "9" * 5000}), "chainId must be a non-negative"),
    "nested json": ("[" * 100000, "must be JSON"),
}


@pytest.mark.parametrize("case", sorted(AUTHORIZATION_REFUSALS))
def test_malformed_authorizations_are_refused_naming_the_problem(case: str) -> None:
    text, reason = AUTHORIZATION_REFUSALS[case]
    with pytest.raises(InvalidArgument) as caught:
        authorization_digest(text)
    assert caught.value.message.startswith("invalid payload encoding: EIP-7702 authorization: ")
    assert reason in caught.value.message
