"""``activity.params`` as the policy language names it: the documented fields, in snake case.

The service's policy engine reads an activity's parameters by their protobuf field names
(``activity.params.user_ids``, ``activity.params.target_public_key``, ``...transfer.receiver_public_key``),
where the JSON request spells them in lowerCamelCase (``userIds``). One rule, applied to every
activity type's parameter schema (schemas/submit/*.json, generated from the public swagger),
turns one into the other: an underscore before each capital, then lower case (``oauth2CredentialId``
-> ``oauth2_credential_id``, ``attestationDocB64`` -> ``attestation_doc_b64``), recursively through
nested objects and list items. Only the top-level fields the language page's table lists
(:mod:`simulator.policy.params_table`) are exposed (:func:`exposed_shapes`); the camelCase
spelling is not a name the engine knows (both are MissingField, as in the service).

A field the schema defines but the request left out reads as its type's default (``''``, ``0``,
``false``, ``[]``, a struct of defaults), as the service's docs say of omitted optional fields. A
field the schema does not define is a ``MissingField`` evaluation error naming the fields that do
exist (:class:`Struct` raises it); :func:`unknown_paths` finds, before a policy is stored, the
paths no activity type has.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from simulator.operations.activity_types import kind_of, submit_schemas
from simulator.policy.errors import PolicyEvaluationError
from simulator.policy.namespaces import chain_of
from simulator.policy.nodes import Compare, Index, ListLiteral, Literal, Member, Name, Node, Predicate, Slice, children

CAPITAL = re.compile(r"(?<!^)(?=[A-Z])")
DECIMAL = re.compile(r"-?[0-9]{1,4300}")  # int() refuses more digits: a longer one stays a string
ROOT = "activity.params"
LISTED = 40  # at most this many names in a refusal; beyond, the closest ones


def snake(name: str) -> str:
    """``userIds`` -> ``user_ids``: the inverse of protobuf's lowerCamelCase JSON names."""
    return CAPITAL.sub("_", name).lower()


@dataclass(frozen=True, slots=True)
class Shape:
    """What a schema node holds: ``struct`` (``fields``: snake -> (camel, Shape)), ``list`` (``item``),
    ``int``, ``bool``, ``string``, ``open`` (a map, whose keys the schema does not name), or
    ``variant`` (the ``type`` of a oneof: which of its members is set)."""

    kind: str
    fields: Mapping[str, tuple[str, Shape]] = field(default_factory=dict)
    item: Shape | None = None

    def resolve(self, name: str) -> str | None:
        """``name`` when this struct has that (snake-case) field, else None."""
        return name if name in self.fields else None

    def default(self) -> Any:
        """The value an omitted field of this shape reads as (proto3's defaults)."""
        if self.kind == "struct":
            return {}
        return {"list": [], "int": 0, "bool": False, "open": {}}.get(self.kind, "")


def shape_of(schema: Any) -> Shape:
    """The Shape of a JSON Schema node of the generated parameter schemas."""
    if not isinstance(schema, Mapping):
        return Shape("open")
    types = schema.get("type")
    types = set(types) if isinstance(types, list) else {types}
    properties = schema.get("properties")
    if isinstance(properties, Mapping) and properties:
        fields = {snake(name): (name, shape_of(sub)) for name, sub in properties.items()}
        if len(fields) > 1 and "type" not in fields and all(sub.kind == "struct" for _, sub in fields.values()):
            # a protobuf oneof of messages (Spark's key derivation): the service adds ``type``, the one set
            fields["type"] = ("", Shape("variant"))
        return Shape("struct", fields)
    if "array" in types:
        return Shape("list", item=shape_of(schema.get("items")))
    if "integer" in types:
        return Shape("int")
    if "boolean" in types:
        return Shape("bool")
    if "object" in types:  # a message without fields (Spark's ``deposit: {}``), or a map
        return Shape("open") if isinstance(schema.get("additionalProperties"), Mapping) else Shape("struct")
    return Shape("string")


@lru_cache(maxsize=1)
def shapes() -> dict[str, Shape]:
    """Every activity type's parameters Shape, read once from the generated submit schemas."""
    found: dict[str, Shape] = {}
    for activity_type, parameters in submit_schemas().parameters.items():
        shape = shape_of(parameters)  # no parameters schema (None) reads as an empty struct
        found[activity_type] = shape if shape.kind == "struct" else Shape("struct")
    return found


@lru_cache(maxsize=1)
def exposed_shapes() -> dict[str, Shape]:
    """Each activity type's parameters as the policy engine exposes them: the documented top-level
    fields only (params_table.EXPOSED), their shapes from the schemas; no field for the types it omits."""
    from simulator.policy.params_table import EXPOSED

    found: dict[str, Shape] = {}
    for activity_type, shape in shapes().items():
        names = EXPOSED.get(activity_type, ())
        found[activity_type] = Shape("struct", {n: shape.fields[n] for n in names if n in shape.fields})
    return found


