"""Checking a parsed scenario completely, every problem at once, each with its file and line.

Beyond the JSON Schema: included files (found, no cycles, their own problems), references
(quorum users, users named by policies, rules and steps, tags, policies, organizations), key
material, wallets (mnemonics, paths), policy syntax, rule types and parameters, step
operations and variables. A file's references must resolve within it and what it includes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from simulator import faults
from simulator.model import email_address
from simulator.operations import operation_names
from simulator.scenario import Scenario, ScenarioError, flow_checks, parse_scenario, resolve_scenario, schema_errors
from simulator.scenario import key_checks as km
from simulator.scenario.problems import Checker, Known, Where
from simulator.wire import Json


def check(
    scenario: Scenario,
    stack: tuple[Path, ...] = (),
    known: Known | None = None,
    warnings: list[str] | None = None,
    failing: list[str] | None = None,
) -> list[str]:
    """Every problem of ``scenario`` and of the files it includes, as ``file:line: path: problem``.

    ``known`` collects what the file declares, so that a file including it can refer to it.
    ``warnings`` collects what later checks find in a file that earlier releases loaded
    (``Checker.warn``): reported, never refused; ``failing``, those of them ``wallet-simulator check``
    fails on (``Checker.flag``: a name that names nothing).
    """
    checker = Checker(scenario, known if known is not None else Known(), warnings, failing)
    for where, message in schema_errors(scenario):
        checker.add(where, message)
    checker.schema_failed = bool(checker.found)
    if scenario.data.get("strictEmail") is True:
        checker.known.strict_email = True
    problems = includes(checker, stack + (scenario.path.resolve(),))
    for where, org in organizations(scenario.data):  # guarded: an org of the wrong shape is a schema problem already
        guarded(checker, where, lambda w=where, o=org: declare(checker, w, o))
    for where, org in organizations(scenario.data):
        guarded(checker, where, lambda w=where, o=org: organization(checker, w, o))
    guarded(checker, ("rules",), lambda: flow_checks.rules(checker))
    guarded(checker, ("steps",), lambda: flow_checks.steps(checker))
    guarded(checker, ("faults",), lambda: check_faults(checker, scenario.data.get("faults") or []))
    return problems + checker.report()


def check_faults(checker: Checker, specs: list[Json]) -> None:
    """What the schema cannot say of a fault (a latency's needed keys, a unique name): as serve would refuse it.
    Its operations came later: a name of no operation is warned of (``wallet-simulator check`` fails on it)."""
    taken: set[str] = set()
    for i, spec in enumerate(specs):
        try:
            taken.add(faults.checked(spec, taken, i + 1, strict_names=False)["name"])
        except faults.FaultError as exc:
            checker.add(("faults", i), str(exc))
            continue
        match = spec.get("match") or {}
        if "operation" in match:
            kinds = operation_names.INTERFACE_KINDS[match.get("interface", "api")]
            flow_checks.operation_names(checker, ("faults", i, "match", "operation"), match["operation"], kinds)


def guarded(checker: Checker, where: Where, action: Any) -> None:
    """Run a check; data of the wrong shape is already a schema problem, so it only stops this check."""
    try:
        action()
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        if not checker.schema_failed:
            checker.add(where, f"cannot be checked: {exc}")


def includes(checker: Checker, stack: tuple[Path, ...]) -> list[str]:
    problems: list[str] = []
    entries = checker.sc.data.get("include")
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        if not isinstance(entry, str):
            continue
        try:
            path = resolve_scenario(entry, checker.sc.path.parent)
        except ScenarioError as exc:
            checker.add(("include", i), str(exc))
            continue
        if path.resolve() in stack:
            cycle = " -> ".join(p.name for p in (*stack, path))
            checker.add(("include", i), f"includes itself ({cycle})")
            continue
        try:
            problems += check(parse_scenario(path), stack, checker.known, checker.warnings, checker.failing)
        except ScenarioError as exc:
            problems.append(str(exc))
    return problems


def organizations(data: Json, where: Where = ()) -> Iterator[tuple[Where, Json]]:
    key = "organizations" if not where else "subOrganizations"
    source = data.get(key)
    for i, org in enumerate(source if isinstance(source, list) else []):
        if isinstance(org, dict):
            yield where + (key, i), org
            yield from organizations(org, where + (key, i))


def declare(checker: Checker, where: Where, org: Json) -> None:
    known = checker.known
    for name in ("id", "name"):
        if isinstance(org.get(name), str):
            known.orgs.add(org[name])
    if isinstance(org.get("id"), str):
        if org["id"] in known.org_ids:
            checker.add(
                where + ("id",),
                f"organization id {org['id']} is used twice (also at {known.org_ids[org['id']]}); two declarations "
                "are never merged: to add to an included organization, declare it whole here instead of including "
                "it (the default one is scenarios/default.yaml)",
            )
        known.org_ids[org["id"]] = checker.sc.where(*where, "id")
    for j, user in enumerate(org.get("users") or []):
        if isinstance(user, dict):
            keys = [k for k in user.get("apiKeys") or [] if isinstance(k, dict)]
            keyed = any(k.get("privateKey") or not k.get("publicKey") for k in keys)
            ref = str(user.get("ref", user.get("name", j)))
            known.users.append({"ref": ref, "name": user.get("name"), "id": user.get("id"), "keyed": keyed})
            known.tags.update(t for t in user.get("tags") or [] if isinstance(t, str))
    known.policies.update(p["name"] for p in org.get("policies") or [] if isinstance(p, dict) and "name" in p)


def organization(checker: Checker, where: Where, org: Json) -> None:
    users = [u for u in org.get("users") or [] if isinstance(u, dict)]
    refs = [str(u.get("ref", u.get("name", j))) for j, u in enumerate(users)]
    for j, ref in enumerate(refs):
        if ref in refs[:j]:
            checker.add(where + ("users", j), f"user ref {ref!r} is used twice in this organization")
    quorum(checker, where, org.get("rootQuorum"), refs)
    for j, user in enumerate(users):
        if isinstance(user.get("email"), str):
            user_email(checker, where + ("users", j, "email"), user["email"])
        for k, spec in enumerate(user.get("apiKeys") or []):
            for sub, message in km.api_key(spec):
                checker.add(where + ("users", j, "apiKeys", k) + sub, message)
        for k, spec in enumerate(user.get("authenticators") or []):
            for sub, message in km.authenticator(spec):
                checker.add(where + ("users", j, "authenticators", k) + sub, message)
    for k, spec in enumerate(org.get("privateKeys") or []):
        for sub, message in km.private_key(spec):
            checker.add(where + ("privateKeys", k) + sub, message)
    for k, wallet in enumerate(org.get("wallets") or []):
        if isinstance(wallet, dict):
            check_wallet(checker, where + ("wallets", k), wallet)
    flow_checks.policies(checker, where, org.get("policies") or [])


def user_email(checker: Checker, where: Where, address: str) -> None:
    """An address whose domain cannot receive mail, which the service refuses: a problem under strictEmail: true,
    else a warning (a user is seeded as written, and files that wrote such addresses loaded before)."""
    refusal = email_address.unreachable(address)
    if refusal is None:
        return
    if checker.known.strict_email:
        checker.add(where, f"{refusal.message} (the service's 400 INVALID_FQDN; refused under strictEmail: true)")
        return
    checker.note(
        where,
        f"{refusal.message}: the service refuses this address (400 INVALID_FQDN); the simulator seeds it, and its API "
        f"accepts such an address with a warning ({email_address.STRICT_SWITCHES} refuse it)",
    )


def quorum(checker: Checker, where: Where, spec: Any, refs: list[str]) -> None:
    if not isinstance(spec, dict) or not isinstance(spec.get("users"), list):
        return
    unknown = [r for r in spec["users"] if r not in refs]
    if unknown:
        checker.add(where + ("rootQuorum", "users"), f"unknown user refs {unknown}; declared users: {sorted(refs)}")
    threshold = spec.get("threshold", 1)
    if isinstance(threshold, int) and not 1 <= threshold <= len(spec["users"]):
        checker.add(
            where + ("rootQuorum", "threshold"),
            f"quorum threshold must be between 1 and the number of quorum users ({len(spec['users'])}), got {threshold}",
        )


def check_wallet(checker: Checker, where: Where, wallet: Json) -> None:
    from simulator.crypto import hd

    words = wallet.get("mnemonic")
    if isinstance(words, str) and not hd.is_valid_mnemonic(words):
        checker.add(
            where + ("mnemonic",),
            "not a BIP-39 mnemonic: expected 12, 15, 18, 21 or 24 English words with a valid checksum",
        )
    seen: set[tuple[str, str, str]] = set()
    for i, account in enumerate(wallet.get("accounts") or []):
        if not isinstance(account, dict) or not isinstance(account.get("path"), str):
            continue
        try:
            hd.parse_path(account["path"])
        except ValueError as exc:
            checker.add(where + ("accounts", i, "path"), str(exc))
        key = (str(account.get("curve")), account["path"], str(account.get("addressFormat")))
        if key in seen:
            checker.add(where + ("accounts", i, "path"), "paths cannot be reused within the same HD wallet")
        seen.add(key)
