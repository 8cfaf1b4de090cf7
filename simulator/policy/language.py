"""Turnkey's policy expression language (the documented subset): compile once, evaluate per request.

``compile_expression(text)`` parses a policy's ``consensus`` or ``condition`` into an
:class:`Expression`; ``Expression.evaluate(context)`` runs it against plain data such as::

    {"activity": {"type": ..., "kind": ..., "resource": ..., "action": ..., "params": {...}},
     "approvers": [{"id", "tags", "email", "alias"}, ...],
     "credentials": [{"id", "user_id", "type", "credential_id", "public_key"}, ...],
     "wallet": {...}, "wallets": [...], "wallet_account": {...}, "private_key": {...}}

Supported (the subset Turnkey's language page and examples use):

- literals: strings in single or double quotes (escapes ``\\\\ \\' \\" \\n \\t``), decimal
  integers, ``true``/``false``, list literals ``['a', 'b']``;
- identifiers and member access ``a.b.c``; indexing ``x[0]`` (list or string position) and
  ``x['key']`` (struct field); slicing ``x[1:3]`` or Turnkey's ``x[1..3]``, either bound optional;
- comparison ``== != < <= > >=`` (ordering on two ints or two strings; comparisons do not chain);
  ``in`` (list membership, substring of a string, key of a struct);
- ``!``, ``&&``, ``||`` with precedence ``!`` > comparison/``in`` > ``&&`` > ``||``; parentheses;
- list methods ``.any(x, pred)``, ``.all(x, pred)``, ``.filter(x, pred)`` (a list), ``.count()``,
  ``.contains(v)`` (also substring on a string); the variable ``x`` is bound inside ``pred`` and
  shadows any outer name.

Refused at compile time with :class:`PolicySyntaxError` naming the construct and its offset:
arithmetic and negative numbers (``+ - * / %``), bitwise operators and single ``&``/``|``/``=``,
floats and hex literals, struct literals ``{...}``, the conditional ``?:``, ``and``/``or``/``not``
words, calls of bare functions ``f(x)``, methods other than the five above (e.g. ``.map``),
chained comparisons ``a == b == c``, and the transaction-parser keywords ``eth.*`` (``eth.tx``,
``eth.eip_712``, ...), ``solana.*``, ``tron.*``, ``bitcoin.*`` and ``tempo.*``, which the
simulator does not decode. Other identifiers are accepted; an unknown one reads as missing.

Missing data: a keyword or member that is absent evaluates to None; None is unequal to
everything (``==`` is false, ``!=`` true), ordering and ``in`` involving it are false, the list
methods treat it as an empty list, and where a bool is needed (``!``, ``&&``, ``||``, predicates,
the final result) it counts as false. Type mismatches beyond that raise
:class:`PolicyEvaluationError`. An empty or blank text is an expression that is always true.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from simulator.policy.errors import PolicyEvaluationError, PolicySyntaxError
from simulator.policy.evaluator import a_type, evaluate
from simulator.policy.nodes import Literal, Node, free_names
from simulator.policy.parser import parse

__all__ = ["Expression", "PolicyEvaluationError", "PolicySyntaxError", "compile_expression"]


@dataclass(frozen=True, slots=True)
class Expression:
    """A compiled policy expression: its source ``text`` and the AST ``root``."""

    text: str
    root: Node

    def evaluate(self, context: Mapping[str, Any]) -> bool:
        """Whether the expression holds for ``context``; a missing (None) result counts as false."""
        if not isinstance(context, Mapping):
            raise PolicyEvaluationError(f"the context must be a mapping, got {type(context).__name__}")
        try:
            value = evaluate(self.root, context)
        except RecursionError:
            raise PolicyEvaluationError("expression nested too deeply to evaluate") from None
        if value is None or isinstance(value, bool):
            return bool(value)
        raise PolicyEvaluationError(f"expression {self.text!r} produced {a_type(value)}, not a bool")

    def names(self) -> frozenset[str]:
        """The top-level identifiers the expression reads (lambda variables excluded)."""
        return free_names(self.root)


def compile_expression(text: str) -> Expression:
    """Parse ``text`` into an :class:`Expression`; raises :class:`PolicySyntaxError` if it cannot."""
    if not isinstance(text, str):
        raise PolicySyntaxError(f"a policy expression must be a string, got {type(text).__name__}")
    return _compile(text)


@lru_cache(maxsize=1024)
def _compile(text: str) -> Expression:
    """The cached compilation; Expressions are immutable, so sharing them is safe."""
    if not text.strip():
        return Expression(text, Literal(True))
    try:
        return Expression(text, parse(text))
    except RecursionError:
        raise PolicySyntaxError("expression nested too deeply to parse") from None
