"""EVM broadcast through the local chain stand-in: eth_send_transaction, eth_send_raw_transaction,
eth_undelegate_7702.

A single unsponsored call is built as the EIP-1559 transaction the service sends (the nonce and fees
given, else the stand-in's next nonce and default fees), signed for real with the ``from`` key, and
its hash is keccak256 of the signed bytes. Sponsored calls and multi-call batches go through the
Gas Station, whose delegate contract and EIP-712 ``BatchExecution`` layout are not public: the
stand-in records them (calls, sponsorship, gasStationNonce) and gives the relayed transaction a
seeded hash, never signed bytes. An undelegation is a real type-4 transaction delegating the account
to the zero address, its authorization signed by the account itself.
"""

from __future__ import annotations

import json
from typing import Any

import coincurve

from simulator.chains import eth_rlp, ethereum, invalid
from simulator.chains.eth_rlp import Encodable, RlpFieldError
from simulator.chains.ethereum import EthereumTransaction
from simulator.crypto.hashing import keccak256
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.model.signatures import ecdsa, signing_key
from simulator.model.signer_views import nested, signer_context, with_sender_and_call
from simulator.standins import chain as chain_standin
from simulator.standins import longtail
from simulator.standins.sent_transactions import keep, new_sent
from simulator.wire import Json, decimal_digits

DEFAULT_PRIORITY_FEE = 1_500_000_000  # 1.5 gwei: the stand-in's estimate (no fee market is simulated)
DEFAULT_MAX_FEE = 30_000_000_000  # 30 gwei
TRANSFER_GAS, CALL_MARGIN_GAS, UNDELEGATION_GAS = 21_000, 60_000, 60_000  # no EVM runs: intrinsic gas plus a margin
ZERO_ADDRESS = "0x" + "00" * 20
SECP256K1_ORDER_HALF = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0


# eth_send_transaction ---------------------------------------------------------------------------------
def eth_send_transaction(ctx: Context, params: Json) -> Json:
    sender = evm_sender(ctx, params)
    calls = calls_of(params)
    if params.get("sponsor") or len(calls) > 1:
        return {"sendTransactionStatusId": relayed(ctx, params, sender, calls)}
    unsigned, nonce = build_call(ctx, params, sender, calls[0])
    curve, secret = signing_key(ctx, sender)
    signed = bytes.fromhex(unsigned.sign(curve, secret))
    fields = unsigned.fields
    sent = new_sent(ctx, params, sender, "0x" + keccak256(signed).hex(), nonce=nonce, signed=signed.hex())
    sent.to, sent.value = fields["to"], fields["value"]
    sent.fee = fields["gas"] * fields["max_fee_per_gas"]
    sent.transfers = (
        [{"from": sender.lower(), "to": fields["to"], "amount": fields["value"]}] if fields["value"] else []
    )
    chain_standin.use_nonce(ctx.store, params["caip2"], sender, nonce)
    return {"sendTransactionStatusId": keep(ctx, sent)}


def eth_send_policy_context(ctx: Context, params: Json) -> Json:
    """``eth.tx`` of the transaction a single call becomes; a batch shows no ``eth.tx`` (policies read
    ``activity.params.calls``), so a recipient allow-list on ``eth.tx`` never lets a batch through."""
    sender = evm_sender(ctx, params)
    calls = calls_of(params)
    signer = signer_context(ctx, sender)
    if len(calls) > 1:
        return signer
    unsigned, _ = build_call(ctx, params, sender, calls[0], sponsored=bool(params.get("sponsor")))
    viewed = with_sender_and_call(ctx, unsigned, sender)
    return {**nested(viewed.namespace, viewed.view), **signer}


def calls_of(params: Json) -> list[Json]:
    calls: list[Json] = params.get("calls", [params])
    if not 1 <= len(calls) <= 50:
        raise InvalidArgument(f"invalid calls: between 1 and 50 entries are needed, got {len(calls)}")
    return [
        {"to": address(c["to"], "to"), "value": amount(c.get("value"), "value"), "data": data(c.get("data"))}
        for c in calls
    ]


def build_call(
    ctx: Context, params: Json, sender: str, call: Json, sponsored: bool = False
) -> tuple[EthereumTransaction, int]:
    nonce = optional_amount(params.get("nonce"), "nonce")
    if nonce is None:
        nonce = chain_standin.next_nonce(ctx.store, params["caip2"], sender)
    fees = fee_fields(params)
    if sponsored:  # docs: features/transaction-management.mdx, "Policy engine": fee fields are 0 when sponsored
        fees = {name: 0 for name in fees}
    gas = optional_amount(params.get("gasLimit"), "gasLimit") or estimate_gas(call["data"])
    unsigned = ethereum.unsigned_eip1559(
        chain_id=chain_id(params["caip2"]),
        nonce=nonce,
        gas=gas,
        to=call["to"],
        value=call["value"],
        data=call["data"],
        **fees,
    )
    return ethereum.parse(unsigned), nonce


