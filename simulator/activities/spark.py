"""Spark, as @turnkey/spark drives it: FROST signing of the user's share and the three package
activities, computed for real with the keys under the Spark account ``signWith`` (paths as
@turnkey/spark uses them, simulator.crypto.spark).

``spark_sign_frost`` returns the user's FROST signature share over the operators' nonce commitments,
with its own commitments; the nonces are derived deterministically from the key and everything the
request binds (the service's own nonce HMAC is not public), so a retry gets the same share.
``spark_prepare_transfer``, ``spark_claim_transfer`` and ``spark_prepare_lightning_receive`` build the
per-operator packages the Spark SDK itself builds (protobuf SendLeafKeyTweaks, ClaimLeafKeyTweaks and
SecretShare, Feldman-split with proofs, ECIES-encrypted to each operator). Whether Spark's operators
accept them is theirs to say: nothing here talks to an operator.

Every request is checked completely first (hex lengths, curve points, UUIDs, one derivation kind per
key, thresholds against the operator list, a Spark ``signWith``).
"""

from __future__ import annotations

import hashlib
import uuid

import coincurve
from cryptography.exceptions import InvalidTag

from simulator.crypto import spark
from simulator.errors import InvalidArgument, Unimplemented
from simulator.handler_support.context import Context
from simulator.model.key_material import derive
from simulator.protobuf_wire import length_delimited
from simulator.standins import longtail
from simulator.wire import Json

SPARK_FORMATS = spark.SPARK_FORMATS
DERIVATIONS = ("identity", "signingLeaf", "deposit", "staticDeposit", "htlcPreimage")


def spark_sign_frost(ctx: Context, params: Json) -> Json:
    requests = []
    for i, request in enumerate(params["signatures"]):
        where = f"signatures[{i}]"
        derivation(request["derivation"], f"{where}.derivation")
        message = hex_bytes(request["message"], 32, f"{where}.message")
        verifying_key = hex_bytes(request["verifyingKey"], 33, f"{where}.verifyingKey")
        point(request["verifyingKey"], f"{where}.verifyingKey")
        commitments = []
        for j, commitment in enumerate(request["operatorCommitments"]):
            at = f"{where}.operatorCommitments[{j}]"
            identifier = int.from_bytes(hex_bytes(commitment["id"], 32, f"{at}.id"), "big")
            if not 0 < identifier < spark.N:
                raise InvalidArgument(f"invalid {at}.id: not a nonzero secp256k1 scalar")
            if identifier == spark.USER_ID:
                raise InvalidArgument(f"invalid {at}.id: Turnkey's own identifier cannot carry an operator commitment")
            point(commitment["hiding"], f"{at}.hiding")
            point(commitment["binding"], f"{at}.binding")
            commitments.append((identifier, bytes.fromhex(commitment["hiding"]), bytes.fromhex(commitment["binding"])))
        if len({c[0] for c in commitments}) != len(commitments):
            raise InvalidArgument(f"invalid {where}.operatorCommitments: an identifier is repeated")
        if not commitments:
            raise InvalidArgument(f"invalid {where}.operatorCommitments: at least one operator commitment is required")
        adaptor = None
        if request.get("adaptorPublicKey"):
            point(request["adaptorPublicKey"], f"{where}.adaptorPublicKey")
            adaptor = bytes.fromhex(request["adaptorPublicKey"])
        requests.append((request["derivation"], message, verifying_key, commitments, adaptor))
    seed, base = spark_wallet(ctx, params["signWith"])
    signatures = []
    for spec, message, verifying_key, commitments, adaptor in requests:
        secret = key_for(seed, base, spec)
        bound = message + verifying_key + b"".join(spark.scalar_bytes(i) + d + e for i, d, e in sorted(commitments))
        nonces = spark.frost_nonces(secret, bound + (adaptor or b""))
        share, hiding, binding = spark.frost_user_share(secret, message, verifying_key, commitments, nonces, adaptor)
        signatures.append({"signatureShare": share.hex(), "hiding": hiding.hex(), "binding": binding.hex()})
    return {"signatures": signatures}


