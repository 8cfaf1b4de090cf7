"""What each field of a policy may say: its keywords, its functions, and the language's one quote.

language.mdx ("Keywords") gives each field its own keywords: ``approvers`` and ``credentials`` belong
to ``consensus``; ``activity``, the transaction namespaces and the targets (``wallet``, ...) to
``condition``; ``time.now`` and the functions ``Timestamp``/``CronSpan`` to the top-level ``time``
field (time-based-policies.mdx). Strings are single-quoted only ("Primitive": "only single quotes are
supported"). The service refuses a policy that breaks these when it is created or updated, so
:func:`field_problems` lists them for create_policy/update_policy to refuse and for a scenario file,
which loaded before the simulator knew these rules, to warn about.
"""

from __future__ import annotations

from collections.abc import Iterator

from simulator.policy.language import Expression
from simulator.policy.nodes import Call, Literal, Node, children
from simulator.policy.schemas import TARGET_KEYWORDS, TRANSACTION_ROOTS
from simulator.policy.time_window import TimeArgumentError, check_call

KEYWORDS: dict[str, frozenset[str]] = {
    "consensus": frozenset(("approvers", "credentials")),
    "condition": frozenset(("activity", *TRANSACTION_ROOTS, *TARGET_KEYWORDS)),
    "time": frozenset(("time",)),
}
POLICY_FIELDS = tuple(KEYWORDS)


def owner_of(keyword: str) -> str | None:
    """The field a keyword belongs to (None for a name that is no keyword)."""
    return next((field for field, names in KEYWORDS.items() if keyword in names), None)


def calls(node: Node) -> Iterator[Call]:
    if isinstance(node, Call):
        yield node
    for child in children(node):
        yield from calls(child)


def field_problems(expression: Expression, field: str) -> list[str]:
    """Why the service refuses ``expression`` as the policy's ``field`` (empty when it does not)."""
    problems = [
        f"the string literal at {offset} is double-quoted; the policy language has single quotes only (write 'text')"
        for offset in expression.double_quoted
    ]
    for name in sorted(expression.names()):
        owner = owner_of(name)
        if owner is not None and owner != field:
            problems.append(f"'{name}' is a keyword of the {owner} field, not of the {field} field")
        elif owner is None and field == "time":
            problems.append(f"'{name}' is not a keyword of the time field (it reads time.now, Timestamp and CronSpan)")
    for call in calls(expression.root):
        if field != "time":
            problems.append(f"{call.function}(...) at {call.start} is a function of the time field only")
            continue
        args = [arg.value if isinstance(arg, Literal) else None for arg in call.args]
        try:
            check_call(call.function, args)
        except TimeArgumentError as exc:
            problems.append(f"{exc} (at {call.start})")
    return problems