def params_view(activity_type: str, params: Any) -> Any:
    """``activity.params`` for a request of ``activity_type``: a :class:`Struct` over its exposed parameters.

    A type the schemas do not know (never the case for a validated request) keeps the plain
    parameters, read as before.
    """
    shape = exposed_shapes().get(activity_type)
    if shape is None or not isinstance(params, Mapping):
        return params
    return Struct(shape, params, ROOT, activity_type)


def view(shape: Shape, value: Any, path: str, owner: str) -> Any:
    """``value`` (as the request has it) as the policy language reads a field of ``shape``."""
    if shape.kind == "struct" and isinstance(value, Mapping):
        return Struct(shape, value, path, owner)
    if shape.kind == "list" and isinstance(value, list) and shape.item is not None:
        return [view(shape.item, item, f"{path}[]", owner) for item in value]
    if shape.kind == "int" and isinstance(value, str) and DECIMAL.fullmatch(value):
        return int(value)  # an int64 travels as a decimal string; the language compares it as a number
    if shape.kind == "open" and isinstance(value, Mapping):
        return {snake(str(k)): v for k, v in value.items()}
    return value


class FieldUnknown(PolicyEvaluationError):
    """A read of a field the activity's parameters do not have (the service's ``MissingField``)."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


class Struct(Mapping[str, Any]):
    """A parameters object read by snake-case name (or its camelCase alias), converted on first read.

    Iterating gives the snake names the schema defines; reading one it does not define raises
    :class:`FieldUnknown` (through :meth:`field`), which names those that exist.
    """

    __slots__ = ("_read", "owner", "path", "raw", "shape")

    def __init__(self, shape: Shape, raw: Mapping[str, Any], path: str, owner: str) -> None:
        self.shape, self.raw, self.path, self.owner = shape, raw, path, owner
        self._read: dict[str, Any] = {}

    def field(self, name: str) -> Any:
        """The value of field ``name`` (snake or camelCase); FieldUnknown when the schema has no such field."""
        resolved = self.shape.resolve(name)
        if resolved is None:
            raise FieldUnknown(
                missing_message(f"{self.path}.{name}", self.path, self.owner, self.shape), f"{self.path}.{name}"
            )
        if resolved not in self._read:
            camel, sub = self.shape.fields[resolved]
            if sub.kind == "variant":
                return self.variant()
            value = self.raw.get(camel, self.raw.get(resolved))
            self._read[resolved] = (
                defaults(sub, f"{self.path}.{resolved}", self.owner)
                if value is None
                else view(sub, value, f"{self.path}.{resolved}", self.owner)
            )
        return self._read[resolved]

    def variant(self) -> str:
        """Which member of a oneof is set (its snake name), "" when none is."""
        return next((name for name, (camel, _) in self.shape.fields.items() if camel and camel in self.raw), "")

    def __getitem__(self, name: str) -> Any:
        try:
            return self.field(name)
        except FieldUnknown:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.shape.fields)

    def __len__(self) -> int:
        return len(self.shape.fields)

    def __repr__(self) -> str:
        return f"Struct({self.path} of {self.owner}: {', '.join(self.shape.fields)})"


def defaults(shape: Shape, path: str, owner: str) -> Any:
    """What an omitted field reads as: a struct of its own defaults, or its type's zero value."""
    return Struct(shape, {}, path, owner) if shape.kind == "struct" else shape.default()


def missing_message(wanted: str, where: str, owner: str, shape: Shape) -> str:
    """The evaluation error's text: what was read, and the fields that exist there."""
    place = "a parameter" if where == ROOT else f"a field of {where}"
    return (
        f"MissingField: '{wanted}' is not {place} of {owner} the policy engine exposes ({fields_sentence(shape)}; "
        "see https://docs.turnkey.com/features/policies/language#activity-parameters)"
    )


def fields_sentence(shape: Shape) -> str:
    names = list(shape.fields)
    return f"its fields: {', '.join(names)}" if names else "it exposes no fields"


# -- static reads: checked before evaluating (the engine does not short-circuit) and when a policy is stored --


def param_paths(node: Node, bound: frozenset[str] = frozenset()) -> frozenset[tuple[str, ...]]:
    """The field chains ``node`` reads under ``activity.params`` (``activity.params.user_ids.count`` ->
    ``('user_ids', 'count')``), up to the first step that is not a plain name or a string key."""
    found: set[tuple[str, ...]] = set()

    def walk(current: Node, names: frozenset[str]) -> None:
        if isinstance(current, Predicate):
            walk(current.target, names)
            walk(current.body, names | {current.var})
            return
        if isinstance(current, (Member, Index, Slice)):
            base, steps, inner = chain_of(current)
            if isinstance(base, Name) and base.name == "activity" and base.name not in names:
                if len(steps) >= 2 and steps[0] == "params":
                    found.add(tuple(steps[1:]))
            elif not isinstance(base, Name):
                walk(base, names)
            for sub in inner:
                walk(sub, names)
            return
        for child in children(current):
            walk(child, names)

    walk(node, bound)
    return frozenset(found)


