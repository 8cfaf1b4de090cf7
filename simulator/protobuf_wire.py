"""The protobuf wire format, read and written just far enough for Tron transactions and Spark's
operator packages.

A full protobuf runtime plus Tron's and Spark's generated classes would be a large dependency for
a dozen fields; the wire format itself is five rules (varints, tags, three field kinds), so this
module decodes it directly (refusing anything malformed with ``ProtoError``) and writes the
length-delimited fields those messages are made of.
"""

from __future__ import annotations

from dataclasses import dataclass

VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5
MAX_VARINT_BYTES = 10


class ProtoError(ValueError):
    pass


@dataclass(frozen=True)
class Field:
    number: int
    wire_type: int
    value: int | bytes


def read_varint(data: bytes, offset: int) -> tuple[int, int]:
    value, shift = 0, 0
    for position in range(offset, min(offset + MAX_VARINT_BYTES, len(data))):
        byte = data[position]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position + 1
        shift += 7
    raise ProtoError(f"truncated or overlong varint at byte {offset}")


def fields(data: bytes) -> list[Field]:
    """Every field of one message, in wire order."""
    out, offset = [], 0
    while offset < len(data):
        tag, offset = read_varint(data, offset)
        number, wire_type = tag >> 3, tag & 7
        if number == 0:
            raise ProtoError(f"field number 0 at byte {offset}")
        value, offset = read_value(data, offset, wire_type)
        out.append(Field(number, wire_type, value))
    return out


def read_value(data: bytes, offset: int, wire_type: int) -> tuple[int | bytes, int]:
    if wire_type == VARINT:
        return read_varint(data, offset)
    if wire_type in (FIXED64, FIXED32):
        size = 8 if wire_type == FIXED64 else 4
        if offset + size > len(data):
            raise ProtoError(f"truncated fixed-size field at byte {offset}")
        return int.from_bytes(data[offset : offset + size], "little"), offset + size
    if wire_type == LENGTH_DELIMITED:
        length, offset = read_varint(data, offset)
        if offset + length > len(data):
            raise ProtoError(f"a field of {length} bytes runs past the end at byte {offset}")
        return data[offset : offset + length], offset + length
    raise ProtoError(f"unsupported wire type {wire_type} (groups are not used by Tron)")


class Message:
    """One decoded message; accessors check each field has the kind its schema says."""

    def __init__(self, data: bytes) -> None:
        self.fields = fields(data)

    def blobs(self, number: int) -> list[bytes]:
        found = [f.value for f in self.fields if f.number == number]
        if any(not isinstance(value, bytes) for value in found):
            raise ProtoError(f"field {number} should be length-delimited")
        return [value for value in found if isinstance(value, bytes)]

    def blob(self, number: int) -> bytes:
        found = self.blobs(number)
        return found[-1] if found else b""  # proto3: the last occurrence wins

    def varint(self, number: int, signed: bool = True) -> int:
        found = [f.value for f in self.fields if f.number == number]
        if any(not isinstance(value, int) for value in found):
            raise ProtoError(f"field {number} should be a varint")
        value = int(found[-1]) if found else 0
        if signed and value >= 1 << 63:  # int64 / int32 are two's complement on the wire
            value -= 1 << 64
        return value

    def message(self, number: int) -> Message:
        return Message(self.blob(number))

    def messages(self, number: int) -> list[Message]:
        return [Message(value) for value in self.blobs(number)]


def encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def length_delimited(number: int, value: bytes) -> bytes:
    return encode_varint(number << 3 | LENGTH_DELIMITED) + encode_varint(len(value)) + value
