"""Ethereum transactions of every type: built by viem and ethers, parsed and signed by the simulator,
checked by eth-account (Account.recover_transaction, TypedTransaction re-encoding) and, when node and
tests/js/node_modules are present, by viem and ethers themselves (recovered signer, re-serialization).

The unsigned vectors below are what viem 2.57.20 / ethers 6.17.0 serialize (tests/js/eth_vectors.js
"build"); a node test checks that they still do.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import rlp
from eth_account import Account
from eth_account.typed_transactions import TypedTransaction
from eth_keys import keys
from hexbytes import HexBytes

from simulator.chains import ethereum
from simulator.chains.eth_calls import decode_call, validate_abi
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
SECP256K1 = "CURVE_SECP256K1"
KEY = hashlib.sha256(b"ethereum signer").digest()
ADDRESS = keys.PrivateKey(KEY).public_key.to_address()  # lowercase 0x hex
SECP256K1_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
TO = "0x1111111111111111111111111111111111111111"
BUILD_SPEC = {
    "to": TO,
    "delegate": "0x2222222222222222222222222222222222222222",
    "authorityKey": "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
}
_CALL = "94111111111111111111111111111111111111111188112210f47de9811585a9059cbb00"
_ACCESS = (
    "f85bf859941111111111111111111111111111111111111111f842"
    "a00000000000000000000000000000000000000000000000000000000000000001"
    "a00000000000000000000000000000000000000000000000000000000000000002"
)
_FEES = "0784773594008506fc23ac0082ea60"
VECTORS = {
    "viem_legacy_eip155": f"f1078504a817c80082ea60{_CALL}018080",
    "viem_legacy_no_chain": f"ee078504a817c80082ea60{_CALL}",
    "viem_contract_creation": "d880843b9aca008307a120808085608060405283aa36a78080",
    "viem_eip2930": f"01f88f83aa36a7078504a817c80082ea60{_CALL}{_ACCESS}",
    "viem_eip1559": f"02f893822105{_FEES}{_CALL}{_ACCESS}",
    "viem_eip1559_huge_value": f"02f84201{_FEES}94{TO[2:]}9a01{'00' * 25}80c0",
    "viem_eip4844": f"03f87e01{_FEES}{_CALL}c084b2d05e00f842a001{'ab' * 31}a001{'cd' * 31}",
    "viem_eip7702": (
        f"04f89301{_FEES}{_CALL}c0f85cf85a0194{'22' * 20}0301"
        "a0271b4f6bd234ec848c83e03cf5907d9aa2a08ae01b032dcd7f9d745317a078f3"
        "a0723f3d8dd00839b7234745cbea3f0abfa90276d76384e208324ed7b90d718538"
    ),
    "ethers_legacy": f"f207850ba43b740082ea60{_CALL}81898080",
    "ethers_eip2930": f"01f88d818907850ba43b740082ea60{_CALL}{_ACCESS}",
    "ethers_eip1559": f"02f50a{_FEES}{_CALL}c0",
}
EXPECTED_TYPES = {
    "legacy": "LEGACY",
    "contract_creation": "LEGACY",
    "eip2930": "TYPE_1",
    "eip1559": "TYPE_2",
    "eip4844": "TYPE_3",
    "eip7702": "TYPE_4",
}
GWEI = 10**9


def signed(name: str) -> str:
    return ethereum.parse(VECTORS[name]).sign(SECP256K1, KEY)


def refusal(unsigned: str) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        ethereum.parse(unsigned)
    return caught.value


def node(request: dict[str, Any]) -> Any:
    run = subprocess.run(
        ["node", str(JS / "eth_vectors.js"), json.dumps(request)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_eip155_published_example_signs_to_the_published_bytes() -> None:
    """EIP-155's own example: nonce 9, 20 gwei, 21000 gas, 1 ether to 0x3535..., chain 1, key 0x4646..."""
    unsigned = "ec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080"
    tx = ethereum.parse(unsigned)
    assert tx.signing_digest.hex() == "daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53"
    assert tx.sign(SECP256K1, bytes([0x46] * 32)) == (
        "f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd9"
        "39bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc6421"
        "4b297fb1966a3b6d83"
    )


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_eth_account_recovers_the_signer_of_every_type(name: str) -> None:
    raw = signed(name)
    assert raw == raw.lower() and not raw.startswith("0x")  # what viem and ethers prepend 0x to
    assert Account.recover_transaction("0x" + raw).lower() == ADDRESS
    if raw[:2] in ("01", "02", "03", "04"):
        assert TypedTransaction.from_bytes(HexBytes(raw)).encode().hex() == raw


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_signatures_are_deterministic_and_low_s(name: str) -> None:
    raw = signed(name)
    assert raw == signed(name)
    body = bytes.fromhex(raw) if int(raw[:2], 16) >= 0xC0 else bytes.fromhex(raw)[1:]
    s = int.from_bytes(rlp.decode(body)[-1], "big")
    assert 0 < s <= SECP256K1_ORDER // 2


