"""Spark wallet accounts and the user's FROST share, checked with independent code: the address decoded
by hand (bech32m over the protobuf SparkAddress), keys re-derived from the exported mnemonic with
bip_utils, identity signatures verified by libsecp256k1 (coincurve), and the FROST share checked
against the signature-share verification equation, z·G = D + ρ·E + c·P_user (nonces and key made
even-Y as BIP-340 needs), with a full signature completed by a stand-in operator and verified as BIP-340."""

from __future__ import annotations

import hashlib
import uuid

import coincurve
import pytest
from conftest import ok
from spark_helpers import SPARK, key_at, leaf_path, mnemonic_of
from support import assert_error, new_wallet, submit

from simulator.crypto import spark as spark_crypto

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
COMPRESSED = {**SPARK, "addressFormat": "ADDRESS_FORMAT_COMPRESSED"}
MAINNET = {**SPARK, "path": "m/8797555'/1'/0'", "addressFormat": "ADDRESS_FORMAT_SPARK_MAINNET"}
CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def bech32m_decode(address: str) -> tuple[str, bytes]:
    hrp, _, data = address.rpartition("1")
    values = [CHARSET.index(c) for c in data]
    checksum, generator = 1, (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
    for value in [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp] + values:
        top = checksum >> 25
        checksum = (checksum & 0x1FFFFFF) << 5 ^ value
        for i in range(5):
            checksum ^= generator[i] if (top >> i) & 1 else 0
    assert checksum == 0x2BC830A3, "not bech32m"
    accumulator, bits, out = 0, 0, bytearray()
    for value in values[:-6]:
        accumulator, bits = (accumulator << 5) | value, bits + 5
        if bits >= 8:
            bits -= 8
            out.append((accumulator >> bits) & 0xFF)
    return hrp, bytes(out)


def sign(client, params: dict) -> dict:
    return submit(client, "sign_raw_payload", params, "signRawPayloadResult", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2")


@pytest.fixture
def spark_wallet(client):
    wallet = new_wallet(client, "spark", [SPARK, COMPRESSED, MAINNET])
    return wallet, mnemonic_of(client, wallet["walletId"])


def test_spark_addresses_carry_the_identity_key(client, spark_wallet):
    wallet, mnemonic = spark_wallet
    regtest, compressed, mainnet = wallet["addresses"]
    identity = bytes(key_at(mnemonic, "m/8797555'/0'/0'").public_key.format())
    assert compressed == identity.hex()
    assert bech32m_decode(regtest) == ("sparkrt", b"\x0a\x21" + identity)
    hrp, payload = bech32m_decode(mainnet)
    assert hrp == "spark" and payload[2:] == bytes(key_at(mnemonic, "m/8797555'/1'/0'").public_key.format())
    listed = ok(client.query("list_wallet_accounts", walletId=wallet["walletId"]))["accounts"]
    spark = next(a for a in listed if a["address"] == regtest)
    assert spark["addressFormat"] == "ADDRESS_FORMAT_SPARK_REGTEST" and spark["publicKey"] == identity.hex()


def test_spark_accounts_are_secp256k1_only(client):
    ed = {**SPARK, "curve": "CURVE_ED25519"}
    refused = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "x", "accounts": [ed]})
    assert_error(refused, 400, 3, "ADDRESS_FORMAT_SPARK_REGTEST requires CURVE_SECP256K1")


def test_identity_signatures_are_schnorr_on_the_spark_address_and_ecdsa_on_the_compressed_one(client, spark_wallet):
    wallet, mnemonic = spark_wallet
    regtest, compressed, _ = wallet["addresses"]
    identity = key_at(mnemonic, "m/8797555'/0'/0'").public_key
    digest = hashlib.sha256(b"spark auth challenge").digest()
    ask = {"encoding": "PAYLOAD_ENCODING_HEXADECIMAL", "hashFunction": "HASH_FUNCTION_NO_OP", "payload": digest.hex()}
    schnorr = sign(client, {**ask, "signWith": regtest})
    assert schnorr["v"] == "00"
    xonly = coincurve.PublicKeyXOnly(bytes(identity.format())[1:])
    assert xonly.verify(bytes.fromhex(schnorr["r"] + schnorr["s"]), digest)
    ecdsa = sign(client, {**ask, "signWith": compressed})
    compact = bytes.fromhex(ecdsa["r"] + ecdsa["s"])
    assert identity.verify(coincurve.ecdsa.cdata_to_der(coincurve.ecdsa.deserialize_compact(compact)), digest, None)
    text = {**ask, "payload": "hello", "encoding": "PAYLOAD_ENCODING_TEXT_UTF8", "hashFunction": "HASH_FUNCTION_SHA256"}
    hashed = sign(client, {**text, "signWith": regtest})
    assert xonly.verify(bytes.fromhex(hashed["r"] + hashed["s"]), hashlib.sha256(b"hello").digest())
    short = client.submit(
        "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", {**ask, "payload": "00", "signWith": regtest}
    )
    assert_error(short, 400, 3, "32-byte digest")


