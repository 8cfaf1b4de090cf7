"""Checks of what a scenario scripts: policies (syntax, users they name), rules and replay steps."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from simulator.scenario.api_names import catalog

if TYPE_CHECKING:
    from simulator.operations.catalogue import Kind
    from simulator.policy.nodes import Node
    from simulator.scenario.problems import Checker, Where

VARIABLE = re.compile(r"\$\{([A-Za-z0-9_.-]+)\}")


def policies(checker: Checker, where: Where, specs: list[Any]) -> None:
    from simulator.policy.fields import field_problems
    from simulator.policy.language import PolicySyntaxError, compile_expression
    from simulator.policy.lint import warnings_of

    names: list[Any] = []
    for i, spec in enumerate(s for s in specs if isinstance(s, dict)):
        at = where + ("policies", i)
        if spec.get("name") in names:
            checker.add(at + ("name",), f"policy name {spec['name']!r} is used twice in this organization")
        names.append(spec.get("name"))
        for warning in warnings_of(spec):
            checker.note(at, warning)
        for part in ("condition", "consensus", "time"):
            if not isinstance(spec.get(part), str):
                continue
            try:
                expression = compile_expression(spec[part])
            except PolicySyntaxError as exc:
                checker.add(at + (part,), f"not a policy expression the simulator evaluates: {exc}")
                continue
            unknown_params(checker, at + (part,), expression.root)
            for problem in field_problems(expression, part):
                # create_policy refuses these, as the service does; a file that loaded before still loads
                checker.warn(
                    at + (part,),
                    f"{problem} (the policy is loaded, but create_policy refuses it as the service does)",
                    "single quotes for strings; approvers/credentials in consensus, the rest in condition",
                )
            for user_id in approver_ids(expression.root):
                if not any(u["id"] == user_id for u in checker.known.users):
                    fixed = sorted(u["id"] for u in checker.known.users if u["id"])
                    checker.add(
                        at + (part,),
                        f"names user id {user_id!r}, which no user of the scenario has; users with fixed ids: "
                        f"{', '.join(fixed) or 'none (give a user an id: to name it in a policy)'}",
                    )


def unknown_params(checker: Checker, where: Where, root: Node) -> None:
    """``activity.params`` fields no activity type has: create_policy refuses them; a scenario file
    that loaded before still loads (a new strictness warns before it refuses)."""
    from simulator.policy.params import unknown_paths

    for problem in unknown_paths(root):
        checker.warn(
            where,
            f"{problem} (the policy is loaded, but every evaluation of it errors with MissingField, and "
            "create_policy refuses it)",
            "name a field the activity type has (snake_case, as the service's policy language does)",
        )


def approver_ids(node: Node, bound: frozenset[str] = frozenset()) -> Iterator[str]:
    """String literals compared with an approver's ``.id`` (``approvers.any(u, u.id == '...')``)."""
    from simulator.policy import nodes

    if isinstance(node, nodes.Predicate):
        over_approvers = isinstance(node.target, nodes.Name) and node.target.name == "approvers"
        yield from approver_ids(node.target, bound)
        yield from approver_ids(node.body, bound | {node.var} if over_approvers else bound - {node.var})
        return
    if isinstance(node, nodes.Compare) and node.op in ("==", "!=", "in"):
        sides = [(node.left, node.right), (node.right, node.left)] if node.op != "in" else [(node.left, node.right)]
        for member, other in sides:
            if is_approver_id(member, bound):
                literals = other.items if isinstance(other, nodes.ListLiteral) else (other,)
                yield from (
                    lit.value for lit in literals if isinstance(lit, nodes.Literal) and isinstance(lit.value, str)
                )
    for child in nodes.children(node):
        yield from approver_ids(child, bound)


def is_approver_id(node: Node, bound: frozenset[str]) -> bool:
    from simulator.policy import nodes

    return (
        isinstance(node, nodes.Member)
        and node.name == "id"
        and isinstance(node.target, nodes.Name)
        and node.target.name in bound
    )


def rules(checker: Checker) -> None:
    found = checker.sc.data.get("rules")
    for i, rule in enumerate(found if isinstance(found, list) else []):
        if not isinstance(rule, dict):
            continue
        if rule.get("name") in checker.known.rules:
            checker.add(("rules", i, "name"), f"rule name {rule['name']!r} is used twice")
        checker.known.rules.add(rule.get("name"))
        match: dict[str, Any] = rule["match"] if isinstance(rule.get("match"), dict) else {}
        types = rule_types(checker, ("rules", i, "match", "type"), match.get("type"))
        rule_parameters(checker, ("rules", i, "match", "parameters"), types, match.get("parameters"))
        rule_references(checker, ("rules", i), rule, match)
        rate_limited_fields(checker, ("rules", i), rule, match)


def rate_limited_fields(checker: Checker, where: Where, rule: dict[str, Any], match: dict[str, Any]) -> None:
    """``match.operation`` and ``budget`` belong to ``rateLimited`` rules (consensus/throttle), and an
    operation must be one the public API has (refused since rules could name one; a client's method name
    for one is taken as it, with a warning naming the operation)."""
    from simulator.operations import operation_names as names

    if rule.get("outcome") != "rateLimited":
        for field, path in (("budget", ("budget",)), ("operation", ("match", "operation"))):
            if field in (rule if field == "budget" else match):
                checker.add(where + path, f"{field} applies to outcome rateLimited only, not {rule.get('outcome')!r}")
        return
    if "operation" in match:
        operation_names(checker, where + ("match", "operation"), match["operation"], names.API, refuse=True)


