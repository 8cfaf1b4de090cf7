"""Spark: the user's side of Spark's FROST signing for real, the package activities checked, then 501.

``spark_sign_frost`` signs with the key a derivation names under the Spark account ``signWith`` (paths as
@turnkey/spark uses them, simulator.crypto.spark) and returns the user's FROST signature share over the
operators' nonce commitments, with its own commitments; the nonces are derived deterministically from
the key and everything the request binds (the service's own nonce HMAC is not public), so a retry gets
the same share. ``spark_prepare_transfer``, ``spark_claim_transfer`` and
``spark_prepare_lightning_receive`` check their requests completely (hex lengths, curve points, UUIDs,
one derivation kind per key, thresholds against the operator list, a Spark ``signWith``) and then
answer 501: their per-operator packages are not built yet, and answering with made-up packages would
be a fake success.
"""

from __future__ import annotations

import uuid

from simulator.activities.context import Context
from simulator.activities.wallets import derive
from simulator.crypto import spark
from simulator.errors import InvalidArgument, Unimplemented
from simulator.scenario import longtail
from simulator.wire import Json

SPARK_FORMATS = spark.SPARK_FORMATS
NOT_SIMULATED = (
    "their per-operator packages are Spark protobuf messages ECIES-encrypted to the operators, and the simulator "
    "does not build them yet"
)
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
    transfer = params["transfer"]
    uuid_of(transfer["transferId"], "transfer.transferId")
    point(transfer["receiverPublicKey"], "transfer.receiverPublicKey")
    recipients(transfer["operatorRecipients"], transfer["threshold"], "transfer")
    for i, leaf in enumerate(transfer["leaves"]):
        uuid_of(leaf["leafId"], f"transfer.leaves[{i}].leafId")
        for side in ("oldLeafDerivation", "newLeafDerivation"):
            if derivation(leaf[side], f"transfer.leaves[{i}].{side}") != "signingLeaf":
                raise InvalidArgument(f"transfer.leaves[{i}].{side} must be a signingLeaf derivation")
    return refuse(ctx, params["signWith"], "transfer packages")


def spark_claim_transfer(ctx: Context, params: Json) -> Json:
    claim = params["claim"]
    uuid_of(claim["transferId"], "claim.transferId")
    point(claim["senderIdentityPublicKey"], "claim.senderIdentityPublicKey")
    recipients(claim["operatorRecipients"], claim["threshold"], "claim")
    for i, leaf in enumerate(claim["leaves"]):
        uuid_of(leaf["leafId"], f"claim.leaves[{i}].leafId")
        hex_bytes(leaf["senderSignature"], 64, f"claim.leaves[{i}].senderSignature")
        hex_bytes(leaf["ciphertext"], None, f"claim.leaves[{i}].ciphertext")
    return refuse(ctx, params["signWith"], "claim packages")


def spark_prepare_lightning_receive(ctx: Context, params: Json) -> Json:
    package = params["lightningReceive"]
    recipients(package["operatorRecipients"], package["threshold"], "lightningReceive")
    return refuse(ctx, params["signWith"], "Lightning receive packages")


def refuse(ctx: Context, sign_with: str, what: str) -> Json:
    spark_wallet(ctx, sign_with)
    raise Unimplemented(f"Spark {what} are not simulated yet: {NOT_SIMULATED}")


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
    for i, operator in enumerate(operators):
        uuid_of(operator["operatorId"], f"{where}.operatorRecipients[{i}].operatorId")
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


def uuid_of(value: str, where: str) -> None:
    try:
        uuid.UUID(value)
    except ValueError:
        raise InvalidArgument(f"invalid {where}: not a UUID") from None
