"""What the scenario checks share: the names a file may refer to, and the problems found."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simulator.scenario import Scenario
from simulator.wire import Json

Where = tuple[str | int, ...]


@dataclass
class Known:
    """Names a file may refer to: declared in it or in what it includes."""

    users: list[Json] = field(default_factory=list)  # ref, name, id, keyed
    tags: set[str] = field(default_factory=set)
    policies: set[str] = field(default_factory=set)
    orgs: set[str] = field(default_factory=set)
    org_ids: dict[str, str] = field(default_factory=dict)  # id -> file:line
    rules: set[Any] = field(default_factory=set)

    def user(self, ref: str) -> Json | None:
        return next((u for u in self.users if ref in (u["name"], u["id"], u["ref"])), None)

    def user_names(self, keyed: bool = False) -> list[str]:
        return sorted({u["name"] or u["ref"] for u in self.users if u["keyed"] or not keyed})


class Checker:
    def __init__(
        self, scenario: Scenario, known: Known, warnings: list[str] | None = None, failing: list[str] | None = None
    ) -> None:
        self.sc, self.known = scenario, known
        self.found: list[tuple[int, str]] = []
        self.warnings = warnings if warnings is not None else []
        self.failing = failing if failing is not None else []  # the warnings `wallet-simulator check` fails on
        self.schema_failed = False

    def add(self, where: Where, message: str) -> None:
        self.found.append((self.sc.line(*where), self.sc.problem(where, message)))

    def warn(self, where: Where, message: str, update: str) -> None:
        """A problem that a check added after the format shipped finds: files that loaded before
        must keep loading, so it is reported, with how to update (``update``), instead of refusing."""
        self.warnings.append(
            self.sc.problem(
                where,
                f"{message} [warning: the file still loads, but a later "
                f"release will refuse this; {update}; see docs/changelog.md]",
            )
        )

    def flag(self, where: Where, message: str, update: str) -> None:
        """A warning (:meth:`warn`) about a name that names nothing, so that what holds it never applies
        (a fault on no operation never fires): the file loads, and ``wallet-simulator check`` fails on it."""
        self.warn(where, message, update)
        self.failing.append(self.warnings[-1])

    def note(self, where: Where, message: str) -> None:
        """A warning that never becomes a refusal (a policy the docs' own example misleads into never
        matching): reported like :meth:`warn`, without the promise of a later refusal."""
        self.warnings.append(self.sc.problem(where, f"{message} [warning]"))

    def report(self) -> list[str]:
        return [text for _, text in sorted(self.found, key=lambda item: item[0])]