def descend(shape: Shape, path: tuple[str, ...]) -> tuple[int, Shape]:
    """Follow ``path`` through structs: how many steps resolved, and the shape reached (it stops at the
    first step that is not a field, or at a list or open object, whose members are not checked here)."""
    current = shape
    for index, step in enumerate(path):
        resolved = current.resolve(step) if current.kind == "struct" else None
        if resolved is None:
            return index, current
        current = current.fields[resolved][1]
    return len(path), current


def first_unknown(shape: Shape, path: tuple[str, ...]) -> int | None:
    """The index in ``path`` of the first step ``shape`` does not have, None when all resolve.

    Steps past a list (``.count``, or a member a list never has) or an open object are not checked here.
    """
    reached, at = descend(shape, path)
    return reached if reached < len(path) and at.kind == "struct" else None


def check_paths(paths: Iterable[tuple[str, ...]], activity_type: str, params: Any) -> None:
    """Raise FieldUnknown for the first path the activity's parameters do not have (before evaluating)."""
    if not isinstance(params, Struct):
        return
    for path in sorted(paths):
        index = first_unknown(params.shape, path)
        if index is not None:
            where, shape = ROOT, params.shape
            for step in path[:index]:
                resolved = shape.resolve(step)
                assert resolved is not None
                where, shape = f"{where}.{resolved}", shape.fields[resolved][1]
            wanted = ".".join((ROOT, *path[: index + 1]))
            message = missing_message(wanted, where, activity_type, shape)
            raise FieldUnknown(
                message + "; the policy engine does not short-circuit, so the whole expression is an evaluation error",
                wanted,
            )


def pinned_types(node: Node) -> set[str]:
    """The activity types or kinds a condition names (``activity.type == '...'``, ``activity.kind in [...]``)."""
    found: set[str] = set()
    if isinstance(node, Compare) and node.op in ("==", "in"):
        for side, other in ((node.left, node.right), (node.right, node.left)):
            if (
                isinstance(side, Member)
                and side.name in ("type", "kind")
                and isinstance(side.target, Name)
                and side.target.name == "activity"
            ):
                literals = other.items if isinstance(other, ListLiteral) else (other,)
                found |= {lit.value for lit in literals if isinstance(lit, Literal) and isinstance(lit.value, str)}
    for child in children(node):
        found |= pinned_types(child)
    return found


def unknown_paths(node: Node) -> list[str]:
    """Why each ``activity.params`` path ``node`` reads is one no activity type has (empty when all exist).

    The message lists the fields that exist there: of the activity types the expression names,
    when it names some, else the closest names any activity type has at that place.
    """
    known = shapes()
    pinned = pinned_types(node)
    named = {t: s for t, s in known.items() if t in pinned or kind_of(t) in pinned}
    problems = []
    for path in sorted(param_paths(node)):
        if any(first_unknown(shape, path) is None for shape in known.values()):
            continue
        problems.append(unknown_path_message(path, named, known))
    return problems


def unknown_path_message(path: tuple[str, ...], named: dict[str, Shape], known: dict[str, Shape]) -> str:
    """``activity.params.<path>`` exists for no activity type: say so, with the names that do exist there."""
    wanted = ".".join((ROOT, *path))
    if named:
        lists = []
        for activity_type, shape in sorted(named.items()):
            index = first_unknown(shape, path) or 0
            place = ".".join((ROOT, *path[:index]))
            lists.append(f"{place} of {activity_type}: {', '.join(fields_at(shape, path[:index])) or 'none'}")
        return f"no activity type has '{wanted}' (the fields of {'; '.join(lists)})"
    # the deepest place any activity type reaches, and the names the types that reach it have there
    reached = {t: first_unknown(shape, path) or 0 for t, shape in known.items()}
    deepest = max(reached.values(), default=0)
    names = sorted({n for t, i in reached.items() if i == deepest for n in fields_at(known[t], path[:deepest])})
    place = ".".join((ROOT, *path[:deepest]))
    if len(names) <= LISTED:
        return f"no activity type has '{wanted}' (the fields of {place}: {', '.join(names) or 'none'})"
    close = difflib.get_close_matches(snake(path[deepest]), names, n=5, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return (
        f"no activity type has '{wanted}' ({hint}{len(names)} names exist at {place} across "
        "the activity types; compare activity.type with one to have its fields listed)"
    )


def fields_at(shape: Shape, prefix: tuple[str, ...]) -> list[str]:
    """The snake names of the struct ``prefix`` leads to in ``shape`` ([] when it leads elsewhere)."""
    current = shape
    for step in prefix:
        resolved = current.resolve(step) if current.kind == "struct" else None
        if resolved is None:
            return []
        current = current.fields[resolved][1]
    return list(current.fields) if current.kind == "struct" else []