def relayed(ctx: Context, params: Json, sender: str, calls: list[Json]) -> str:
    """A Gas Station transaction: recorded as asked, with a seeded hash (its bytes are not built)."""
    caip2, sponsored = params["caip2"], bool(params.get("sponsor"))
    station = optional_amount(params.get("gasStationNonce"), "gasStationNonce")
    station = chain_standin.next_nonce(ctx.store, caip2, sender, True) if station is None else station
    nonce = None
    if not sponsored:  # the account sends the batch itself: its own nonce moves too
        nonce = optional_amount(params.get("nonce"), "nonce")
        nonce = chain_standin.next_nonce(ctx.store, caip2, sender) if nonce is None else nonce
        chain_standin.use_nonce(ctx.store, caip2, sender, nonce)
    chain_standin.use_nonce(ctx.store, caip2, sender, station, station=True)
    sent = new_sent(ctx, params, sender, longtail.tx_hash(ctx.source, caip2), nonce=nonce)
    sent.sponsored, sent.details["gasStationNonce"] = sponsored, station
    sent.to = calls[0]["to"] if len(calls) == 1 else sender.lower()
    sent.value = sum(c["value"] for c in calls)
    sent.fee = sum(estimate_gas(c["data"]) for c in calls) * fee_fields(params)["max_fee_per_gas"]
    sent.transfers = [{"from": sender.lower(), "to": c["to"], "amount": c["value"]} for c in calls if c["value"]]
    return keep(ctx, sent)


# eth_send_raw_transaction -------------------------------------------------------------------------------
def eth_send_raw_transaction(ctx: Context, params: Json) -> Json:
    raw = hex_bytes(params["signedTransaction"], "signedTransaction")
    unsigned, sender = recover(raw)
    wanted = chain_id(params["caip2"])
    if unsigned.chain_id is not None and unsigned.chain_id != wanted:
        raise InvalidArgument(
            f"invalid transaction: it is signed for chain id {unsigned.chain_id}, but caip2 is {params['caip2']}",
            error_code="INVALID_TRANSACTION",
        )
    nonce, expected = unsigned.fields["nonce"], chain_standin.next_nonce(ctx.store, params["caip2"], sender)
    if nonce < expected:
        raise InvalidArgument(
            f"nonce too low: {sender} has used nonces below {expected} on {params['caip2']}, got {nonce}"
        )
    fields = unsigned.fields
    sent = new_sent(ctx, params, sender, "0x" + keccak256(raw).hex(), nonce=nonce, signed=raw.hex())
    sent.to, sent.value = fields["to"], fields["value"]
    sent.fee = fields["gas"] * fields.get("max_fee_per_gas", fields.get("gas_price", 0))
    sent.transfers = [{"from": sender, "to": fields["to"], "amount": fields["value"]}] if fields["value"] else []
    chain_standin.use_nonce(ctx.store, params["caip2"], sender, nonce)
    keep(ctx, sent)
    return {"transactionHash": sent.chain_id}


def recover(raw: bytes) -> tuple[EthereumTransaction, str]:
    """The unsigned transaction inside a signed one, and the address that signed it."""
    try:
        unsigned_raw, recovery_id, r, s = split_signature(raw)
    except RlpFieldError as error:
        raise invalid(str(error)) from None
    if raw[0] == 3:
        raise InvalidArgument(
            "invalid transaction: an EIP-4844 transaction is broadcast in its network form with blobs, which the "
            "simulator's chain stand-in does not take",
            error_code="INVALID_TRANSACTION",
        )
    unsigned = ethereum.parse(unsigned_raw.hex())
    if not (r > 0 and 0 < s <= SECP256K1_ORDER_HALF) or recovery_id not in (0, 1):
        raise invalid("the signature is not a valid low-S secp256k1 signature (EIP-2)")
    signature = r.to_bytes(32, "big") + s.to_bytes(32, "big") + bytes([recovery_id])
    try:
        public = coincurve.PublicKey.from_signature_and_message(signature, unsigned.signing_digest, hasher=None)
    except ValueError:
        raise invalid("no public key recovers from the signature") from None
    return unsigned, "0x" + keccak256(public.format(compressed=False)[1:])[-20:].hex()