# --- FROST: the signature-share equation, checked independently --------------------------------------


def tagged(tag: str, data: bytes) -> int:
    t = hashlib.sha256(tag.encode()).digest()
    return int.from_bytes(hashlib.sha256(t + t + data).digest(), "big")


def xmd(message: bytes, dst: bytes) -> int:
    """RFC 9380 expand_message_xmd(SHA-256, 48 bytes), reduced mod n: the ciphersuite's hash_to_scalar."""
    prime = dst + bytes([len(dst)])
    b0 = hashlib.sha256(bytes(64) + message + (48).to_bytes(2, "big") + b"\x00" + prime).digest()
    b1 = hashlib.sha256(b0 + b"\x01" + prime).digest()
    b2 = hashlib.sha256(bytes(x ^ y for x, y in zip(b0, b1, strict=True)) + b"\x02" + prime).digest()
    return int.from_bytes((b1 + b2)[:48], "big") % N


def pt(value: int) -> coincurve.PublicKey:
    return coincurve.PublicKey.from_secret(value.to_bytes(32, "big"))


def add(*points: coincurve.PublicKey) -> coincurve.PublicKey:
    return coincurve.PublicKey.combine_keys(list(points))


def mul(point: coincurve.PublicKey, k: int) -> coincurve.PublicKey:
    return point.multiply((k % N).to_bytes(32, "big"))


def is_odd(point: coincurve.PublicKey) -> bool:
    return bytes(point.format())[0] == 3


CONTEXT = b"FROST-secp256k1-SHA256-TR-v1"
USER = xmd(b"user", CONTEXT + b"id")


