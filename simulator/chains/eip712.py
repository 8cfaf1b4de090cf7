"""EIP-712 typed data (``PAYLOAD_ENCODING_EIP712``): the digest to sign and ``eth.eip_712`` for policies.

The payload is the typed data serialized, not hashed: viem's ``serializeTypedData`` JSON (what
@turnkey/viem sends; integers as decimal strings or numbers, ``domain`` ``{}`` when ``types`` has no
``EIP712Domain``) or ethers' ``TypedDataEncoder.getPayload`` (always with ``EIP712Domain``).
Integers are accepted as JSON numbers, decimal strings or ``0x`` hex strings; ``bytes`` values
as ``0x`` hex. Without an ``EIP712Domain`` type the domain's type is derived from the fields
the domain has, in the standard order, as viem and eth-account do. The digest is
``keccak256(0x19 0x01 ‖ domainSeparator ‖ hashStruct(message))`` (no message hash when the
primary type is ``EIP712Domain``). Implemented here rather than with eth-account's
``encode_typed_data`` so that this shape of input is accepted exactly and every refusal names
the offending field; eth-account and viem check the digests in the tests.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from simulator.crypto.hashing import keccak256
from simulator.errors import InvalidArgument

DOMAIN = "EIP712Domain"
DOMAIN_FIELDS: tuple[tuple[str, str], ...] = (("name", "string"), ("version", "string"), ("chainId", "uint256"))
DOMAIN_FIELDS += (("verifyingContract", "address"), ("salt", "bytes32"))
DOMAIN_VIEW = {"name": "name", "version": "version", "chainId": "chain_id", "verifyingContract": "verifying_contract"}
# ASCII digits, few enough for int() (it refuses 4,300+ and reads other scripts' digits); \Z: no final newline
INTEGER = re.compile(r"^(u?)int([0-9]{0,3})\Z")
FIXED_BYTES = re.compile(r"^bytes([0-9]{1,2})\Z")
ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
HEX = re.compile(r"^0x(?:[0-9a-fA-F]{2})*$")
DECIMAL = re.compile(r"^-?[0-9]+\Z")
MAX_DIGITS = 80  # 2^256 has 78 decimal digits; longer strings are refused before int() converts them
HEX_NUMBER = re.compile(r"^0x[0-9a-fA-F]{1,64}\Z")
ARRAY_SUFFIX = re.compile(r"^(.*)\[([0-9]{0,6})\]\Z")
Fields = list[tuple[str, str]]


@dataclass(frozen=True)
class TypedData:
    """One typed-data document, understood: its digest and its ``eth.eip_712`` view."""

    digest: bytes
    view: dict[str, Any]


def typed_data_digest(text: str) -> bytes:
    """The 32-byte EIP-712 digest the signer signs."""
    return analyse(text).digest


def typed_data_view(text: str) -> dict[str, Any]:
    """``eth.eip_712``: ``primary_type``, ``domain {name, version, chain_id, verifying_contract}``
    and ``message``, integers as ints and hex values (addresses, bytes) lowercased."""
    return analyse(text).view


def analyse(text: str) -> TypedData:
    try:
        return _analyse(_load(text))
    except RecursionError:  # structs and arrays are hashed recursively
        raise bad("the document is nested too deeply") from None


def _analyse(document: dict[str, Any]) -> TypedData:
    types = _struct_types(document.get("types"))
    primary = document.get("primaryType")
    if not isinstance(primary, str) or not primary:
        raise bad("primaryType is missing")
    domain_value = document.get("domain", {})
    if not isinstance(domain_value, dict):
        raise bad("domain must be an object")
    if DOMAIN not in types:
        types[DOMAIN] = [(name, kind) for name, kind in DOMAIN_FIELDS if name in domain_value]
    if primary not in types:
        raise bad(f"primaryType {primary!r} is not one of the types ({', '.join(sorted(types))})")
    encoder = Encoder(types)
    domain_hash, domain = encoder.hash_struct(DOMAIN, domain_value, "domain")
    message_hash, message = b"", dict[str, Any]()
    if primary != DOMAIN:
        message_hash, message = encoder.hash_struct(primary, document.get("message"), "message")
    view = {
        "primary_type": primary,
        "domain": {DOMAIN_VIEW[name]: value for name, value in domain.items() if name in DOMAIN_VIEW},
        "message": message,
    }
    return TypedData(keccak256(b"\x19\x01" + domain_hash + message_hash), view)


def _load(text: str) -> dict[str, Any]:
    try:
        document = json.loads(text)
    except ValueError:
        raise bad("the payload is not JSON") from None
    if not isinstance(document, dict):
        raise bad("the payload must be a JSON object with types, primaryType, domain and message")
    return document


def _struct_types(value: Any) -> dict[str, Fields]:
    if not isinstance(value, dict):
        raise bad("types must be an object mapping each struct name to its fields")
    types: dict[str, Fields] = {}
    for name, fields in value.items():
        if not isinstance(fields, list) or not all(_is_field(field) for field in fields):
            raise bad(f"types.{name} must be a list of {{name, type}} objects")
        if atomic_kind(name) is not None:
            raise bad(f"types.{name} redefines a built-in type")
        types[name] = [(field["name"], field["type"]) for field in fields]
    for name, fields in types.items():
        for field_name, kind in fields:
            base = base_type(kind)
            if base not in types and atomic_kind(base) is None:
                raise bad(f"types.{name}.{field_name} has unknown type {kind!r}")
    return types


def _is_field(field: Any) -> bool:
    return isinstance(field, dict) and isinstance(field.get("name"), str) and isinstance(field.get("type"), str)


def base_type(kind: str) -> str:
    while (match := ARRAY_SUFFIX.match(kind)) is not None:
        kind = match.group(1)
    return kind


def atomic_kind(kind: str) -> str | None:
    """``"uint"``/``"int"``/``"bytesN"``/... for a built-in type, else None."""
    if kind in ("address", "bool", "string", "bytes"):
        return kind
    if (integer := INTEGER.match(kind)) is not None:
        width = int(integer.group(2) or 256)
        return integer.group(1) + "int" if 8 <= width <= 256 and width % 8 == 0 else None
    fixed = FIXED_BYTES.match(kind)
    return "bytesN" if fixed is not None and 1 <= int(fixed.group(1)) <= 32 else None


class Encoder:
    """``hashStruct`` over one set of struct types, with the normalized value for policies."""

    def __init__(self, types: dict[str, Fields]) -> None:
        self.types = types

    def type_hash(self, name: str) -> bytes:
        referenced = sorted(self._dependencies(name, set()) - {name})
        encoded = "".join(self._type_string(part) for part in [name, *referenced])
        return keccak256(encoded.encode())

    def _type_string(self, name: str) -> str:
        return name + "(" + ",".join(f"{kind} {field}" for field, kind in self.types[name]) + ")"

    def _dependencies(self, name: str, found: set[str]) -> set[str]:
        found.add(name)
        for _, kind in self.types[name]:
            base = base_type(kind)
            if base in self.types and base not in found:
                self._dependencies(base, found)
        return found

    def hash_struct(self, name: str, value: Any, path: str) -> tuple[bytes, dict[str, Any]]:
        if not isinstance(value, dict):
            raise bad(f"{path} must be an object (a {name})")
        words, normalized = [self.type_hash(name)], {}
        for field, kind in self.types[name]:
            if field not in value:
                raise bad(f"{path}.{field} is missing (a {kind})")
            word, normalized[field] = self.encode_field(kind, value[field], f"{path}.{field}")
            words.append(word)
        return keccak256(b"".join(words)), normalized

    def encode_field(self, kind: str, value: Any, path: str) -> tuple[bytes, Any]:
        array = ARRAY_SUFFIX.match(kind)
        if array is not None:
            return self._encode_array(array.group(1), array.group(2), value, path)
        if kind in self.types:
            return self.hash_struct(kind, value, path)
        return encode_atomic(kind, value, path)

    def _encode_array(self, element: str, length: str, value: Any, path: str) -> tuple[bytes, list[Any]]:
        if not isinstance(value, list):
            raise bad(f"{path} must be an array of {element}")
        if length and len(value) != int(length):
            raise bad(f"{path} must have exactly {length} elements, got {len(value)}")
        parts = [self.encode_field(element, item, f"{path}[{n}]") for n, item in enumerate(value)]
        return keccak256(b"".join(word for word, _ in parts)), [item for _, item in parts]


def encode_atomic(kind: str, value: Any, path: str) -> tuple[bytes, Any]:
    """The 32-byte encoding of a built-in value, and the value as ``eth.eip_712`` shows it."""
    family = atomic_kind(kind)
    if family in ("uint", "int"):
        number = integer_value(kind, value, path)
        return number.to_bytes(32, "big", signed=True) if number < 0 else number.to_bytes(32, "big"), number
    if family == "bool" and isinstance(value, bool):
        return int(value).to_bytes(32, "big"), value
    if family == "string" and isinstance(value, str):
        return keccak256(value.encode()), value
    if family == "address" and isinstance(value, str) and ADDRESS.match(value):
        return bytes.fromhex(value[2:]).rjust(32, b"\x00"), value.lower()
    if family == "bytes" and isinstance(value, str) and HEX.match(value):
        return keccak256(bytes.fromhex(value[2:])), value.lower()
    if family == "bytesN" and isinstance(value, str) and HEX.match(value) and len(value) == 2 + 2 * int(kind[5:]):
        return bytes.fromhex(value[2:]).ljust(32, b"\x00"), value.lower()
    raise bad(f"{path} is not a valid {kind}: {json.dumps(value)[:80]}")


def read_integer(value: Any) -> int | None:
    """A JSON number, a decimal string or a 0x hex string, as viem and ethers send integers; else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and len(value) <= MAX_DIGITS and DECIMAL.match(value):
        return int(value)
    if isinstance(value, str) and HEX_NUMBER.match(value):
        return int(value, 16)
    return None


def integer_value(kind: str, value: Any, path: str) -> int:
    number = read_integer(value)
    if number is None:
        raise bad(f"{path} is not a valid {kind}: {json.dumps(value)[:80]} (an integer, decimal or 0x hex string)")
    width = int(kind[kind.index("int") + 3 :] or 256)
    low, high = (0, 2**width - 1) if kind.startswith("u") else (-(2 ** (width - 1)), 2 ** (width - 1) - 1)
    if not low <= number <= high:
        raise bad(f"{path} = {json.dumps(value)[:80]} is out of range for {kind}")
    return number


def bad(reason: str) -> InvalidArgument:
    return InvalidArgument(f"invalid payload encoding: EIP-712 typed data: {reason}")