def test_legacy_v_is_eip155_with_a_chain_id_and_27_28_without() -> None:
    with_chain = rlp.decode(bytes.fromhex(signed("viem_legacy_eip155")))
    without = rlp.decode(bytes.fromhex(signed("viem_legacy_no_chain")))
    assert int.from_bytes(with_chain[6], "big") in (37, 38)  # chain 1: 1 * 2 + 35 + recovery id
    assert int.from_bytes(without[6], "big") in (27, 28)
    assert len(with_chain) == len(without) == 9


def test_views_name_the_fields_policies_read() -> None:
    view = ethereum.parse(VECTORS["viem_eip1559"]).view
    assert view == {
        "type": "TYPE_2",
        "to": TO,
        "value": 1234567890123456789,
        "data": "0xa9059cbb00",
        "gas": 60000,
        "nonce": 7,
        "chain_id": 8453,
        "max_fee_per_gas": 30 * GWEI,
        "max_priority_fee_per_gas": 2 * GWEI,
        "gas_price": 30 * GWEI,  # fee-market transactions report max_fee_per_gas here, as the docs say
    }
    legacy = ethereum.parse(VECTORS["viem_legacy_no_chain"]).view
    assert legacy["type"] == "LEGACY" and legacy["gas_price"] == 20 * GWEI
    assert "chain_id" not in legacy and "max_fee_per_gas" not in legacy
    blob = ethereum.parse(VECTORS["viem_eip4844"]).view
    assert blob["type"] == "TYPE_3" and blob["max_fee_per_blob_gas"] == 3 * GWEI
    assert ethereum.parse(VECTORS["viem_eip7702"]).view["type"] == "TYPE_4"
    assert ethereum.parse(VECTORS["ethers_legacy"]).view["chain_id"] == 137


def test_contract_creation_and_empty_data_and_huge_values() -> None:
    creation = ethereum.parse(VECTORS["viem_contract_creation"]).view
    assert creation["to"] == "" and creation["data"] == "0x6080604052" and creation["chain_id"] == 11155111
    huge = ethereum.parse(VECTORS["viem_eip1559_huge_value"]).view
    assert huge["value"] == 2**200 and huge["data"] == ""


def test_fields_beyond_the_view_are_decoded() -> None:
    tx = ethereum.parse(VECTORS["viem_eip7702"])
    assert tx.fields["authorization_list"][0]["address"] == BUILD_SPEC["delegate"]
    assert tx.fields["authorization_list"][0]["nonce"] == 3
    assert ethereum.parse(VECTORS["viem_eip2930"]).fields["access_list"] == [
        {"address": TO, "storage_keys": ["0x" + "00" * 31 + "01", "0x" + "00" * 31 + "02"]}
    ]
    assert ethereum.parse(VECTORS["viem_eip4844"]).fields["blob_versioned_hashes"][1] == "0x01" + "cd" * 31


def test_0x_prefix_is_accepted_and_gives_the_same_signature() -> None:
    assert ethereum.parse("0x" + VECTORS["viem_eip1559"]).sign(SECP256K1, KEY) == signed("viem_eip1559")


def test_sender_and_contract_interface_extend_the_view() -> None:
    inputs = [{"name": "dst", "type": "address"}, {"name": "wad", "type": "uint256"}]
    abi = json.dumps([{"type": "function", "name": "transfer", "inputs": inputs}])
    data = "a9059cbb" + "00" * 12 + "AB" * 20 + f"{10**30:064x}"
    unsigned = ethereum.unsigned_eip1559(
        chain_id=1, nonce=0, max_priority_fee_per_gas=1, max_fee_per_gas=2, gas=50000, to=TO, data=bytes.fromhex(data)
    )
    tx = ethereum.parse(unsigned).with_sender("0xABCDEFabcdef0000000000000000000000000001")
    view = tx.with_contract_interface(abi).view
    assert view["from"] == "0xabcdefabcdef0000000000000000000000000001"
    assert view["function_name"] == "transfer" and view["function_signature"] == "0xa9059cbb"
    assert view["contract_call_args"] == {"dst": "0x" + "ab" * 20, "wad": 10**30}