def spark_prepare_transfer(ctx: Context, params: Json) -> Json:
    """Per leaf: the tweak old - new leaf key, Feldman-split among the operators; the new key
    ECIES-encrypted to the receiver and the sender's compact signature over (leaf id, transfer id,
    cipher); per operator a SendLeafKeyTweaks protobuf ECIES-encrypted to it; the package signed
    (DER ECDSA) with the identity key over the SDK's transfer signing payload."""
    transfer = params["transfer"]
    transfer_id = transfer["transferId"]
    uuid_of(transfer_id, "transfer.transferId")
    point(transfer["receiverPublicKey"], "transfer.receiverPublicKey")
    operators = transfer["operatorRecipients"]
    recipients(operators, transfer["threshold"], "transfer")
    for i, leaf in enumerate(transfer["leaves"]):
        uuid_of(leaf["leafId"], f"transfer.leaves[{i}].leafId")
        for side in ("oldLeafDerivation", "newLeafDerivation"):
            if derivation(leaf[side], f"transfer.leaves[{i}].{side}") != "signingLeaf":
                raise InvalidArgument(f"transfer.leaves[{i}].{side} must be a signingLeaf derivation")
        for field in ("refundSignature", "directRefundSignature", "directFromCpfpRefundSignature"):
            if leaf.get(field):
                hex_bytes(leaf[field], None, f"transfer.leaves[{i}].{field}")
    seed, base = spark_wallet(ctx, params["signWith"])
    identity = key_for(seed, base, {"identity": {}})
    receiver = bytes.fromhex(transfer["receiverPublicKey"])
    keys = [
        (key_for(seed, base, leaf["oldLeafDerivation"]), key_for(seed, base, leaf["newLeafDerivation"]))
        for leaf in transfer["leaves"]
    ]
    for i, (old_key, new_key) in enumerate(keys):
        if old_key == new_key:
            # a zero tweak: the receiver would get the key the sender keeps (docs/ledger/spark.yaml)
            raise InvalidArgument(
                f"invalid transfer.leaves[{i}].newLeafDerivation: it derives the same key as oldLeafDerivation; "
                "a transfer moves the leaf to a new key"
            )
    tweaks: list[list[bytes]] = [[] for _ in operators]
    new_keys = []
    for leaf, (old_key, new) in zip(transfer["leaves"], keys, strict=True):
        old = int.from_bytes(old_key, "big")
        new_keys.append({"leafId": leaf["newLeafDerivation"]["signingLeaf"]["leafId"], "publicKey": public_hex(new)})
        cipher = spark.ecies_encrypt(receiver, new, spark.scalar_bytes(draw_scalar(ctx)), ctx.source.bytes(16))
        payload = hashlib.sha256(leaf["leafId"].encode() + transfer_id.encode() + cipher).digest()
        signature = compact_ecdsa(identity, payload)
        shared = split_tweak(ctx, old - int.from_bytes(new, "big"), operators, int(transfer["threshold"]))
        tail = (
            length_delimited(4, cipher)
            + length_delimited(5, signature)
            + b"".join(
                length_delimited(number, bytes.fromhex(leaf[field]))
                for number, field in (
                    (6, "refundSignature"),
                    (7, "directRefundSignature"),
                    (8, "directFromCpfpRefundSignature"),
                )
                if leaf.get(field)
            )
        )
        for k, message in enumerate(shared):
            tweaks[k].append(spark.protobuf_string(1, leaf["leafId"]) + message + tail)
    packages = {
        operator["operatorId"]: sealed(ctx, operator, b"".join(length_delimited(1, t) for t in leaf_tweaks))
        for operator, leaf_tweaks in zip(operators, tweaks, strict=True)
    }
    digest = spark.signing_payload("transfer", transfer_id, packages)
    der = coincurve.PrivateKey(identity).sign(digest, hasher=None)
    return {
        "operatorPackages": [{"operatorId": k, "encryptedPackage": v.hex()} for k, v in packages.items()],
        "transferUserSignature": bytes(der).hex(),
        "newLeafPublicKeys": new_keys,
    }


