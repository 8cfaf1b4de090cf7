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


def render(node: Node) -> str:
    """``node`` written back as policy text (for explanations: the clause that errored)."""
    if isinstance(node, Literal):
        if isinstance(node.value, bool):
            return "true" if node.value else "false"
        if isinstance(node.value, str):
            return "'" + node.value.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return str(node.value)
    if isinstance(node, ListLiteral):
        return "[" + ", ".join(render(item) for item in node.items) + "]"
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Member):
        return f"{render(node.target)}.{node.name}"
    if isinstance(node, Index):
        return f"{render(node.target)}[{render(node.index)}]"
    if isinstance(node, Slice):
        start = render(node.start) if node.start is not None else ""
        end = render(node.end) if node.end is not None else ""
        return f"{render(node.target)}[{start}..{end}]"
    if isinstance(node, Not):
        return f"!{render(node.operand)}"
    if isinstance(node, Logical):
        return f" {node.op} ".join(f"({render(o)})" if isinstance(o, Logical) else render(o) for o in node.operands)
    if isinstance(node, Compare):
        return f"{render(node.left)} {node.op} {render(node.right)}"
    if isinstance(node, Predicate):
        return f"{render(node.target)}.{node.method}({node.var}, {render(node.body)})"
    if isinstance(node, Count):
        return f"{render(node.target)}.count()"
    if isinstance(node, Contains):
        return f"{render(node.target)}.contains({render(node.item)})"
    if isinstance(node, Call):
        return f"{node.function}(" + ", ".join(render(a) for a in node.args) + ")"
    return type(node).__name__
