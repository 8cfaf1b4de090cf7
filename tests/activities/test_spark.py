"""Spark through the HTTP surface: malformed requests are refused with what is wrong, an address that
is not a Spark account is refused, and nothing is answered with made-up packages or shares."""

from __future__ import annotations

from typing import Any

import coincurve
from conftest import ETH_ACCOUNT
from support import assert_error, new_wallet

POINT = coincurve.PrivateKey(b"\x01" * 32).public_key.format().hex()
LEAF = "0195f0c2-0000-7000-8000-000000000001"
OPERATOR = {"operatorId": "0195f0c2-0000-7000-8000-0000000000aa", "encryptionPublicKey": POINT}


def frost(client: Any, sign_with: str, **override: Any) -> Any:
    request = {
        "derivation": {"signingLeaf": {"leafId": LEAF}},
        "message": "11" * 32,
        "verifyingKey": POINT,
        "operatorCommitments": [{"id": "22" * 32, "hiding": POINT, "binding": POINT}],
        **override,
    }
    params = {"signWith": sign_with, "signatures": [request]}
    return client.submit("spark_sign_frost", "ACTIVITY_TYPE_SPARK_SIGN_FROST", params)


def test_malformed_frost_requests_say_what_is_wrong(client):
    address = new_wallet(client, "w", [ETH_ACCOUNT])["addresses"][0]
    assert_error(frost(client, address, message="11" * 31), 400, 3, "signatures[0].message")
    assert_error(frost(client, address, verifyingKey="02" + "00" * 32), 400, 3, "not a compressed secp256k1 point")
    assert_error(frost(client, address, derivation={"identity": {}, "deposit": {}}), 400, 3, "exactly one of")
    assert_error(frost(client, address), 400, 3, "not a Spark wallet account")
    assert_error(frost(client, "nowhere"), 400, 3, "not a wallet account")


def test_packages_check_thresholds_and_derivations(client):
    address = new_wallet(client, "w", [ETH_ACCOUNT])["addresses"][0]
    receive = {"signWith": address, "lightningReceive": {"threshold": 2, "operatorRecipients": [OPERATOR]}}
    refused = client.submit("spark_prepare_lightning_receive", "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE", receive)
    assert_error(refused, 400, 3, "lightningReceive.threshold")
    leaf = {
        "leafId": LEAF,
        "oldLeafDerivation": {"identity": {}},
        "newLeafDerivation": {"signingLeaf": {"leafId": LEAF}},
    }
    transfer = {
        "transferId": LEAF,
        "leaves": [leaf],
        "threshold": 1,
        "operatorRecipients": [OPERATOR],
        "receiverPublicKey": POINT,
    }
    refused = client.submit(
        "spark_prepare_transfer", "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER", {"signWith": address, "transfer": transfer}
    )
    assert_error(refused, 400, 3, "must be a signingLeaf derivation")
    claim = {
        "leaves": [{"leafId": "not-a-uuid", "ciphertext": "00", "senderSignature": "00" * 64}],
        "threshold": 1,
        "operatorRecipients": [OPERATOR],
        "transferId": LEAF,
        "senderIdentityPublicKey": POINT,
    }
    refused = client.submit(
        "spark_claim_transfer", "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER", {"signWith": address, "claim": claim}
    )
    assert_error(refused, 400, 3, "claim.leaves[0].leafId: not a UUID")