def split_signature(raw: bytes) -> tuple[bytes, int, int, int]:
    typed = raw[0] < 0xC0
    items = eth_rlp.as_list(eth_rlp.decode(raw[1:] if typed else raw), "transaction")
    if len(items) < 4:
        raise RlpFieldError("a signed transaction ends with its signature (v or yParity, r, s)")
    v, r, s = (eth_rlp.as_uint(item, name, 256) for item, name in zip(items[-3:], ("v", "r", "s")))
    body: list[Encodable] = list(items[:-3])
    if typed:
        return raw[:1] + eth_rlp.encode(body), v, r, s
    if v in (27, 28):
        return eth_rlp.encode(body), v - 27, r, s
    return eth_rlp.encode([*body, (v - 35) // 2, b"", b""]), (v - 35) % 2, r, s


# eth_undelegate_7702 ----------------------------------------------------------------------------------
def eth_undelegate_7702(ctx: Context, params: Json) -> Json:
    sender = evm_sender(ctx, params)
    caip2, chain = params["caip2"], chain_id(params["caip2"])
    nonce = optional_amount(params.get("nonce"), "nonce")
    nonce = chain_standin.next_nonce(ctx.store, caip2, sender) if nonce is None else nonce
    curve, secret = signing_key(ctx, sender)
    # the sender is its own authority: its nonce moves past the transaction's before the authorization is checked
    authorization = json.dumps({"address": ZERO_ADDRESS, "chainId": chain, "nonce": nonce + 1})
    signature = ecdsa(curve, secret, authorization_digest(authorization))
    fees = fee_fields(params)
    gas = optional_amount(params.get("gasLimit"), "gasLimit") or UNDELEGATION_GAS
    auth_item: list[Encodable] = [
        chain,
        bytes(20),
        nonce + 1,
        int(signature["v"], 16),
        int(signature["r"], 16),
        int(signature["s"], 16),
    ]
    body: list[Encodable] = [
        chain,
        nonce,
        fees["max_priority_fee_per_gas"],
        fees["max_fee_per_gas"],
        gas,
        bytes.fromhex(sender[2:]),
        0,
        b"",
        [],
        [auth_item],
    ]
    signed = bytes.fromhex(ethereum.parse((b"\x04" + eth_rlp.encode(body)).hex()).sign(curve, secret))
    sent = new_sent(ctx, params, sender, "0x" + keccak256(signed).hex(), nonce=nonce, signed=signed.hex())
    sent.to, sent.fee = sender.lower(), gas * fees["max_fee_per_gas"]
    chain_standin.use_nonce(ctx.store, caip2, sender, nonce + 1)
    return {"sendTransactionStatusId": keep(ctx, sent)}


def authorization_digest(payload: str) -> bytes:
    from simulator.chains.eth_authorization import authorization_digest as digest

    return digest(payload)


# shared -------------------------------------------------------------------------------------------------
def evm_sender(ctx: Context, params: Json) -> str:
    longtail.signer_on(ctx.org, params["from"], params["caip2"], "from")
    return str(params["from"])


def chain_id(caip2: str) -> int:
    return int(caip2.split(":", 1)[1])


def fee_fields(params: Json) -> dict[str, int]:
    priority = optional_amount(params.get("maxPriorityFeePerGas"), "maxPriorityFeePerGas")
    maximum = optional_amount(params.get("maxFeePerGas"), "maxFeePerGas")
    priority = DEFAULT_PRIORITY_FEE if priority is None else priority
    maximum = max(DEFAULT_MAX_FEE, priority) if maximum is None else maximum
    if priority > maximum:
        raise InvalidArgument(f"invalid fees: maxPriorityFeePerGas {priority} is above maxFeePerGas {maximum}")
    return {"max_priority_fee_per_gas": priority, "max_fee_per_gas": maximum}


def estimate_gas(calldata: bytes) -> int:
    if not calldata:
        return TRANSFER_GAS
    return TRANSFER_GAS + sum(16 if byte else 4 for byte in calldata) + CALL_MARGIN_GAS


def optional_amount(value: Any, field: str) -> int | None:
    return None if value in (None, "") else amount(value, field)


def amount(value: Any, field: str) -> int:
    """A decimal integer string (wei, gas, a nonce); empty or absent is 0."""
    text = "0" if value in (None, "") else str(value)
    if not decimal_digits(text):
        raise InvalidArgument(f"invalid {field} {value!r}: expected a non-negative decimal integer string")
    number = int(text)
    if number >= 2**256:
        raise InvalidArgument(f"invalid {field} {value!r}: does not fit in 256 bits")
    return number


def address(value: str, field: str) -> str:
    text = value[2:] if value[:2].lower() == "0x" else ""
    if len(text) != 40 or not all(c in "0123456789abcdefABCDEF" for c in text):
        raise InvalidArgument(f"invalid {field} {value!r}: expected a 0x-prefixed 20-byte hex address")
    return "0x" + text.lower()


def data(value: str | None) -> bytes:
    return hex_bytes(value or "", "data", allow_empty=True)


def hex_bytes(value: str, field: str, allow_empty: bool = False) -> bytes:
    text = value[2:] if value[:2].lower() == "0x" else value
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise InvalidArgument(f"invalid {field}: expected hex, got {value[:80]!r}") from None
    if (not raw and not allow_empty) or any(c.isspace() for c in text):
        raise InvalidArgument(f"invalid {field}: expected non-empty hex without spaces")
    return raw
