"""RLP for Ethereum transactions: strict decoding into typed fields, and encoding back.

Decoding is pyrlp's strict mode (canonical length prefixes, no trailing bytes); pyrlp pulls in
eth-utils (~120 ms to import), so it is imported on first use, off the simulator's start path.
Every error is a ``RlpFieldError`` naming the field, for the caller to turn into its API error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

Item: TypeAlias = "bytes | list[Item]"
Encodable: TypeAlias = "bytes | int | Sequence[Encodable]"

UINT64, UINT128, UINT256 = 64, 128, 256


class RlpFieldError(ValueError):
    """The bytes are not the RLP the field needs."""


def decode(data: bytes) -> Item:
    """The nested bytes/lists of one RLP item that spans all of ``data``."""
    import rlp  # type: ignore[import-untyped]
    from rlp.exceptions import DecodingError  # type: ignore[import-untyped]

    try:
        item: Item = rlp.decode(data, strict=True)
    except DecodingError as error:
        raise RlpFieldError(f"not canonical RLP ({error})") from None
    except RecursionError:  # pyrlp decodes nested lists recursively
        raise RlpFieldError("RLP lists nested too deeply") from None
    return item


def encode(item: Encodable) -> bytes:
    """RLP of nested bytes/lists, ints written as minimal big-endian byte strings.

    Written out here (the Yellow Paper's appendix B, a dozen lines) rather than through pyrlp, whose
    encoder infers a serializer for every item: ≈100 µs for a signed transaction against a few µs, on
    every sign_transaction. tests/chains/test_eth_rlp.py checks it against pyrlp byte for byte."""
    if isinstance(item, int):
        return _string(item.to_bytes((item.bit_length() + 7) // 8, "big"))
    if isinstance(item, bytes):
        return _string(item)
    payload = b"".join(encode(part) for part in item)
    return _prefix(0xC0, len(payload)) + payload


def extend_list(encoded: bytes, extra: Sequence[Encodable]) -> bytes:
    """``encode([*items, *extra])`` for the canonical encoding ``encoded`` of the list ``items`` (one the
    strict decoder read), without decoding it again: its payload is the items' encodings as they are."""
    head = encoded[0]
    if head < 0xC0:
        raise RlpFieldError("not an RLP list")
    payload = encoded[1 + max(head - 0xF7, 0) :] + b"".join(encode(part) for part in extra)
    return _prefix(0xC0, len(payload)) + payload


def _string(data: bytes) -> bytes:
    if len(data) == 1 and data[0] < 0x80:
        return data
    return _prefix(0x80, len(data)) + data


def _prefix(offset: int, length: int) -> bytes:
    if length <= 55:
        return bytes([offset + length])
    size = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([offset + 55 + len(size)]) + size


def as_list(item: Item, field: str) -> list[Item]:
    if not isinstance(item, list):
        raise RlpFieldError(f"{field} must be an RLP list, got a byte string")
    return item


def as_bytes(item: Item, field: str) -> bytes:
    if not isinstance(item, bytes):
        raise RlpFieldError(f"{field} must be an RLP byte string, got a list")
    return item


def as_uint(item: Item, field: str, bits: int) -> int:
    """A canonical unsigned integer: no leading zero bytes, at most ``bits`` wide."""
    raw = as_bytes(item, field)
    if raw[:1] == b"\x00":
        raise RlpFieldError(f"{field} is not a canonical integer (leading zero byte)")
    value = int.from_bytes(raw, "big")
    if value.bit_length() > bits:
        raise RlpFieldError(f"{field} does not fit in {bits} bits")
    return value


def as_address(item: Item, field: str, *, empty_allowed: bool) -> str:
    """``0x`` and 40 lowercase hex digits; ``""`` for an empty ``to`` (contract creation) where allowed."""
    raw = as_bytes(item, field)
    if not raw and empty_allowed:
        return ""
    if len(raw) != 20:
        expected = "20 bytes or empty (contract creation)" if empty_allowed else "20 bytes"
        raise RlpFieldError(f"{field} must be {expected}, got {len(raw)} bytes")
    return "0x" + raw.hex()


def as_hash(item: Item, field: str) -> str:
    raw = as_bytes(item, field)
    if len(raw) != 32:
        raise RlpFieldError(f"{field} must be 32 bytes, got {len(raw)}")
    return "0x" + raw.hex()