@pytest.mark.parametrize("seed", range(4))
def test_the_frost_share_satisfies_the_share_equation_and_completes_a_bip340_signature(client, spark_wallet, seed):
    wallet, mnemonic = spark_wallet
    leaf = str(uuid.UUID(int=seed + 1))
    user = key_at(mnemonic, leaf_path(leaf))
    operator_secret = int.from_bytes(hashlib.sha256(b"operator%d" % seed).digest(), "big") % N
    group = add(user.public_key, pt(operator_secret))  # P_ops + P_user
    d_op, e_op = (int.from_bytes(hashlib.sha256(b"%s%d" % (k, seed)).digest(), "big") % N for k in (b"d", b"e"))
    op_id = 7 + seed
    message = hashlib.sha256(b"sighash %d" % seed).digest()
    request = {
        "derivation": {"signingLeaf": {"leafId": leaf}},
        "message": message.hex(),
        "verifyingKey": group.format().hex(),
        "operatorCommitments": [
            {
                "id": op_id.to_bytes(32, "big").hex(),
                "hiding": pt(d_op).format().hex(),
                "binding": pt(e_op).format().hex(),
            }
        ],
    }
    params = {"signWith": wallet["addresses"][0], "signatures": [request]}
    answer = submit(client, "spark_sign_frost", params, "sparkSignFrostResult", "ACTIVITY_TYPE_SPARK_SIGN_FROST")
    (share,) = answer["signatures"]
    again = submit(client, "spark_sign_frost", params, "sparkSignFrostResult", "ACTIVITY_TYPE_SPARK_SIGN_FROST")
    assert again["signatures"] == [share]  # the nonce is bound to the request, so a retry repeats the share
    z = int(share["signatureShare"], 16)
    hiding, binding = (
        coincurve.PublicKey(bytes.fromhex(share["hiding"])),
        coincurve.PublicKey(bytes.fromhex(share["binding"])),
    )

    # The group key as signed: even-Y, BIP-86 tweaked (empty merkle root), even-Y again.
    x_group = bytes(group.format())[1:]
    tweak = tagged("TapTweak", x_group) % N
    tweaked = add(coincurve.PublicKey(b"\x02" + x_group), pt(tweak))
    flip_tweaked = is_odd(tweaked)
    # The user's public share as it signs: negated for an odd group key, and again for an odd tweaked one.
    user_point = user.public_key
    user_sign = (-1 if is_odd(group) else 1) * (-1 if flip_tweaked else 1)
    if user_sign < 0:
        user_point = mul(user_point, N - 1)
    commitments = sorted(
        [
            (USER, bytes(hiding.format()), bytes(binding.format())),
            (op_id, bytes(pt(d_op).format()), bytes(pt(e_op).format())),
        ]
    )
    encoded = b"".join(i.to_bytes(32, "big") + d + e for i, d, e in commitments)
    even_tweaked = b"\x02" + bytes(tweaked.format())[1:]
    prefix = (
        even_tweaked
        + hashlib.sha256(CONTEXT + b"msg" + message).digest()
        + hashlib.sha256(CONTEXT + b"com" + encoded).digest()
    )
    rho = {i: xmd(prefix + i.to_bytes(32, "big"), CONTEXT + b"rho") for i, _, _ in commitments}
    big_r = add(hiding, mul(binding, rho[USER]), pt(d_op), mul(pt(e_op), rho[op_id]))
    r_sign = -1 if is_odd(big_r) else 1
    c = tagged("BIP0340/challenge", bytes(big_r.format())[1:] + even_tweaked[1:] + message) % N
    expected = add(mul(add(hiding, mul(binding, rho[USER])), r_sign % N if r_sign > 0 else N - 1), mul(user_point, c))
    assert pt(z).format() == expected.format()

    # A stand-in operator holding the rest of the key (plus the tweak) completes a BIP-340 signature.
    op_key = (operator_secret if not is_odd(group) else N - operator_secret) + tweak
    op_key = N - op_key % N if flip_tweaked else op_key % N
    z_op = ((d_op + e_op * rho[op_id]) * r_sign + op_key * c) % N
    signature = bytes(big_r.format())[1:] + ((z + z_op) % N).to_bytes(32, "big")
    assert coincurve.PublicKeyXOnly(even_tweaked[1:]).verify(signature, message)


def test_frost_refusals(client, spark_wallet):
    wallet, _ = spark_wallet
    user_id = {"id": USER.to_bytes(32, "big").hex(), "hiding": pt(3).format().hex(), "binding": pt(4).format().hex()}
    request = {
        "derivation": {"signingLeaf": {"leafId": str(uuid.UUID(int=9))}},
        "message": "11" * 32,
        "verifyingKey": pt(5).format().hex(),
        "operatorCommitments": [user_id],
    }
    params = {"signWith": wallet["addresses"][0], "signatures": [request]}
    refused = client.submit("spark_sign_frost", "ACTIVITY_TYPE_SPARK_SIGN_FROST", params)
    assert_error(refused, 400, 3, "Turnkey's own identifier")
    params["signatures"] = [{**request, "operatorCommitments": []}]
    refused = client.submit("spark_sign_frost", "ACTIVITY_TYPE_SPARK_SIGN_FROST", params)
    assert_error(refused, 400, 3, "at least one operator commitment")
    params["signatures"] = [
        {**request, "derivation": {"htlcPreimage": {}}, "operatorCommitments": [{**user_id, "id": "01".rjust(64, "0")}]}
    ]
    refused = client.submit("spark_sign_frost", "ACTIVITY_TYPE_SPARK_SIGN_FROST", params)
    assert_error(refused, 501, 12, "htlcPreimage")


