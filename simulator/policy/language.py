"""Turnkey's policy expression language (the documented subset): compile once, evaluate per request.

``compile_expression(text)`` parses a policy's ``consensus`` or ``condition`` into an
:class:`Expression`; ``Expression.evaluate(context)`` runs it against plain data such as::

    {"activity": {"type": ..., "kind": ..., "resource": ..., "action": ..., "params": {...}},
     "approvers": [{"id", "tags", "email", "alias"}, ...],
     "credentials": [{"id", "user_id", "type", "credential_id", "public_key"}, ...],
     "wallet": {...}, "wallets": [...], "wallet_account": {...}, "private_key": {...},
     "eth": {"tx": {...}}}   # or eth.eip_712 / eth.eip_7702_authorization, solana.tx, tron.tx, ...

and ``Expression.check(context)`` returns a :class:`Verdict` that tells "did not match" from
"errored" (with the reason), for the engine's OUTCOME_ERROR and its explanation.

Supported (the subset Turnkey's language page and examples use):

- literals: strings in single quotes (a double-quoted one parses, marked in ``double_quoted``:
  create_policy refuses it, see :mod:`simulator.policy.fields`; escapes ``\\\\ \\' \\" \\n \\t``), decimal
  integers up to 256 bits (the language's ``uint``), ``true``/``false``, list literals ``['a', 'b']``;
- identifiers and member access ``a.b.c``; indexing ``x[0]`` (list or string position) and
  ``x['key']`` (struct or map field, e.g. ``eth.tx.contract_call_args['wad']``); slicing ``x[1:3]``
  or Turnkey's ``x[1..3]``, either bound optional, on lists and strings (hex data:
  ``eth.tx.data[0..10] == '0xa9059cbb'``, ``tron.tx.contract[0].data[0..8] == 'a9059cbb'``);
- comparison ``== != < <= > >=`` (ordering on two ints or two strings; comparisons do not chain;
  ints are unbounded, so wei amounts beyond 64 bits compare exactly);
  ``in`` (list membership, substring of a string, key of a struct);
- ``!``, ``&&``, ``||`` with precedence ``!`` > comparison/``in`` > ``&&`` > ``||``; parentheses;
- list methods ``.any(x, pred)``, ``.all(x, pred)``, ``.filter(x, pred)`` (a list), ``.count()``,
  ``.contains(v)`` (also substring on a string); the variable ``x`` is bound inside ``pred`` and
  shadows any outer name. ``list.count`` without parentheses is the length too (the docs write
  ``solana.tx.transfers.count == 1``).
- the transaction keywords and their documented fields (language.mdx): one per chain in
  ``simulator/chains/registry.py`` (``eth.tx``, ``solana.tx``, ``tron.tx``, ``bitcoin.tx``,
  ``tempo.tx``) plus ``eth.eip_712`` and ``eth.eip_7702_authorization``; ``simulator/policy/schemas.py``
  gathers them in ``NAMESPACES``.
  A documented int field a view holds as a decimal or ``0x`` hex string is read as that int.

Refused at compile time with :class:`PolicySyntaxError` naming the construct and its offset:
arithmetic and negative numbers (``+ - * / %``), bitwise operators and single ``&``/``|``/``=``,
floats, hex literals and integers beyond 256 bits, struct literals ``{...}``, the conditional
``?:``, ``and``/``or``/``not`` words, calls of bare functions ``f(x)`` other than the time field's
``Timestamp(...)``/``CronSpan(...)`` (:mod:`simulator.policy.time_window`; which field may use which
keyword and function is :mod:`simulator.policy.fields`), methods other than the five above (e.g. ``.map``), chained
comparisons ``a == b == c``, a transaction root alone (``eth``), an unknown transaction keyword
(``eth.transaction``) and a top-level field its namespace does not document (``eth.tx.vaule``,
``eth.tx.access_list``). Other identifiers are accepted; an unknown one reads as missing.

Keywords a request does not provide: Turnkey's engine does not short-circuit (every operand of
``&&``/``||`` and every predicate item is evaluated), so an expression that reads a transaction
keyword the context lacks (``eth.tx`` on a Solana signature or on
``create_wallet``, ``eth.eip_712`` on a hex payload) raises :class:`PolicyKeywordUnavailable`
(an evaluation error, "MissingField") whatever its other clauses say. With ``strict_targets``
the same holds for ``wallet``, ``wallets``, ``private_key`` and ``wallet_account`` (the real
engine errors on ``private_key.id`` when a wallet signs); without it they read as missing.

An activity's parameters (``activity.params`` as the engine builds it, a
:class:`simulator.policy.params.Struct`) are read by their snake-case names, the camelCase
spelling as an alias; a field its activity type does not have raises :class:`FieldUnknown`
(MissingField), checked before evaluating for the chains the text names (no short-circuit) and
while evaluating for those reached through a predicate variable. ``Expression.params`` holds
those chains; :func:`simulator.policy.params.unknown_paths` finds the ones no activity type has.

Missing data otherwise: a member that is absent evaluates to None; None is unequal to
everything (``==`` is false, ``!=`` true), ordering and ``in`` involving it are false, the list
methods treat it as an empty list, and where a bool is needed (``!``, ``&&``, ``||``, predicates,
the final result) it counts as false. Type mismatches beyond that (a string compared with an int,
``call['target']`` on a positional tuple) raise :class:`PolicyEvaluationError`. An empty or blank
text is an expression that is always true.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from simulator.policy.errors import PolicyEvaluationError, PolicyKeywordUnavailable, PolicySyntaxError
from simulator.policy.evaluator import a_type, evaluate
from simulator.policy.lexer import tokenize
from simulator.policy.namespaces import UnknownKeyword, keyword_reads, unavailable, unavailable_message, with_ints
from simulator.policy.nodes import Literal, Logical, Node, free_names, render
from simulator.policy.params import FieldUnknown, check_paths, param_paths
from simulator.policy.parser import parse

__all__ = [
    "Expression",
    "FieldUnknown",
    "PolicyEvaluationError",
    "PolicyKeywordUnavailable",
    "PolicySyntaxError",
    "Verdict",
    "compile_expression",
]


@dataclass(frozen=True, slots=True)
class Verdict:
    """One evaluation: ``matched`` (false when it errored) and, when it errored, the ``error`` and
    the request-dependent keywords that were ``missing`` (empty for other evaluation errors)."""

    matched: bool
    error: str | None = None
    missing: tuple[str, ...] = ()

    @property
    def errored(self) -> bool:
        return self.error is not None


@dataclass(frozen=True, slots=True)
class Expression:
    """A compiled policy expression: its source ``text``, the AST ``root`` and the keywords it ``reads``."""

    text: str
    root: Node
    reads: frozenset[str] = frozenset()
    params: frozenset[tuple[str, ...]] = frozenset()  # the field chains read under activity.params
    double_quoted: tuple[int, ...] = ()  # offsets of string literals in double quotes (fields.field_problems)

    def evaluate(self, context: Mapping[str, Any], *, strict_targets: bool = False) -> bool:
        """Whether the expression holds for ``context``; a missing (None) result counts as false.

        Raises PolicyKeywordUnavailable when it reads a keyword the context lacks (see the module
        docstring) and PolicyEvaluationError for other run-time type errors.
        """
        if not isinstance(context, Mapping):
            raise PolicyEvaluationError(f"the context must be a mapping, got {type(context).__name__}")
        missing = unavailable(self.reads, context, strict_targets)
        if missing:
            raise PolicyKeywordUnavailable(unavailable_message(missing, context), tuple(missing))
        if self.params:
            activity = context.get("activity")
            if isinstance(activity, Mapping):
                check_paths(self.params, str(activity.get("type")), activity.get("params"))
        try:
            value = evaluate(self.root, with_ints(context, self.reads))
        except RecursionError:
            raise PolicyEvaluationError("expression nested too deeply to evaluate") from None
        if value is None or isinstance(value, bool):
            return bool(value)
        raise PolicyEvaluationError(f"expression {self.text!r} produced {a_type(value)}, not a bool")

    def check(self, context: Mapping[str, Any], *, strict_targets: bool = False) -> Verdict:
        """Like :meth:`evaluate`, but an evaluation error is a Verdict that says why instead of an exception."""
        try:
            return Verdict(self.evaluate(context, strict_targets=strict_targets))
        except PolicyKeywordUnavailable as exc:
            return Verdict(False, str(exc), exc.keywords)
        except FieldUnknown as exc:
            return Verdict(False, str(exc), (exc.path,))
        except PolicyEvaluationError as exc:
            return Verdict(False, str(exc))

    def failing_clause(self, context: Mapping[str, Any], *, strict_targets: bool = False) -> str | None:
        """The first top-level ``&&``/``||`` operand that errors on its own in ``context`` (its text), or
        the whole expression when it is a single clause that errors; None when nothing errors."""
        operands = self.root.operands if isinstance(self.root, Logical) else (self.root,)
        for operand in operands:
            part = Expression(render(operand), operand, keyword_reads(operand), param_paths(operand))
            if part.check(context, strict_targets=strict_targets).errored:
                return part.text
        return None

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
        root = parse(text)
        quoted = tuple(t.start for t in tokenize(text) if t.kind == "str" and t.quote == '"')
        return Expression(text, root, keyword_reads(root), param_paths(root), quoted)
    except UnknownKeyword as exc:  # the parser reports these with a position first; kept as a safety net
        raise PolicySyntaxError(f"unsupported construct: {exc}") from None
    except RecursionError:
        raise PolicySyntaxError("expression nested too deeply to parse") from None
