"""Spark: the requests are checked completely, then refused with 501, because no organization of the
simulator can hold a Spark wallet account (ADDRESS_FORMAT_SPARK_* addresses are not derived yet), and
the operator packages' plaintext (Spark's protobuf messages) and Turnkey's FROST nonce derivation are
not public. Answering with made-up packages or shares would be a fake success.

What is checked first, so that a test learns about a malformed request before the 501: every hex
field's length and curve point, UUIDs, one derivation kind per key, thresholds against the operator
list, and that ``signWith`` is an address of the organization at all.
"""

from __future__ import annotations

import uuid

from simulator.errors import InvalidArgument, Unimplemented
from simulator.handling import provider_standin
from simulator.handling.context import Context
from simulator.wire import Json

SPARK_FORMATS = ("ADDRESS_FORMAT_SPARK_MAINNET", "ADDRESS_FORMAT_SPARK_REGTEST")
DERIVATIONS = ("identity", "signingLeaf", "deposit", "staticDeposit", "htlcPreimage")


def spark_sign_frost(ctx: Context, params: Json) -> Json:
    for i, request in enumerate(params["signatures"]):
        where = f"signatures[{i}]"
        derivation(request["derivation"], f"{where}.derivation")
        hex_bytes(request["message"], 32, f"{where}.message")
        point(request["verifyingKey"], f"{where}.verifyingKey")
        for j, commitment in enumerate(request["operatorCommitments"]):
            hex_bytes(commitment["id"], 32, f"{where}.operatorCommitments[{j}].id")
            point(commitment["hiding"], f"{where}.operatorCommitments[{j}].hiding")
            point(commitment["binding"], f"{where}.operatorCommitments[{j}].binding")
        if request.get("adaptorPublicKey"):
            point(request["adaptorPublicKey"], f"{where}.adaptorPublicKey")
    return refuse(ctx, params["signWith"], "FROST signing")


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
    found = provider_standin.address_format(ctx.org, sign_with, "signWith")
    if found not in SPARK_FORMATS:
        raise InvalidArgument(f"invalid signWith {sign_with}: a {found} address, not a Spark wallet account")
    raise Unimplemented(f"Spark {what} are not simulated yet")  # unreachable until Spark accounts exist


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
