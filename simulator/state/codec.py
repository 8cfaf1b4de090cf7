"""The whole state as readable JSON and back: records by class name, bytes as hex."""

from __future__ import annotations

import dataclasses
from typing import Any

from simulator.state import activity, records, store

CLASSES: dict[str, type] = {
    cls.__name__: cls
    for module in (records, activity, store)
    for cls in vars(module).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls)
}


def encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"__type__": type(value).__name__, **fields}
    if isinstance(value, store.Store):
        return {"__type__": "Store", **{k: encode(v) for k, v in vars(value).items()}}
    if isinstance(value, bytes):
        return {"__bytes__": value.hex()}
    if isinstance(value, (set, frozenset)):
        return {"__set__": sorted(encode(v) for v in value)}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v) for v in value]}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: encode(v) for k, v in value.items()}
        return {"__items__": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__bytes__" in value:
        return bytes.fromhex(value["__bytes__"])
    if "__set__" in value:
        return {decode(v) for v in value["__set__"]}
    if "__tuple__" in value:
        return tuple(decode(v) for v in value["__tuple__"])
    if "__items__" in value:
        return {decode(k): decode(v) for k, v in value["__items__"]}
    if "__type__" in value:
        return build(value)
    return {k: decode(v) for k, v in value.items()}


def build(value: dict[str, Any]) -> Any:
    name = value["__type__"]
    fields = {k: decode(v) for k, v in value.items() if k != "__type__"}
    if name == "Store":
        made = store.Store()
        vars(made).update(fields)
        return made
    if name not in CLASSES:
        raise ValueError(f"unknown record type {name!r} in the state")
    return CLASSES[name](**fields)
