"""Tree-walking evaluator for the policy language's AST over plain-data contexts.

Values are Python data: str, int, bool, None (a missing member or keyword), lists (or tuples)
and mappings (structs; an activity's parameters are a ``Struct``, whose unknown fields raise
MissingField instead of reading as None). None never raises: it compares unequal to everything,
orders as false, reads as an empty list for the list methods and as false where a bool is needed.
"""

from __future__ import annotations

import operator
from collections import ChainMap
from collections.abc import Callable, Mapping
from typing import Any

from simulator.policy.errors import PolicyEvaluationError
from simulator.policy.nodes import (
    Call,
    Compare,
    Contains,
    Count,
    Index,
    ListLiteral,
    Literal,
    Logical,
    Member,
    Name,
    Node,
    Not,
    Predicate,
    Slice,
)
from simulator.policy.params import Struct
from simulator.policy.time_window import Instant, TimeArgumentError, cron_span, timestamp

Scope = Mapping[str, Any]
LIST_TYPES = (list, tuple)
ORDERINGS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def evaluate(node: Node, scope: Scope) -> Any:
    """The value of ``node`` with identifiers looked up in ``scope``."""
    return HANDLERS[type(node)](node, scope)


def type_name(value: Any) -> str:
    """The policy-language name of a value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "string"
    if isinstance(value, LIST_TYPES):
        return "list"
    if isinstance(value, Instant):
        return "timestamp"
    return "struct" if isinstance(value, Mapping) else type(value).__name__


def a_type(value: Any) -> str:
    """The type of ``value`` with its article ("an int", "a string"), or "null" for None."""
    name = type_name(value)
    return name if value is None else ("an " if name[0] in "aeiou" else "a ") + name


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer (bool is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def truth(value: Any, where: str) -> bool:
    """``value`` as a bool, where None (missing data) counts as false and other types are an error."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    raise PolicyEvaluationError(f"{where} needs a bool, got {a_type(value)}")


def equal(left: Any, right: Any) -> bool:
    """Policy equality: None equals nothing, and bools never equal integers."""
    if left is None or right is None:
        return False
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    return bool(left == right)


def ordered(op: str, left: Any, right: Any) -> bool:
    """``left op right`` for two ints or two strings; false if either is None."""
    if left is None or right is None:
        return False
    if (
        (is_int(left) and is_int(right))
        or (isinstance(left, str) and isinstance(right, str))
        or (isinstance(left, Instant) and isinstance(right, Instant))
    ):
        return ORDERINGS[op](left, right)
    raise PolicyEvaluationError(f"'{op}' cannot compare {a_type(left)} with {a_type(right)}")


def membership(item: Any, container: Any) -> bool:
    """``item in container``: list membership, substring, or struct key; false if either is None."""
    if item is None or container is None:
        return False
    if isinstance(container, LIST_TYPES):
        return any(equal(item, element) for element in container)
    if isinstance(container, (str, Mapping)) and isinstance(item, str):
        return item in container
    raise PolicyEvaluationError(f"'in' cannot look for {a_type(item)} in {a_type(container)}")


def as_list(value: Any, method: str) -> list[Any] | tuple[Any, ...]:
    """The list a method is called on; a missing one (None) is empty."""
    if value is None:
        return []
    if isinstance(value, LIST_TYPES):
        return value
    raise PolicyEvaluationError(f"'.{method}' needs a list, got {a_type(value)}")


def _literal(node: Literal, scope: Scope) -> Any:
    """The constant itself."""
    return node.value


def _list(node: ListLiteral, scope: Scope) -> list[Any]:
    """A new list of the evaluated items."""
    return [evaluate(item, scope) for item in node.items]


def _name(node: Name, scope: Scope) -> Any:
    """The identifier from the scope; None when absent."""
    return scope.get(node.name)


def _member(node: Member, scope: Scope) -> Any:
    """The field of a struct, or ``list.count`` (the docs' ``transfers.count == 1``); None when missing."""
    target = evaluate(node.target, scope)
    if target is None:
        return None
    if isinstance(target, Struct):
        return target.field(node.name)
    if isinstance(target, Mapping):
        return target.get(node.name)
    if isinstance(target, LIST_TYPES) and node.name == "count":
        return len(target)
    raise PolicyEvaluationError(f"cannot read member '{node.name}' of {a_type(target)}")