def spark_claim_transfer(ctx: Context, params: Json) -> Json:
    """Per leaf: the sender's signature checked, the cipher opened with the identity key, the tweak
    received - new leaf key Feldman-split; per operator a ClaimLeafKeyTweaks protobuf ECIES-encrypted
    to it. The client signs the claim package itself (identity key, the SDK's claim signing payload)."""
    claim = params["claim"]
    transfer_id = claim["transferId"]
    uuid_of(transfer_id, "claim.transferId")
    point(claim["senderIdentityPublicKey"], "claim.senderIdentityPublicKey")
    operators = claim["operatorRecipients"]
    recipients(operators, claim["threshold"], "claim")
    leaves = []
    for i, leaf in enumerate(claim["leaves"]):
        uuid_of(leaf["leafId"], f"claim.leaves[{i}].leafId")
        signature = hex_bytes(leaf["senderSignature"], 64, f"claim.leaves[{i}].senderSignature")
        leaves.append((leaf["leafId"], hex_bytes(leaf["ciphertext"], None, f"claim.leaves[{i}].ciphertext"), signature))
    seed, base = spark_wallet(ctx, params["signWith"])
    identity = key_for(seed, base, {"identity": {}})
    sender = coincurve.PublicKey(bytes.fromhex(claim["senderIdentityPublicKey"]))
    tweaks: list[list[bytes]] = [[] for _ in operators]
    new_keys = []
    for i, (leaf_id, cipher, signature) in enumerate(leaves):
        payload = hashlib.sha256(leaf_id.encode() + transfer_id.encode() + cipher).digest()
        if not verify_compact(sender, signature, payload):
            raise InvalidArgument(
                f"invalid claim.leaves[{i}].senderSignature: not the sender identity key's signature "
                "over the leaf id, transfer id and ciphertext"
            )
        try:
            received = spark.ecies_decrypt(identity, cipher)
        except (ValueError, IndexError, InvalidTag):
            raise InvalidArgument(
                f"invalid claim.leaves[{i}].ciphertext: it does not open with the wallet's identity key"
            ) from None
        if len(received) != 32 or not 0 < int.from_bytes(received, "big") < spark.N:
            raise InvalidArgument(f"invalid claim.leaves[{i}].ciphertext: it does not hold a leaf key")
        new = key_for(seed, base, {"signingLeaf": {"leafId": leaf_id}})
        if received == new:
            raise InvalidArgument(
                f"invalid claim.leaves[{i}].ciphertext: it holds the key this wallet would claim the leaf with; "
                "a claim moves the leaf to a new key"
            )
        new_keys.append({"leafId": leaf_id, "publicKey": public_hex(new)})
        delta = int.from_bytes(received, "big") - int.from_bytes(new, "big")
        for k, message in enumerate(split_tweak(ctx, delta, operators, int(claim["threshold"]))):
            tweaks[k].append(spark.protobuf_string(1, leaf_id) + message)
    packages = [
        {
            "operatorId": operator["operatorId"],
            "encryptedPackage": sealed(ctx, operator, b"".join(length_delimited(1, t) for t in leaf_tweaks)).hex(),
        }
        for operator, leaf_tweaks in zip(operators, tweaks, strict=True)
    ]
    return {"operatorPackages": packages, "newLeafPublicKeys": new_keys}


def split_tweak(ctx: Context, tweak: int, operators: list[Json], threshold: int) -> list[bytes]:
    """Per operator (list order, share index its 1-based position): the protobuf fields 2
    (secret_share_tweak, a SecretShare) and 3 (pubkey_shares_tweak: operator id -> share·G)."""
    shares, proofs = spark.feldman_split(tweak % spark.N, threshold, len(operators), lambda: draw_scalar(ctx))
    public_shares = b"".join(
        length_delimited(
            3,
            spark.protobuf_string(1, operator["operatorId"])
            + length_delimited(2, bytes(spark.point_mul(share).format())),
        )
        for operator, share in zip(operators, shares, strict=True)
    )
    return [length_delimited(2, spark.secret_share_message(share, proofs)) + public_shares for share in shares]


def public_hex(secret: bytes) -> str:
    return bytes(coincurve.PrivateKey(secret).public_key.format()).hex()


def compact_ecdsa(secret: bytes, digest: bytes) -> bytes:
    recoverable = coincurve.PrivateKey(secret).sign_recoverable(digest, hasher=None)
    return bytes(recoverable[:64])


def verify_compact(key: coincurve.PublicKey, signature: bytes, digest: bytes) -> bool:
    from coincurve.ecdsa import cdata_to_der, deserialize_compact

    try:
        return bool(key.verify(cdata_to_der(deserialize_compact(signature)), digest, hasher=None))
    except ValueError:
        return False


def spark_prepare_lightning_receive(ctx: Context, params: Json) -> Json:
    """A fresh preimage, Feldman-split among the operators in list order (share index = 1-based
    position) and each share sent as the Spark SDK sends it to store_preimage_share_v2: a protobuf
    SecretShare ECIES-encrypted to the operator's key. Only the payment hash leaves in the clear."""
    package = params["lightningReceive"]
    operators = package["operatorRecipients"]
    recipients(operators, package["threshold"], "lightningReceive")
    spark_wallet(ctx, params["signWith"])
    preimage = draw_scalar(ctx)
    shares, proofs = spark.feldman_split(preimage, int(package["threshold"]), len(operators), lambda: draw_scalar(ctx))
    return {
        "operatorPackages": [
            {
                "operatorId": operator["operatorId"],
                "encryptedPackage": sealed(ctx, operator, spark.secret_share_message(share, proofs)).hex(),
            }
            for operator, share in zip(operators, shares, strict=True)
        ],
        "paymentHash": hashlib.sha256(spark.scalar_bytes(preimage)).hexdigest(),
    }


