"""Warnings for policies that parse and evaluate but can never match as their author meant.

Turnkey's own examples contradict the language's rules in a few places (docs/ledger/
policy-docs-contradictions.md): ``eth.tx.chain_id == '8453'`` compares an int field with a string,
the EIP-7702 examples compare ``chain_id``/``nonce`` with strings, the WETH and Permit2 examples
write checksummed (mixed-case) addresses although the engine holds hex in lowercase, and
``eth.tx.data == '0x'`` tests for empty calldata that the engine holds as ``''``. The simulator
evaluates what the rules imply (such a comparison is false), and says so: create_policy writes
these warnings to the simulator's log, ``wallet-simulator check`` prints them for a scenario's
policies, and ``explain`` and the inspector show them beside the policy's evaluation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from simulator.policy.errors import PolicySyntaxError
from simulator.policy.language import compile_expression
from simulator.policy.namespaces import chain_of
from simulator.policy.nodes import Compare, ListLiteral, Literal, Name, Node, children
from simulator.policy.params import ROOT, descend, exposed_shapes, first_unknown, param_paths, shapes
from simulator.policy.params_table import SOURCE as PARAMS_SOURCE
from simulator.policy.schemas import INT, NAMESPACES

MIXED_HEX = re.compile(r"0x[0-9a-fA-F]*[A-F][0-9a-fA-F]*")
FIELDS = ("condition", "consensus", "time")


def warnings_of(spec: Mapping[str, Any]) -> list[str]:
    """The warnings for a policy's fields (``condition``, ``consensus``, ``time``), in field order."""
    found: list[str] = []
    for field in FIELDS:
        text = spec.get(field)
        if not isinstance(text, str) or not text.strip():
            continue
        try:
            root = compile_expression(text).root
        except PolicySyntaxError:
            continue  # refused or reported elsewhere
        found.extend(f"{field}: {warning}" for warning in expression_warnings(root))
    return found


def expression_warnings(root: Node) -> list[str]:
    """Why comparisons in ``root`` can never be true as written (deduplicated, in text order)."""
    seen: list[str] = []
    for warning in [*_walk(root), *unexposed(root)]:
        if warning not in seen:
            seen.append(warning)
    return seen


def _walk(node: Node) -> Iterator[str]:
    if isinstance(node, Compare):
        yield from _compare(node)
    if isinstance(node, Literal) and isinstance(node.value, str) and MIXED_HEX.fullmatch(node.value):
        yield (
            f"'{node.value}' is mixed-case hex; the policy engine holds addresses and hex data in "
            f"lowercase, so a comparison with it is never true (write '{node.value.lower()}')"
        )
    for child in children(node):
        yield from _walk(child)


def _compare(node: Compare) -> Iterator[str]:
    for side, other in ((node.left, node.right), (node.right, node.left)):
        path = int_field(side)
        literals = other.items if isinstance(other, ListLiteral) else (other,)
        for literal in literals:
            if path and isinstance(literal, Literal) and isinstance(literal.value, str):
                spelled = literal.value if literal.value.isdigit() else "<number>"
                yield (
                    f"{path} is an int and is compared with the string '{literal.value}'; an int never "
                    f"equals a string, so this comparison is never true (write {spelled} without quotes)"
                )
        if _names(side, ("eth", "tx", "data")) and isinstance(other, Literal) and other.value == "0x":
            yield (
                "eth.tx.data is compared with '0x', but the engine holds empty calldata as '' (write eth.tx.data == '')"
            )


def unexposed(root: Node) -> Iterator[str]:
    """``activity.params`` paths a request has but no activity type exposes to policies (MissingField)."""
    exposed, requested = exposed_shapes().values(), shapes().values()
    for path in sorted(param_paths(root)):
        known = any(first_unknown(shape, path) is None for shape in requested)  # else refused: unknown_paths
        if known and not any(first_unknown(shape, path) is None for shape in exposed):
            yield (
                f"{'.'.join((ROOT, *path))} is not exposed to policies for any activity type, so every "
                f"evaluation of this policy errors with MissingField (the exposed fields: {PARAMS_SOURCE})"
            )


def _names(node: Node, wanted: tuple[str, ...]) -> bool:
    base, steps, _ = chain_of(node)
    return isinstance(base, Name) and (base.name, *steps) == wanted


def int_field(node: Node) -> str | None:
    """The dotted path of ``node`` when it reads a documented int field (eth.tx.chain_id, ...)."""
    base, steps, _ = chain_of(node)
    if not isinstance(base, Name) or len(steps) < 2:
        return None
    if base.name == "activity" and steps[0] == "params":
        path = tuple(steps[1:])
        for shape in shapes().values():
            if first_unknown(shape, path) is None and _shape_at(shape, path) == "int":
                return ".".join((ROOT, *path))
        return None
    namespace = NAMESPACES.get(f"{base.name}.{steps[0]}")
    if namespace is None:
        return None
    schema: Any = namespace.ints
    for step in steps[1:]:
        if not isinstance(schema, dict) or step not in schema:
            return None
        schema = schema[step]
    return ".".join((base.name, *steps)) if schema == INT else None


def _shape_at(shape: Any, path: tuple[str, ...]) -> str | None:
    reached, at = descend(shape, path)
    return str(at.kind) if reached == len(path) else None
