"""sol_send_transaction through the local chain stand-in.

V2 sends the full wire transaction as hex with ``signWiths`` (1 to 16 signers, in order); V1 sends
it as base64 with one ``signWith``. A ``recentBlockhash`` replaces the message's blockhash before
signing, as the service uses it as given. Each signer's Ed25519 signature goes into its slot; the
transaction's id on chain is its first signature. Unsponsored, every required signature must be
made here (a transaction missing one is never accepted by a validator). Sponsored, the fee payer
is Turnkey's Gas Station, whose key the simulator does not have: its slot stays empty and the
recorded signature is a seeded one.
"""

from __future__ import annotations

import base64
import binascii

import base58

from simulator.activities import sponsorship
from simulator.chains import invalid, solana, unsigned_bytes
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.model.signatures import signing_key
from simulator.model.signer_views import nested, signer_context
from simulator.standins import longtail
from simulator.standins.sent_transactions import keep, new_sent
from simulator.wire import Json

LAMPORTS_PER_SIGNATURE = 5_000
BLOCKHASH_SIZE = 32


def sol_send_transaction(ctx: Context, params: Json) -> Json:
    signers = signers_of(ctx, params)
    wire = unsigned_hex(params)
    for signer in signers:
        curve, secret = signing_key(ctx, signer)
        wire = solana.parse(wire).sign(curve, secret)
    signed = bytes.fromhex(wire)
    parsed = solana.parse(wire)
    made = slots(signed, len(parsed.signers))
    first, sponsored = made[0], bool(params.get("sponsor"))
    if sponsored:
        sponsorship.check_solana(parsed, signers)
    missing = [key for key, slot in zip(parsed.signers, made) if not any(slot)]
    if missing and not (sponsored and missing == [parsed.signers[0]]):
        raise InvalidArgument(
            f"invalid transaction: required signers {', '.join(missing)} are not among the addresses signed with "
            f"({', '.join(signers)}); every required signer must be listed",
            error_code="INVALID_TRANSACTION",
        )
    signature = base58.b58encode(first).decode() if any(first) else longtail.tx_hash(ctx.source, "solana:")
    sent = new_sent(ctx, params, parsed.signers[0], signature, signed=wire)
    sent.sponsored = sponsored
    sent.fee = LAMPORTS_PER_SIGNATURE * len(parsed.signers)
    sent.signers = signer_flags(parsed.view, parsed.signers)
    sent.transfers = [dict(t) for t in parsed.view["transfers"]]
    sent.details.update(signWiths=list(signers), recentBlockhash=parsed.view["recent_blockhash"])
    return {"sendTransactionStatusId": keep(ctx, sent)}


def sol_send_policy_context(ctx: Context, params: Json) -> Json:
    signers = signers_of(ctx, params)
    parsed = solana.parse(unsigned_hex(params))
    return {**nested(parsed.namespace, parsed.view), **signer_context(ctx, signers[0])}


def signers_of(ctx: Context, params: Json) -> list[str]:
    signers: list[str] = params["signWiths"] if "signWiths" in params else [params["signWith"]]
    field = "signWiths" if "signWiths" in params else "signWith"
    if not 1 <= len(signers) <= 16:
        raise InvalidArgument(f"invalid signWiths: between 1 and 16 signers are needed, got {len(signers)}")
    for signer in signers:
        longtail.signer_on(ctx.org, signer, longtail.canonical_caip2(params["caip2"]), field)
    return signers


def unsigned_hex(params: Json) -> str:
    """The wire transaction as hex, with the requested blockhash in place."""
    if "signWiths" in params:
        raw = unsigned_bytes(params["unsignedTransaction"], "the serialized transaction")
    else:
        try:
            raw = base64.b64decode(params["unsignedTransaction"], validate=True)
        except (binascii.Error, ValueError):
            raise invalid("unsignedTransaction must be the base64 of the serialized transaction") from None
    parsed = solana.parse(raw.hex())
    wanted = params.get("recentBlockhash")
    if wanted:
        raw = with_blockhash(raw, len(parsed.signers), wanted)
    return raw.hex()


def with_blockhash(raw: bytes, signatures: int, blockhash: str) -> bytes:
    try:
        replacement = base58.b58decode(blockhash)
    except ValueError:
        replacement = b""
    if len(replacement) != BLOCKHASH_SIZE:
        raise InvalidArgument(f"invalid recentBlockhash {blockhash!r}: expected a base58 32-byte hash")
    position = solana.signature_section_size(signatures)
    position += (1 if raw[position] & 0x80 else 0) + 3  # the v0 version byte, then the 3-byte header
    count, size = compact_u16(raw, position)
    position += size + 32 * count
    return raw[:position] + replacement + raw[position + BLOCKHASH_SIZE :]


def compact_u16(raw: bytes, position: int) -> tuple[int, int]:
    value = 0
    for index in range(3):
        byte = raw[position + index]
        value |= (byte & 0x7F) << (7 * index)
        if not byte & 0x80:
            return value, index + 1
    return value, 3


def slots(signed: bytes, count: int) -> list[bytes]:
    start = solana.signature_section_size(count) - solana.SIGNATURE_SIZE * count
    return [signed[start + i * solana.SIGNATURE_SIZE : start + (i + 1) * solana.SIGNATURE_SIZE] for i in range(count)]


def signer_flags(view: Json, signers: tuple[str, ...]) -> list[Json]:
    writable = {a["account_key"]: a["writable"] for ix in view["instructions"] for a in ix["accounts"]}
    return [{"address": key, "writable": bool(writable.get(key, index == 0))} for index, key in enumerate(signers)]