def draw_scalar(ctx: Context) -> int:
    """A nonzero secp256k1 scalar from the seeded source."""
    return 1 + ctx.source.randbelow(spark.N - 1)


def sealed(ctx: Context, operator: Json, plaintext: bytes) -> bytes:
    recipient = bytes.fromhex(operator["encryptionPublicKey"])
    return spark.ecies_encrypt(recipient, plaintext, spark.scalar_bytes(draw_scalar(ctx)), ctx.source.bytes(16))


def spark_wallet(ctx: Context, sign_with: str) -> tuple[bytes, str]:
    """The seed of the wallet holding the Spark account ``sign_with`` and the account's base path (the
    identity path without its last ``/0'``), or the refusal for an address that is not one."""
    found = longtail.address_format(ctx.org, sign_with, "signWith")
    if found not in SPARK_FORMATS:
        raise InvalidArgument(f"invalid signWith {sign_with}: a {found} address, not a Spark wallet account")
    for wallet in ctx.org.wallets.values():
        for account in wallet.accounts:
            if account.address == sign_with:
                if not account.path.endswith("/0'"):
                    raise InvalidArgument(
                        f"invalid signWith {sign_with}: a Spark identity account's path ends in /0', not {account.path}"
                    )
                return wallet.seed, account.path[: -len("/0'")]
    raise InvalidArgument(f"invalid signWith {sign_with}: not a wallet account")  # a private key's address


def key_for(seed: bytes, base: str, spec: Json) -> bytes:
    """The private key a derivation names, at the paths @turnkey/spark uses for it."""
    if "identity" in spec:
        path = f"{base}/0'"
    elif "signingLeaf" in spec:
        path = f"{base}/1'/{spark.leaf_child(spec['signingLeaf']['leafId'])}'"
    elif "deposit" in spec:
        path = f"{base}/2'"
    elif "staticDeposit" in spec:
        path = f"{base}/3'/{int(spec['staticDeposit']['index'])}'"
    else:
        raise Unimplemented("Spark htlcPreimage keys are not simulated yet: how the service derives them is not public")
    return derive(seed, "CURVE_SECP256K1", path).private_key


def derivation(spec: Json, where: str) -> str:
    given = [k for k in DERIVATIONS if k in spec]
    if len(given) != 1:
        raise InvalidArgument(f"invalid {where}: give exactly one of {', '.join(DERIVATIONS)}")
    if given[0] == "signingLeaf":
        uuid_of(spec["signingLeaf"]["leafId"], f"{where}.signingLeaf.leafId")
    return given[0]


def recipients(operators: list[Json], threshold: int, where: str) -> None:
    if not operators or not 1 <= int(threshold) <= len(operators):
        raise InvalidArgument(
            f"invalid {where}.threshold {threshold}: expected 1 to {len(operators)} operator recipients"
        )
    if len({operator["operatorId"] for operator in operators}) != len(operators):
        raise InvalidArgument(f"invalid {where}.operatorRecipients: an operatorId is repeated")
    for i, operator in enumerate(operators):
        operator_id(operator["operatorId"], f"{where}.operatorRecipients[{i}].operatorId")
        point(operator["encryptionPublicKey"], f"{where}.operatorRecipients[{i}].encryptionPublicKey")


def hex_bytes(value: str, length: int | None, where: str) -> bytes:
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise InvalidArgument(f"invalid {where}: not hex") from None
    if (length is not None and len(raw) != length) or not raw:
        raise InvalidArgument(f"invalid {where}: expected {length or 'some'} bytes, got {len(raw)}")
    return raw


def point(value: str, where: str) -> None:
    """A compressed secp256k1 point (33 bytes), as Spark's keys and commitments are."""
    import coincurve

    try:
        coincurve.PublicKey(hex_bytes(value, 33, where))
    except ValueError:
        raise InvalidArgument(f"invalid {where}: not a compressed secp256k1 point") from None


def operator_id(value: str, where: str) -> None:
    """A UUID (as the swagger says) or a Spark operator identifier, 64 hex digits (what @turnkey/spark sends:
    its operatorsToOperatorRecipients maps each operator's ``identifier``)."""
    if len(value) == 64:
        hex_bytes(value, 32, where)
    else:
        uuid_of(value, where)


def uuid_of(value: str, where: str) -> None:
    try:
        uuid.UUID(value)
    except ValueError:
        raise InvalidArgument(f"invalid {where}: not a UUID") from None