def test_unsigned_eip1559_builder_matches_ethers() -> None:
    built = ethereum.unsigned_eip1559(
        chain_id=10,
        nonce=7,
        max_priority_fee_per_gas=2 * GWEI,
        max_fee_per_gas=30 * GWEI,
        gas=60000,
        to=TO,
        value=1234567890123456789,
        data=bytes.fromhex("a9059cbb00"),
    )
    assert built == VECTORS["ethers_eip1559"]


def test_a_key_on_another_curve_is_refused() -> None:
    tx = ethereum.parse(VECTORS["viem_eip1559"])
    with pytest.raises(InvalidArgument, match="CURVE_SECP256K1 keys, not CURVE_ED25519"):
        tx.sign("CURVE_ED25519", KEY)


REFUSALS = {
    "empty": ("", "INVALID_TRANSACTION", "empty"),
    "not hex": ("zz12", "INVALID_TRANSACTION", "hex"),
    "spaces": ("02 c0", "INVALID_TRANSACTION", "spaces"),
    "trailing bytes": (VECTORS["viem_eip1559"] + "00", "INVALID_TRANSACTION", "superfluous"),
    "truncated": (VECTORS["viem_eip1559"][:-2], "INVALID_TRANSACTION", "not canonical RLP"),
    "not a list": ("8180", "INVALID_TRANSACTION", "neither an RLP list"),
    "unknown type": ("05c0", "UNSUPPORTED_TRANSACTION_TYPE", "0x05"),
    "tempo type": ("76c0", "UNSUPPORTED_TRANSACTION_TYPE", "0x76"),
    "legacy field count": ("c780808080808080", "INVALID_TRANSACTION", "6 fields, or 9"),
    "typed field count": ("02c780808080808080", "INVALID_TRANSACTION", "has 9 fields"),
    "legacy signed": (signed("viem_legacy_eip155"), "INVALID_TRANSACTION", "already signed"),
    "typed signed": (signed("viem_eip1559"), "INVALID_TRANSACTION", "already signed"),
    "leading zero": ("02" + rlp.encode([b"\x00\x01", *[b""] * 8]).hex(), "INVALID_TRANSACTION", "chain_id"),
    "nonce too wide": ("02" + rlp.encode([1, b"\x01" * 9, *[b""] * 7]).hex(), "INVALID_TRANSACTION", "nonce"),
    "short address": ("02" + rlp.encode([1, 0, 0, 0, 0, b"\x01" * 19, 0, b"", []]).hex(), "INVALID_TRANSACTION", "to"),
    "bad access list": (
        "01" + rlp.encode([1, 0, 0, 0, b"", 0, b"", [[b"\x01" * 20]]]).hex(),
        "INVALID_TRANSACTION",
        "access_list[0]",
    ),
    "blob creation": (
        "03" + rlp.encode([1, 0, 0, 0, 0, b"", 0, b"", [], 0, []]).hex(),
        "INVALID_TRANSACTION",
        "cannot create",
    ),
    "chain id 0": ("c9" + "80" * 6 + "808080", "INVALID_TRANSACTION", "chain id 0"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusals_carry_the_real_error_code_and_say_why(case: str) -> None:
    unsigned, code, reason = REFUSALS[case]
    error = refusal(unsigned)
    assert error.error_code == code and error.status == 400
    assert reason in error.message


def test_the_eip4844_network_wrapper_is_refused() -> None:
    body = rlp.decode(bytes.fromhex(VECTORS["viem_eip4844"])[1:])
    wrapper = "03" + rlp.encode([body, [b"\x00" * 64], [b"\x00" * 48], [b"\x00" * 48]]).hex()
    error = refusal(wrapper)
    assert error.error_code == "INVALID_TRANSACTION" and "network wrapper" in error.message


def test_mangled_transactions_are_refused_never_crash() -> None:
    """Random truncations, bit flips and garbage: each either parses or is an InvalidArgument."""
    chooser = random.Random(712)
    originals = [bytes.fromhex(hex_) for hex_ in VECTORS.values()]
    for _ in range(400):
        raw = bytearray(chooser.choice(originals))
        action = chooser.randrange(3)
        if action == 0:
            raw = raw[: chooser.randrange(len(raw))]
        elif action == 1:
            raw[chooser.randrange(len(raw))] ^= 1 << chooser.randrange(8)
        else:
            raw = bytearray(chooser.randbytes(chooser.randrange(1, 80)))
        try:
            ethereum.parse(raw.hex()).sign(SECP256K1, KEY)
        except InvalidArgument as error:
            assert error.error_code in ("INVALID_TRANSACTION", "UNSUPPORTED_TRANSACTION_TYPE")


@pytest.fixture(scope="module")
def js() -> dict[str, Any]:
    """viem's and ethers' build of the vectors and their checks of every signed one, from one node run."""
    answer: dict[str, Any] = node(
        {"build": BUILD_SPEC, "verify": {"transactions": [signed(n) for n in sorted(VECTORS)]}}
    )
    return answer


@needs_node
def test_viem_and_ethers_build_these_vectors_and_recover_the_signer_of_each_signed_one(js: dict[str, Any]) -> None:
    assert js["build"]["transactions"] == VECTORS
    for name, check in zip(sorted(VECTORS), js["verify"]["transactions"]):
        assert check["viemSigner"] == check["ethersSigner"] == ADDRESS, name
        assert check["viemReserialized"] == check["ethersReserialized"] == signed(name), name
        expected = next(kind for key, kind in EXPECTED_TYPES.items() if key in name)
        assert ethereum.parse(VECTORS[name]).view["type"] == expected


@needs_node
def test_calldata_encoded_by_ethers_decodes_through_its_stored_abi(js: dict[str, Any]) -> None:
    call = js["build"]["call"]
    unsigned = ethereum.unsigned_eip1559(
        chain_id=1,
        nonce=0,
        max_priority_fee_per_gas=1,
        max_fee_per_gas=2,
        gas=90000,
        to=TO,
        data=bytes.fromhex(call["data"]),
    )
    view = ethereum.parse(unsigned).with_contract_interface(call["abi"]).view
    assert view["function_name"] == "swap" and view["function_signature"] == "0x" + call["data"][:8]
    assert view["contract_call_args"] == {
        # tuples are read by position (ethereum.mdx: call[0], call[1]; named access is an error)
        "route": [TO, 3000],
        "amounts": [1, 2**200],
        "2": "0x" + "ee" * 32,  # an unnamed argument is keyed by its position
        "hops": [[BUILD_SPEC["delegate"], "0xcafe"]],
        "exact": True,
        "memo": "gm",
        "delta": -5,
    }


TRANSFER_ABI = json.dumps(
    [
        {"name": "transfer", "inputs": [{"name": "dst", "type": "address"}, {"name": "wad", "type": "uint"}]},
        {"type": "fallback"},
    ]
)
TRANSFER = "a9059cbb" + "00" * 12 + "ab" * 20 + f"{5:064x}"  # transfer(address,uint256), as Solidity spells uint


def test_decode_call_covers_the_abi_edge_cases() -> None:
    assert decode_call(TRANSFER, TRANSFER_ABI)["contract_call_args"] == {"dst": "0x" + "ab" * 20, "wad": 5}
    assert decode_call("0x" + TRANSFER, TRANSFER_ABI)["function_name"] == "transfer"
    assert decode_call("deadbeef" + TRANSFER[8:], TRANSFER_ABI) == {}  # selector of no function in the ABI
    assert decode_call("a905", TRANSFER_ABI) == {}  # shorter than a selector
    truncated = decode_call(TRANSFER[:-2], TRANSFER_ABI)  # the arguments do not decode: no contract_call_args
    assert truncated == {"function_name": "transfer", "function_signature": "0xa9059cbb"}


@pytest.mark.parametrize(
    ("abi", "reason"),
    [
        ("{", "not JSON"),
        ('{"name": "x"}', "JSON array"),
        ('[{"type": "function", "inputs": []}]', "has no name"),
        ('[{"name": "f", "inputs": [{"name": "a"}]}]', "has no type"),
        ('[{"name": "f", "inputs": [{"name": "a", "type": "uint7"}]}]', "invalid input type 'uint7'"),
        ('[{"name": "f", "inputs": [{"name": "a", "type": "tuple"}]}]', "tuple without components"),
    ],
)
def test_a_malformed_abi_is_refused(abi: str, reason: str) -> None:
    with pytest.raises(InvalidArgument, match="invalid smart contract interface") as caught:
        validate_abi(abi)
    assert reason in caught.value.message


def nested_rlp_lists(depth: int) -> bytes:
    encoded = b"\x80"
    for _ in range(depth):
        size = len(encoded)
        length = size.to_bytes((size.bit_length() + 7) // 8, "big")
        encoded = (bytes([0xC0 + size]) if size < 56 else bytes([0xF7 + len(length)]) + length) + encoded
    return encoded


def test_hostile_nesting_is_refused_not_a_crash() -> None:
    assert "nested too deeply" in refusal("02" + nested_rlp_lists(3000).hex()).message
    assert "nested too deeply" in refusal(nested_rlp_lists(3000).hex()).message
    components = '{"type": "tuple", "components": [' * 3000 + "]}" * 3000
    with pytest.raises(InvalidArgument, match="nested too deeply"):
        validate_abi('[{"name": "f", "inputs": [' + components + "]}]")
