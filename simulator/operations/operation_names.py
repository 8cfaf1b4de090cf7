"""What a name a user wrote for an operation means: a fault's or a rule's ``match.operation``, a journal
assertion's ``op``, a CLI word.

An operation is named as in its URL (``/public/v1/query/list_wallets`` is ``list_wallets``, the auth proxy's
``/v1/otp_init`` is ``otp_init``): the catalogue's names. A name that names nothing used to be taken as
it was and matched nothing, so a fault on it never fired and an assertion that it was not called always
passed. Now each surface resolves the name here: an official client's method name (``get_wallets``,
``getWallets``: ``list_wallets``; simulator/operations/operation_aliases.py, generated from the clients) stands for
the operation it calls, and any other name is refused (a scenario file warns) naming the closest operations.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from simulator.operations import catalogue
from simulator.operations.catalogue import Kind
from simulator.operations.operation_aliases import ALIASES, AMBIGUOUS

API = (Kind.SUBMIT, Kind.QUERY)  # the main interface's /public/v1/submit/... and /public/v1/query/...
PROXY = (Kind.PROXY,)  # the auth proxy's /v1/...
EVERY = API + PROXY
INTERFACE_KINDS = {"api": API, "authProxy": PROXY}  # a fault's match.interface
SUGGESTED = 3  # the closest operations a refusal names


class UnknownOperation(ValueError):
    """A name that is no operation's, nor a client's method name for one; the message names the closest."""


@dataclass(frozen=True)
class Resolved:
    """What ``name`` means among operations of some kinds."""

    name: str  # as written
    operation: str | None  # the operation it names; None: it names none of these kinds
    problem: str = ""  # empty for an operation's own name; else what is wrong, or the alias's operation

    @property
    def alias(self) -> bool:
        return self.operation is not None and self.operation != self.name


@cache
def names_of(kinds: tuple[Kind, ...]) -> frozenset[str]:
    return frozenset(op.name for kind in kinds for op in catalogue.of_kind(kind))


def resolve(name: str, kinds: tuple[Kind, ...] = EVERY) -> Resolved:
    """The operation ``name`` means among ``kinds``: its own name, or an unambiguous client method's."""
    known = names_of(kinds)
    if name in known:
        return Resolved(name, name)
    aliased = ALIASES.get(name)
    if aliased in known:
        return Resolved(name, aliased, f"{name!r} is an official client's method name for {aliased}")
    if name in AMBIGUOUS:
        meant = "; ".join(f"{', '.join(clients)}: {op}" for op, clients in AMBIGUOUS[name].items())
        return Resolved(name, None, f"{name!r} calls different operations in different clients ({meant}): name one")
    elsewhere = other_kind(name, kinds)
    if elsewhere:
        return Resolved(name, None, elsewhere)
    close = closest(name, kinds)
    hint = f"; the closest: {', '.join(close)}" if close else ""
    return Resolved(
        name,
        None,
        f"no operation is named {name!r} (name it as in its URL: /public/v1/query/list_wallets is list_wallets){hint}",
    )


def operation(name: str, kinds: tuple[Kind, ...] = EVERY) -> str:
    """The operation ``name`` means, an alias taken as its operation; UnknownOperation otherwise."""
    found = resolve(name, kinds)
    if found.operation is None:
        raise UnknownOperation(found.problem)
    return found.operation


def other_kind(name: str, kinds: tuple[Kind, ...]) -> str:
    """Why a name of an operation of another interface names nothing here (a fault's match.interface)."""
    if kinds == EVERY:
        return ""
    found = resolve(name, EVERY)
    if found.operation is None:
        return ""
    proxy = found.operation in names_of(PROXY)
    where = "the auth proxy (match.interface: authProxy)" if proxy else "the main interface (match.interface: api)"
    named = f"{name!r} is" if found.operation == name else f"{name!r} names {found.operation},"
    return f"{named} an operation of {where}, not of this interface"


def closest(name: str, kinds: tuple[Kind, ...]) -> list[str]:
    """The operations whose names, or whose client method names, are nearest ``name`` (written snake_case):
    the nearest there are, however far, so that a refusal always shows what names look like."""
    known = names_of(kinds)
    spelled = {**{a: op for a, op in ALIASES.items() if op in known}, **{op: op for op in known}}
    candidates = {snake(n): op for n, op in spelled.items()}
    found: list[str] = []
    for near in difflib.get_close_matches(snake(name), list(candidates), n=SUGGESTED * 3, cutoff=0.0):
        if candidates[near] not in found:
            found.append(candidates[near])
    return found[:SUGGESTED]


def snake(name: str) -> str:
    """``getWallets``, ``get-wallets``, ``GET_WALLETS`` as ``get_wallets``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).replace("-", "_").lower()


def operations(value: str | Iterable[str], kinds: tuple[Kind, ...] = EVERY) -> str | list[str]:
    """A ``match.operation`` (a name or a list) with each name its operation's; UnknownOperation otherwise."""
    if isinstance(value, str):
        return operation(value, kinds)
    return [operation(name, kinds) for name in value]
