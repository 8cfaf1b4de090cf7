"""Which request-dependent keywords an expression reads, whether a request provides them, and their ints.

Turnkey's engine does not short-circuit: a condition that reads a keyword the request does not
provide (``eth.tx`` on a Solana signature, ``eth.eip_712`` on a plain hex payload, ``solana.tx``
on ``create_wallet``) evaluates to an error for the whole policy, whatever its other clauses say
(language.mdx, "Policy evaluation"). So the keywords are found once, when compiling, and checked
against each context before evaluating; checking only the clauses evaluation reaches would let
``false && eth.tx.value > 0`` pass where the real service errors.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from simulator.policy.nodes import Index, Literal, Member, Name, Node, Predicate, Slice, children
from simulator.policy.schemas import INT, NAMESPACES, TARGET_KEYWORDS, TRANSACTION_ROOTS, Schema, sub_namespaces

DECIMAL = re.compile(r"[0-9]{1,4300}")  # int() refuses more digits: a longer one stays a string
HEX = re.compile(r"0[xX][0-9a-fA-F]+")


class UnknownKeyword(ValueError):
    """A transaction keyword or field the language does not have (the parser adds the position)."""


def keyword_reads(node: Node, bound: Iterable[str] = ()) -> frozenset[str]:
    """The transaction namespaces (``eth.tx``, ...) and target keywords (``wallet``, ...) ``node`` reads.

    Raises UnknownKeyword for ``eth`` alone, an unknown namespace such as ``eth.transaction``, or a
    field its namespace does not document (``eth.tx.vaule``). Predicate variables shadow keywords.
    """
    found: set[str] = set()
    _walk(node, frozenset(bound), found)
    return frozenset(found)


def _walk(node: Node, bound: frozenset[str], found: set[str]) -> None:
    if isinstance(node, (Name, Member, Index, Slice)):
        base, steps, inner = chain_of(node)
        if isinstance(base, Name):
            if base.name not in bound:
                _record(base.name, steps, found)
        else:
            _walk(base, bound, found)
        for sub in inner:
            _walk(sub, bound, found)
    elif isinstance(node, Predicate):
        _walk(node.target, bound, found)
        _walk(node.body, bound | {node.var}, found)
    else:
        for child in children(node):
            _walk(child, bound, found)


def chain_of(node: Node) -> tuple[Node, list[str], list[Node]]:
    """The base of an access chain, its leading field names, and the expressions inside its brackets."""
    steps: list[str | None] = []
    inner: list[Node] = []
    while isinstance(node, (Member, Index, Slice)):
        if isinstance(node, Member):
            steps.append(node.name)
        elif isinstance(node, Index):
            key = node.index
            steps.append(key.value if isinstance(key, Literal) and isinstance(key.value, str) else None)
            inner.append(key)
        else:
            steps.append(None)
            inner.extend(bound for bound in (node.start, node.end) if bound is not None)
        node = node.target
    steps.reverse()
    leading = steps.index(None) if None in steps else len(steps)
    return node, [str(step) for step in steps[:leading]], inner


def _record(root: str, fields: list[str], found: set[str]) -> None:
    if root in TARGET_KEYWORDS:
        found.add(root)
    if root not in TRANSACTION_ROOTS:
        return
    known = ", ".join(sub_namespaces(root))
    if not fields:
        raise UnknownKeyword(f"'{root}' is not a keyword by itself (write one of {known})")
    path = f"{root}.{fields[0]}"
    namespace = NAMESPACES.get(path)
    if namespace is None:
        raise UnknownKeyword(f"'{path}' is not a keyword of the policy language (the {root} keywords: {known})")
    if len(fields) > 1 and fields[1] not in namespace.fields:
        raise UnknownKeyword(f"'{fields[1]}' is not a field of {path} (its fields: {', '.join(namespace.fields)})")
    found.add(path)


def lookup(context: Mapping[str, Any], keyword: str) -> Any:
    """The value of ``eth.tx``, ``wallet``, ... in ``context``; None when the request does not provide it."""
    value: Any = context
    for part in keyword.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def unavailable(reads: frozenset[str], context: Mapping[str, Any], strict_targets: bool) -> list[str]:
    """The keywords ``reads`` names that ``context`` lacks: namespaces always, targets when strict."""
    wanted = sorted(k for k in reads if k in NAMESPACES or strict_targets)
    return [keyword for keyword in wanted if lookup(context, keyword) is None]


def unavailable_message(missing: list[str], context: Mapping[str, Any]) -> str:
    """Why the expression errors: what it reads, what provides that, and what this request provides."""
    parts = [
        f"{k} (provided by {NAMESPACES[k].provided_by})" if k in NAMESPACES else f"{k} (not a target of this request)"
        for k in missing
    ]
    provided = [path for path in NAMESPACES if lookup(context, path) is not None]
    has = f"it provides {', '.join(provided)}" if provided else "it carries no parsed transaction or typed data"
    return (
        f"MissingField: the expression reads {'; '.join(parts)}, which this request does not provide ({has}); "
        "the policy engine does not short-circuit, so the whole expression is an evaluation error"
    )


def with_ints(context: Mapping[str, Any], namespaces: Iterable[str]) -> Mapping[str, Any]:
    """``context`` with each namespace's documented int fields as ints, where a view gave them as strings."""
    overrides: dict[str, dict[str, Any]] = {}
    for path in namespaces:
        view = lookup(context, path)
        if view is None or path not in NAMESPACES:
            continue
        root, leaf = path.split(".")
        holder = overrides.setdefault(root, dict(context[root]))
        holder[leaf] = _ints(view, NAMESPACES[path].ints)
    return {**context, **overrides} if overrides else context


def _ints(value: Any, schema: Schema) -> Any:
    if schema == INT:
        return _as_int(value)
    if isinstance(schema, list) and isinstance(value, (list, tuple)):
        return [_ints(item, schema[0]) for item in value]
    if isinstance(schema, dict) and isinstance(value, Mapping):
        return {key: _ints(item, schema[key]) if key in schema else item for key, item in value.items()}
    return value


def _as_int(value: Any) -> Any:
    """A decimal or 0x-hex string as the int it spells (wei beyond 64 bits travel as strings); else unchanged."""
    if isinstance(value, str):
        if DECIMAL.fullmatch(value):
            return int(value)
        if HEX.fullmatch(value):
            return int(value, 16)
    return value