def test_package_requests_are_refused_with_what_is_wrong(client, spark_wallet):
    wallet, _ = spark_wallet
    operator = {"operatorId": "00" * 31 + "01", "encryptionPublicKey": pt(9).format().hex()}
    twice = {"threshold": 1, "operatorRecipients": [operator, operator]}
    params = {"signWith": wallet["addresses"][0], "lightningReceive": twice}
    refused = client.submit("spark_prepare_lightning_receive", "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE", params)
    assert_error(refused, 400, 3, "operatorId is repeated")
    params["lightningReceive"] = {"threshold": 1, "operatorRecipients": [{**operator, "operatorId": "op-1"}]}
    refused = client.submit("spark_prepare_lightning_receive", "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE", params)
    assert_error(refused, 400, 3, "operatorId: not a UUID")
    params["lightningReceive"] = {"threshold": 1, "operatorRecipients": [operator]}
    made = submit(
        client,
        "spark_prepare_lightning_receive",
        params,
        "sparkPrepareLightningReceiveResult",
        "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE",
    )
    assert len(bytes.fromhex(made["paymentHash"])) == 32
    assert [p["operatorId"] for p in made["operatorPackages"]] == [operator["operatorId"]]
    leaf = str(uuid.UUID(int=77))
    claim = {
        "leaves": [{"leafId": leaf, "ciphertext": "00" * 120, "senderSignature": "11" * 64}],
        "threshold": 1,
        "operatorRecipients": [operator],
        "transferId": leaf,
        "senderIdentityPublicKey": pt(3).format().hex(),
    }
    refused = client.submit(
        "spark_claim_transfer",
        "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",
        {"signWith": wallet["addresses"][0], "claim": claim},
    )
    assert_error(refused, 400, 3, "claim.leaves[0].senderSignature")


def activity_count(client) -> int:
    return len(ok(client.query("list_activities", organizationId=client.organization_id))["activities"])


def test_a_transfer_or_claim_that_keeps_the_leaf_key_is_refused_and_changes_nothing(client, spark_wallet):
    """Equal old and new leaf keys make a zero tweak: the receiver would get the key the sender keeps.
    Refused with a 400 naming the field, not a 500 from the Feldman split (docs/ledger/spark.yaml)."""
    wallet, mnemonic = spark_wallet
    operator = {"operatorId": "00" * 31 + "01", "encryptionPublicKey": pt(9).format().hex()}
    leaf = str(uuid.UUID(int=78))
    same = {"signingLeaf": {"leafId": leaf}}
    transfer = {
        "transferId": leaf,
        "leaves": [{"leafId": leaf, "oldLeafDerivation": same, "newLeafDerivation": same}],
        "threshold": 1,
        "operatorRecipients": [operator],
        "receiverPublicKey": pt(3).format().hex(),
    }
    before = activity_count(client)
    for threshold in (1, 2):
        params = {"signWith": wallet["addresses"][0], "transfer": {**transfer, "threshold": threshold}}
        if threshold == 2:
            params["transfer"]["operatorRecipients"] = [operator, {**operator, "operatorId": "00" * 31 + "02"}]
        refused = client.submit("spark_prepare_transfer", "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER", params)
        assert_error(refused, 400, 3, "transfer.leaves[0].newLeafDerivation", "same key as oldLeafDerivation")
    # the claim's twin: a cipher holding the very key this wallet would claim the leaf with
    identity = bytes(key_at(mnemonic, "m/8797555'/0'/0'").public_key.format())
    own = key_at(mnemonic, leaf_path(leaf)).secret
    cipher = spark_crypto.ecies_encrypt(identity, own, (5).to_bytes(32, "big"), bytes(16))
    sender = coincurve.PrivateKey((11).to_bytes(32, "big"))
    digest = hashlib.sha256(leaf.encode() + leaf.encode() + cipher).digest()
    signature = sender.sign_recoverable(digest, hasher=None)[:64]
    claim = {
        "leaves": [{"leafId": leaf, "ciphertext": cipher.hex(), "senderSignature": signature.hex()}],
        "threshold": 1,
        "operatorRecipients": [operator],
        "transferId": leaf,
        "senderIdentityPublicKey": sender.public_key.format().hex(),
    }
    refused = client.submit(
        "spark_claim_transfer",
        "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",
        {"signWith": wallet["addresses"][0], "claim": claim},
    )
    assert_error(refused, 400, 3, "claim.leaves[0].ciphertext", "a claim moves the leaf to a new key")
    assert activity_count(client) == before
