"""Contract calls decoded through a stored smart-contract interface (an Ethereum ABI JSON).

What ``eth.tx`` gains once an ABI is stored for ``to`` (docs, "Smart contract interfaces"):
``function_name``, ``function_signature`` (the 4-byte selector, ``0x`` and lowercase hex) and
``contract_call_args``, a map from argument name to value: integers as ints, addresses and bytes
as lowercase ``0x`` hex, tuples (structs) as lists read by position (``call[0]``: the docs' batch
examples; named access such as ``call['target']`` is an evaluation error, ethereum.mdx), arrays as lists. An unnamed argument is
keyed by its position (``'0'``, ``'1'``, ...). The ABI decoding is eth-abi's strict decoder,
imported on first use (it brings eth-utils, ~120 ms).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from simulator.crypto.hashing import keccak256
from simulator.errors import InvalidArgument

SELECTOR_BYTES = 4
Param = dict[str, Any]


def decode_call(data: bytes | str, abi_json: str) -> dict[str, Any]:
    """``{function_name, function_signature, contract_call_args}`` of calldata, or ``{}`` when its
    selector names no function of the ABI; ``contract_call_args`` is left out when the arguments
    do not decode as that function's inputs."""
    calldata = data if isinstance(data, bytes) else _hex(data)
    function = functions(abi_json).get(calldata[:SELECTOR_BYTES]) if len(calldata) >= SELECTOR_BYTES else None
    if function is None:
        return {}
    decoded: dict[str, Any] = {
        "function_name": function["name"],
        "function_signature": "0x" + calldata[:SELECTOR_BYTES].hex(),
    }
    arguments = _decode_arguments(function["inputs"], calldata[SELECTOR_BYTES:])
    if arguments is not None:
        decoded["contract_call_args"] = arguments
    return decoded


def validate_abi(abi_json: str) -> None:
    """Refuse an Ethereum smart-contract interface that is not an ABI whose function inputs parse."""
    functions(abi_json)


def functions(abi_json: str) -> dict[bytes, Param]:
    """The ABI's functions by selector (keccak256 of ``name(type,...)``, first 4 bytes)."""
    try:
        abi = json.loads(abi_json)
    except ValueError:
        raise _bad_abi("it is not JSON") from None
    except RecursionError:
        raise _bad_abi("it is nested too deeply") from None
    if not isinstance(abi, list) or not all(isinstance(entry, dict) for entry in abi):
        raise _bad_abi("it must be a JSON array of ABI entries (objects)")
    try:
        signatures = {_signature(entry, f"[{n}]"): entry for n, entry in enumerate(abi) if _is_function(entry)}
    except RecursionError:  # tuple components are expanded recursively
        raise _bad_abi("its tuple components are nested too deeply") from None
    return {keccak256(signature.encode())[:SELECTOR_BYTES]: entry for signature, entry in signatures.items()}


def _is_function(entry: Param) -> bool:
    kind: object = entry.get("type", "function")  # an entry without a type is a function (Solidity ABI spec)
    return kind == "function"


def _signature(function: Param, where: str) -> str:
    name, inputs = function.get("name"), function.get("inputs", [])
    if not isinstance(name, str) or not name:
        raise _bad_abi(f"function {where} has no name")
    if not isinstance(inputs, list):
        raise _bad_abi(f"function {name!r} inputs must be a list")
    types = [canonical_type(param, f"{name}.inputs[{n}]") for n, param in enumerate(inputs)]
    _check_types(types, name)
    return f"{name}({','.join(types)})"


def canonical_type(param: Any, where: str) -> str:
    """A parameter's type as selectors spell it: tuples expanded, ``uint``/``int`` with their width."""
    kind = param.get("type") if isinstance(param, dict) else None
    if not isinstance(kind, str) or not kind:
        raise _bad_abi(f"{where} has no type")
    base, dims = _split_dims(kind)
    if base == "tuple":
        components = param.get("components")
        if not isinstance(components, list):
            raise _bad_abi(f"{where} is a tuple without components")
        base = "(" + ",".join(canonical_type(c, f"{where}.components[{n}]") for n, c in enumerate(components)) + ")"
    return {"uint": "uint256", "int": "int256"}.get(base, base) + dims


def _split_dims(kind: str) -> tuple[str, str]:
    at = kind.find("[")
    return (kind, "") if at < 0 else (kind[:at], kind[at:])


def _check_types(types: list[str], name: str) -> None:
    from eth_abi.exceptions import ParseError
    from eth_abi.grammar import parse

    for kind in types:
        try:
            parse(kind).validate()
        except (ParseError, ValueError) as error:
            raise _bad_abi(f"function {name!r} has an invalid input type {kind!r} ({error})") from None


def _decode_arguments(inputs: list[Param], body: bytes) -> dict[str, Any] | None:
    from eth_abi.abi import decode
    from eth_abi.exceptions import DecodingError, ParseError

    types = [canonical_type(param, "input") for param in inputs]
    try:
        values = decode(types, body, strict=True)
    except (DecodingError, ParseError, ValueError, RecursionError):
        return None
    return {_arg_name(param, n): _policy_value(param, value) for n, (param, value) in enumerate(zip(inputs, values))}


def _arg_name(param: Param, position: int) -> str:
    name = param.get("name")
    return name if isinstance(name, str) and name else str(position)


def _policy_value(param: Param, value: Any) -> Any:
    kind: str = param["type"]
    if kind.endswith("]"):
        element = {**param, "type": kind[: kind.rindex("[")]}
        return [_policy_value(element, item) for item in value]
    if kind == "tuple":  # positional, as the service's engine reads a tuple (ethereum.mdx, "Batch calls")
        return [_policy_value(c, v) for c, v in zip(param["components"], value, strict=True)]
    if isinstance(value, bytes):
        return "0x" + value.hex()
    if isinstance(value, Decimal):  # fixedMxN: the language has no fractions, so the exact decimal text
        return str(value)
    if kind == "address":
        return str(value).lower()
    return value


def _hex(data: str) -> bytes:
    try:
        return bytes.fromhex(data[2:] if data[:2].lower() == "0x" else data)
    except ValueError:
        raise InvalidArgument(f"calldata must be hex, got {data[:40]!r}") from None


def _bad_abi(reason: str) -> InvalidArgument:
    return InvalidArgument(f"invalid smart contract interface: {reason}")
