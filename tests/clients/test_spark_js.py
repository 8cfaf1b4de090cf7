"""The Spark SDK's own code (@buildonspark/spark-sdk, pinned in tests/spark-js) checks what the simulator
answers: a Spark account's address is the SDK's encodeSparkAddress of its identity key, and the SDK's
FROST signer (its WASM build of Spark's frost-secp256k1-tr) computes, from the same leaf key and nonces,
the very share spark_sign_frost returned, with and without an adaptor point. Runs when node and
tests/spark-js/node_modules are present (npm ci --prefix tests/spark-js)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import uuid

import coincurve
import pytest
from conftest import ROOT
from spark_helpers import SPARK, key_at, leaf_path, mnemonic_of
from support import assert_error, new_wallet, submit

from simulator.crypto import spark

N = spark.N

JS = ROOT / "tests" / "spark-js"
pytestmark = pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules" / "@buildonspark" / "spark-sdk").is_dir()),
    reason="node or tests/spark-js/node_modules missing (npm ci --prefix tests/spark-js)",
)


def sdk(request: dict) -> dict:
    done = subprocess.run(
        ["node", str(JS / "check.mjs")], input=json.dumps(request), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    answer: dict = json.loads(done.stdout)
    return answer


def test_the_sdk_encodes_the_same_spark_address(client):
    wallet = new_wallet(client, "spark", [SPARK])
    mnemonic = mnemonic_of(client, wallet["walletId"])
    identity = bytes(key_at(mnemonic, SPARK["path"]).public_key.format()).hex()
    answer = sdk({"op": "address", "publicKey": identity, "network": "REGTEST", "address": wallet["addresses"][0]})
    assert answer == {"encoded": wallet["addresses"][0], "decoded": identity}


@pytest.mark.parametrize("case", range(6))
def test_the_sdk_computes_the_same_frost_share(client, case):
    wallet = new_wallet(client, "spark", [SPARK])
    mnemonic = mnemonic_of(client, wallet["walletId"])
    leaf = str(uuid.UUID(int=1000 + case))
    user = key_at(mnemonic, leaf_path(leaf))

    def scalar(label: str) -> int:
        return int.from_bytes(hashlib.sha256(f"{label}{case}".encode()).digest(), "big") % spark.N

    group = coincurve.PublicKey.combine_keys([user.public_key, spark.point_mul(scalar("operators"))])
    commitments = [
        {
            "id": (k + 1).to_bytes(32, "big").hex(),
            "hiding": spark.point_mul(scalar(f"d{k}")).format().hex(),
            "binding": spark.point_mul(scalar(f"e{k}")).format().hex(),
        }
        for k in range(1 + case % 3)
    ]
    adaptor = spark.point_mul(scalar("adaptor")).format().hex() if case % 2 else ""
    request = {
        "derivation": {"signingLeaf": {"leafId": leaf}},
        "message": hashlib.sha256(f"sighash{case}".encode()).hexdigest(),
        "verifyingKey": group.format().hex(),
        "operatorCommitments": commitments,
        "adaptorPublicKey": adaptor,
    }
    params = {"signWith": wallet["addresses"][0], "signatures": [request]}
    (share,) = submit(client, "spark_sign_frost", params, "sparkSignFrostResult", "ACTIVITY_TYPE_SPARK_SIGN_FROST")[
        "signatures"
    ]
    # The nonces are the simulator's own deterministic choice (the service's HMAC is not public); given
    # them, the share is fully determined by Spark's FROST, which the SDK computes here.
    secret = bytes(user.secret)
    bound = (
        bytes.fromhex(request["message"])
        + group.format()
        + b"".join(
            bytes.fromhex(c["id"] + c["hiding"] + c["binding"]) for c in sorted(commitments, key=lambda c: c["id"])
        )
    )
    hiding, binding = spark.frost_nonces(secret, bound + bytes.fromhex(adaptor))
    assert spark.point_mul(hiding).format().hex() == share["hiding"]
    answer = sdk(
        {
            "op": "frost",
            "message": request["message"],
            "secretKey": secret.hex(),
            "publicKey": user.public_key.format().hex(),
            "verifyingKey": request["verifyingKey"],
            "nonce": {"hiding": spark.scalar_bytes(hiding).hex(), "binding": spark.scalar_bytes(binding).hex()},
            "selfCommitment": {"hiding": share["hiding"], "binding": share["binding"]},
            "operatorCommitments": commitments,
            "adaptorPublicKey": adaptor or None,
        }
    )
    assert answer["signatureShare"] == share["signatureShare"]


def operators(count: int) -> list[tuple[dict, coincurve.PrivateKey]]:
    keys = [coincurve.PrivateKey(hashlib.sha256(b"operator %d" % i).digest()) for i in range(count)]
    return [
        ({"operatorId": str(uuid.UUID(int=0xAA00 + i)), "encryptionPublicKey": k.public_key.format().hex()}, k)
        for i, k in enumerate(keys)
    ]


@pytest.mark.parametrize("threshold,count", [(2, 3), (3, 5)])
def test_lightning_receive_shares_open_validate_and_recover_the_preimage_with_the_sdk(client, threshold, count):
    wallet = new_wallet(client, "spark", [SPARK])
    recipients = operators(count)
    params = {
        "signWith": wallet["addresses"][0],
        "lightningReceive": {"threshold": threshold, "operatorRecipients": [r for r, _ in recipients]},
    }
    result = submit(
        client,
        "spark_prepare_lightning_receive",
        params,
        "sparkPrepareLightningReceiveResult",
        "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE",
    )
    assert [p["operatorId"] for p in result["operatorPackages"]] == [r["operatorId"] for r, _ in recipients]
    packages = [
        {"encryptedPackage": p["encryptedPackage"], "privateKey": k.secret.hex(), "index": i + 1}
        for i, (p, (_, k)) in enumerate(zip(result["operatorPackages"], recipients, strict=True))
    ]
    answer = sdk({"op": "shares", "packages": packages, "threshold": threshold})
    assert hashlib.sha256(bytes.fromhex(answer["recovered"])).hexdigest() == result["paymentHash"]
    assert len(answer["proofs"]) == threshold
    again = submit(
        client,
        "spark_prepare_lightning_receive",
        params,
        "sparkPrepareLightningReceiveResult",
        "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE",
    )
    assert again["paymentHash"] != result["paymentHash"]  # each receive gets a fresh preimage


def opened_packages(result: dict, recipients: list) -> list[dict]:
    return [
        {
            "operatorId": p["operatorId"],
            "encryptedPackage": p["encryptedPackage"],
            "privateKey": k.secret.hex(),
            "index": i + 1,
        }
        for i, (p, (_, k)) in enumerate(zip(result["operatorPackages"], recipients, strict=True))
    ]


def test_a_transfer_prepared_by_one_wallet_is_claimed_by_another_as_the_sdk_reads_them(client):
    sender = new_wallet(client, "alice", [SPARK])
    receiver = new_wallet(client, "bob", [SPARK])
    alice, bob = (mnemonic_of(client, w["walletId"]) for w in (sender, receiver))
    alice_identity = key_at(alice, SPARK["path"])
    bob_identity = key_at(bob, SPARK["path"])
    recipients = operators(3)
    leaf, fresh, transfer_id = (str(uuid.UUID(int=0x5000 + k)) for k in range(3))
    transfer = {
        "transferId": transfer_id,
        "leaves": [
            {
                "leafId": leaf,
                "oldLeafDerivation": {"signingLeaf": {"leafId": leaf}},
                "newLeafDerivation": {"signingLeaf": {"leafId": fresh}},
                "refundSignature": "ab" * 64,
            }
        ],
        "threshold": 2,
        "operatorRecipients": [r for r, _ in recipients],
        "receiverPublicKey": bob_identity.public_key.format().hex(),
    }
    prepared = submit(
        client,
        "spark_prepare_transfer",
        {"signWith": sender["addresses"][0], "transfer": transfer},
        "sparkPrepareTransferResult",
        "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER",
    )
    new_key = key_at(alice, leaf_path(fresh))
    assert prepared["newLeafPublicKeys"] == [{"leafId": fresh, "publicKey": new_key.public_key.format().hex()}]
    sent = sdk(
        {"op": "send", "packages": opened_packages(prepared, recipients), "threshold": 2, "transferId": transfer_id}
    )
    tweak = (int.from_bytes(key_at(alice, leaf_path(leaf)).secret, "big") - int.from_bytes(new_key.secret, "big")) % N
    assert int(sent["recovered"], 16) == tweak
    (tweaked,) = sent["leaves"]
    assert tweaked["leafId"] == leaf and tweaked["refundSignature"] == "ab" * 64
    # Every operator's public share of the tweak, as the package lists them, is its share times G.
    assert tweaked["pubkeySharesTweak"] == {
        r["operatorId"]: spark.point_mul(int(share, 16)).format().hex()
        for (r, _), share in zip(recipients, sent["shares"], strict=True)
    }
    # The user signature: DER ECDSA by the identity key over the SDK's own transfer signing payload.
    payload = bytes.fromhex(sent["transferSigningPayload"])
    der = bytes.fromhex(prepared["transferUserSignature"])
    assert alice_identity.public_key.verify(der, payload, hasher=None)

    claim = {
        "leaves": [{"leafId": leaf, "ciphertext": tweaked["secretCipher"], "senderSignature": tweaked["signature"]}],
        "threshold": 2,
        "operatorRecipients": [r for r, _ in recipients],
        "transferId": transfer_id,
        "senderIdentityPublicKey": alice_identity.public_key.format().hex(),
    }
    claimed = submit(
        client,
        "spark_claim_transfer",
        {"signWith": receiver["addresses"][0], "claim": claim},
        "sparkClaimTransferResult",
        "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",
    )
    bob_leaf = key_at(bob, leaf_path(leaf))
    assert claimed["newLeafPublicKeys"] == [{"leafId": leaf, "publicKey": bob_leaf.public_key.format().hex()}]
    received = sdk({"op": "claim", "packages": opened_packages(claimed, recipients), "threshold": 2})
    assert (
        int(received["recovered"], 16)
        == (int.from_bytes(new_key.secret, "big") - int.from_bytes(bob_leaf.secret, "big")) % N
    )
    assert [t["leafId"] for t in received["leaves"]] == [leaf]

    # A claim whose sender signature does not match is refused; so is one the wallet cannot open.
    forged = {**claim, "senderIdentityPublicKey": bob_identity.public_key.format().hex()}
    refused = client.submit(
        "spark_claim_transfer",
        "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",
        {"signWith": receiver["addresses"][0], "claim": forged},
    )
    assert_error(refused, 400, 3, "senderSignature")
    refused = client.submit(
        "spark_claim_transfer",
        "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",
        {"signWith": sender["addresses"][0], "claim": claim},
    )
    assert_error(refused, 400, 3, "does not open with the wallet's identity key")