def operation_names(checker: Checker, where: Where, value: Any, kinds: tuple[Kind, ...], refuse: bool = False) -> None:
    """Each name of a ``match.operation`` (a fault's, a rateLimited rule's): a client's method name for an
    operation is noted with the operation's name; a name of no operation is flagged (``refuse``: refused)."""
    from simulator.operations import operation_names as names

    written = [value] if isinstance(value, str) else [v for v in value or [] if isinstance(v, str)]
    for i, name in enumerate(written):
        at = where if isinstance(value, str) else where + (i,)
        found = names.resolve(name, kinds)
        if found.alias:
            checker.note(at, f"{found.problem}: write {found.operation}")
        elif found.operation is None and refuse:
            checker.add(at, found.problem)
        elif found.operation is None:
            checker.flag(at, f"{found.problem}: it matches no request", "name the operation as in its URL")


def rule_types(checker: Checker, where: Where, value: Any) -> list[str] | None:
    """The rule's types when all are known (None: no type, or an unknown one reported)."""
    if value is None:
        return None
    types = [value] if isinstance(value, str) else [t for t in value if isinstance(t, str)]
    known = catalog()
    unknown = [t for t in types if not known.knows_type(t)]
    for name in unknown:
        close = known.closest_types(name)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        checker.add(
            where,
            f"unknown activity type {name!r}{hint} (expected a type such as ACTIVITY_TYPE_CREATE_WALLET, "
            "or a kind such as CREATE_WALLET)",
        )
    return None if unknown else types


def rule_parameters(checker: Checker, where: Where, types: list[str] | None, wanted: Any) -> None:
    if not types or not isinstance(wanted, dict):
        return
    allowed = frozenset().union(*(catalog().parameters_of(t) for t in types))
    for key in wanted:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            checker.add(
                where + (key,),
                f"{key!r} is not a parameter of {', '.join(types)}{hint} (its parameters: {', '.join(sorted(allowed))})",
            )


def rule_references(checker: Checker, where: Where, rule: dict[str, Any], match: dict[str, Any]) -> None:
    """Names a rule refers to that the scenario does not declare. These checks came after rules
    shipped, and the README's own examples named users, tags and policies of other files, so they
    warn: a rule naming no one matches nothing, and an approver is refused when the rule applies."""
    known = checker.known
    users = ", ".join(known.user_names()) or "none"
    declare = "declare it in this file or one it includes, or remove the reference"
    if isinstance(match.get("user"), str) and known.user(match["user"]) is None:
        checker.warn(where + ("match", "user"), f"no user {match['user']!r} in the scenario; users: {users}", declare)
    if isinstance(match.get("userTag"), str) and match["userTag"] not in known.tags:
        tags = ", ".join(sorted(known.tags)) or "none"
        checker.warn(
            where + ("match", "userTag"), f"no user has the tag {match['userTag']!r}; user tags: {tags}", declare
        )
    if isinstance(match.get("organization"), str) and match["organization"] not in known.orgs:
        orgs = ", ".join(sorted(known.orgs)) or "none"
        checker.warn(
            where + ("match", "organization"), f"no organization {match['organization']!r}; known: {orgs}", declare
        )
    for j, ref in enumerate(rule.get("approvers") or []):
        if known.user(ref) is None:
            checker.warn(
                where + ("approvers", j), f"approver {ref!r} is not a user of the scenario; users: {users}", declare
            )
    deny: dict[str, Any] = rule["deny"] if isinstance(rule.get("deny"), dict) else {}
    for j, name in enumerate(deny.get("policies") or []):
        if name not in known.policies:
            names = ", ".join(sorted(known.policies)) or "none"
            checker.warn(
                where + ("deny", "policies", j), f"no policy {name!r} in the scenario; policies: {names}", declare
            )


def steps(checker: Checker) -> None:
    found = checker.sc.data.get("steps")
    captured: list[str] = []
    for i, step in enumerate(found if isinstance(found, list) else []):
        if not isinstance(step, dict):
            continue
        step_operation(checker, ("steps", i), step)
        step_user(checker, ("steps", i, "as"), step.get("as"))
        for name in sorted(used_variables({k: v for k, v in step.items() if k != "capture"})):
            if name not in captured:
                checker.add(
                    ("steps", i),
                    f"uses ${{{name}}}, which no earlier step captures (captured so far: {', '.join(captured) or 'none'})",
                )
        captured += [k for k in (step.get("capture") or {}) if isinstance(k, str)]


def step_operation(checker: Checker, where: Where, step: dict[str, Any]) -> None:
    known = catalog()
    if isinstance(step.get("submit"), str):
        op = step["submit"]
        if op not in known.submit_types:
            close = difflib.get_close_matches(op, sorted(known.submit_types), n=2)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            checker.add(where + ("submit",), f"unknown activity operation {op!r}{hint}")
        elif isinstance(step.get("type"), str) and step["type"] not in known.submit_types[op]:
            takes = " or ".join(known.submit_types[op])
            checker.add(where + ("type",), f"{op} takes {takes}, not {step['type']}")
    elif isinstance(step.get("query"), str) and step["query"] not in known.queries:
        close = difflib.get_close_matches(step["query"], sorted(known.queries), n=2)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        checker.add(where + ("query",), f"unknown query {step['query']!r}{hint}")


def step_user(checker: Checker, where: Where, name: Any) -> None:
    if not isinstance(name, str):
        return
    user = checker.known.user(name)
    if user is None or not user["keyed"]:
        with_keys = ", ".join(checker.known.user_names(keyed=True)) or "none"
        why = "no user" if user is None else "no API key pair whose private key is known for user"
        checker.add(where, f"{why} {name!r}; users whose requests a replay can stamp: {with_keys}")


def used_variables(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(used_variables(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(used_variables(v) for v in value)) if value else set()
    return set(VARIABLE.findall(value)) if isinstance(value, str) else set()