def _index(node: Index, scope: Scope) -> Any:
    """A list or string position, or a struct key; None when out of range or missing."""
    target, key = evaluate(node.target, scope), evaluate(node.index, scope)
    if target is None or key is None:
        return None
    if isinstance(target, Struct) and isinstance(key, str):
        return target.field(key)
    if isinstance(target, Mapping) and isinstance(key, str):
        return target.get(key)
    if isinstance(target, (str, *LIST_TYPES)) and is_int(key):
        return target[key] if 0 <= key < len(target) else None
    if isinstance(target, LIST_TYPES) and isinstance(key, str):
        raise PolicyEvaluationError(
            f"cannot index a list with a string ({key!r}): an ABI tuple is read by position "
            "(call[0], call[1], ...); named access is not supported"
        )
    raise PolicyEvaluationError(f"cannot index {a_type(target)} with {a_type(key)}")


def _bound(node: Node | None, scope: Scope) -> int | None:
    """A slice bound: None when omitted, else a non-negative int."""
    if node is None:
        return None
    value = evaluate(node, scope)
    if is_int(value) and value >= 0:
        return int(value)
    raise PolicyEvaluationError(f"a slice bound must be a non-negative int, got {value!r}")


def _slice(node: Slice, scope: Scope) -> Any:
    """A sub-list or substring; None when the target is missing."""
    target = evaluate(node.target, scope)
    start, end = _bound(node.start, scope), _bound(node.end, scope)
    if target is None:
        return None
    if isinstance(target, str):
        return target[start:end]
    if isinstance(target, LIST_TYPES):
        return list(target[start:end])
    raise PolicyEvaluationError(f"cannot slice {a_type(target)}")


def _not(node: Not, scope: Scope) -> bool:
    """The negation of a bool operand."""
    return not truth(evaluate(node.operand, scope), "'!'")


def _logical(node: Logical, scope: Scope) -> bool:
    """The && or || of the operands, every one evaluated (language.mdx: the engine does not short-circuit).

    An operand that errors makes the whole expression an error even when another operand already
    decides the result (``wallet.id == 'w' || private_key.id == 'k'`` errors whichever is targeted).
    """
    values = [truth(evaluate(operand, scope), f"'{node.op}'") for operand in node.operands]
    return any(values) if node.op == "||" else all(values)


def _compare(node: Compare, scope: Scope) -> bool:
    """A comparison or ``in`` test."""
    left, right = evaluate(node.left, scope), evaluate(node.right, scope)
    if node.op == "==":
        return equal(left, right)
    if node.op == "!=":
        return not equal(left, right)
    if node.op == "in":
        return membership(left, right)
    return ordered(node.op, left, right)


def _predicate(node: Predicate, scope: Scope) -> Any:
    """.any / .all as a bool, .filter as the list of items the predicate holds for."""
    items = as_list(evaluate(node.target, scope), node.method)
    where = f"the predicate of '.{node.method}'"

    def holds(item: Any) -> bool:
        # ChainMap binds the variable without copying the (possibly large) outer context.
        bound = ChainMap({node.var: item}, scope)  # type: ignore[arg-type]  # only ever read
        return truth(evaluate(node.body, bound), where)

    # every item is evaluated (no short circuit): an error on any item is the expression's error
    results = [holds(item) for item in items]
    if node.method == "any":
        return any(results)
    if node.method == "all":
        return all(results)
    return [item for item, held in zip(items, results, strict=True) if held]


def _count(node: Count, scope: Scope) -> int:
    """The length of a list (0 when missing)."""
    return len(as_list(evaluate(node.target, scope), "count"))


def _contains(node: Contains, scope: Scope) -> bool:
    """List membership, or substring for a string target."""
    target, item = evaluate(node.target, scope), evaluate(node.item, scope)
    if isinstance(target, str):
        if not isinstance(item, str):
            raise PolicyEvaluationError(f"'.contains' on a string needs a string, got {a_type(item)}")
        return item in target
    return any(equal(item, element) for element in as_list(target, "contains"))


def _call(node: Call, scope: Scope) -> Any:
    """``Timestamp('<rfc3339>')`` as an instant; ``CronSpan(cron, duration, tz)`` against ``time.now``."""
    args = [evaluate(arg, scope) for arg in node.args]
    try:
        if node.function == "Timestamp":
            return timestamp(str(args[0]))
        clock = scope.get("time")
        now = clock.get("now") if isinstance(clock, Mapping) else None
        if not isinstance(now, Instant):
            raise PolicyEvaluationError("MissingField: CronSpan needs time.now, which only the time field has")
        return cron_span(now, str(args[0]), str(args[1]), str(args[2]))
    except TimeArgumentError as exc:
        raise PolicyEvaluationError(str(exc)) from None


HANDLERS: dict[type[Node], Callable[[Any, Scope], Any]] = {
    Literal: _literal,
    ListLiteral: _list,
    Name: _name,
    Member: _member,
    Index: _index,
    Slice: _slice,
    Not: _not,
    Logical: _logical,
    Compare: _compare,
    Predicate: _predicate,
    Count: _count,
    Contains: _contains,
    Call: _call,
}
