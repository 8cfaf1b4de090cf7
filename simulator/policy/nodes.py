"""The policy language's abstract syntax tree: small frozen dataclasses, plus free-name analysis."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields


class Node:
    """Base of every AST node."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Literal(Node):
    """A string, integer or boolean constant."""

    value: str | int | bool


@dataclass(frozen=True, slots=True)
class ListLiteral(Node):
    """A list literal such as ``['a', 'b']``."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Name(Node):
    """A bare identifier: a context keyword such as ``approvers`` or a bound lambda variable."""

    name: str


@dataclass(frozen=True, slots=True)
class Member(Node):
    """Field access ``target.name``."""

    target: Node
    name: str


@dataclass(frozen=True, slots=True)
class Index(Node):
    """Indexing ``target[index]`` (list or string position, or struct key)."""

    target: Node
    index: Node


@dataclass(frozen=True, slots=True)
class Slice(Node):
    """Slicing ``target[start:end]`` or ``target[start..end]``; an omitted bound is None."""

    target: Node
    start: Node | None
    end: Node | None


@dataclass(frozen=True, slots=True)
class Not(Node):
    """Logical negation ``!operand``."""

    operand: Node


@dataclass(frozen=True, slots=True)
class Logical(Node):
    """A run of ``&&`` or ``||`` operands (n-ary, so long chains do not nest deeply)."""

    op: str
    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Compare(Node):
    """A comparison (``== != < <= > >=``) or membership test (``in``)."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Predicate(Node):
    """``target.any|all|filter(var, body)``: ``body`` is evaluated with ``var`` bound to each item."""

    method: str
    target: Node
    var: str
    body: Node


@dataclass(frozen=True, slots=True)
class Count(Node):
    """``target.count()``: the length of a list."""

    target: Node


@dataclass(frozen=True, slots=True)
class Contains(Node):
    """``target.contains(item)``: list membership, or substring for a string target."""

    target: Node
    item: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    """A call of one of the time functions, ``Timestamp('<rfc3339>')`` or ``CronSpan(cron, duration, tz)``
    (language.mdx, "Time expressions"); only the ``time`` field may use them."""

    function: str
    args: tuple[Node, ...]
    start: int = 0


def children(node: Node) -> Iterator[Node]:
    """The direct sub-nodes of ``node``, in field order."""
    for field in fields(node):  # type: ignore[arg-type]
        value = getattr(node, field.name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, tuple):
            yield from (item for item in value if isinstance(item, Node))


def free_names(node: Node) -> frozenset[str]:
    """The identifiers ``node`` reads from its context, excluding variables bound by a predicate."""
    if isinstance(node, Name):
        return frozenset((node.name,))
    if isinstance(node, Predicate):
        return free_names(node.target) | (free_names(node.body) - {node.var})
    return frozenset().union(*(free_names(child) for child in children(node)))
