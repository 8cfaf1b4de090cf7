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
from support import new_wallet, submit
from test_spark_signing import SPARK, key_at, leaf_path, mnemonic_of

from simulator.crypto import spark

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
