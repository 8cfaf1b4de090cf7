"""Scenario files: YAML checked completely (schema, references, keys, rules, policies, steps),
every problem named by file and line; scenarios shipped with the package are found by name."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulator.paths import data_dir
from simulator.scenario import parsed_default
from simulator.scenario.names import ScenarioError, resolve_scenario, shipped_name, shipped_scenarios

if TYPE_CHECKING:
    import yaml
    from jsonschema.exceptions import ValidationError

__all__ = [
    "Scenario",
    "ScenarioError",
    "ScenarioNameWarning",
    "ScenarioWarning",
    "load_scenario",
    "parse_scenario",
    "resolve_scenario",
    "shipped_name",
    "shipped_scenarios",
]


class ScenarioWarning(FutureWarning):
    """A file that loads, with something a later release will refuse (shown by default, as
    FutureWarning is: it is meant for the people who wrote the file)."""


class ScenarioNameWarning(ScenarioWarning):
    """A scenario warning about a name that names nothing (a fault's operation no request has), so what
    holds it never applies: the file still loads, and ``wallet-simulator check`` fails on it."""


@dataclass
class Scenario:
    path: Path
    data: dict[str, Any]
    text: str
    warnings: list[str] = field(default_factory=list)  # what later checks found; the file still loads
    failing: list[str] = field(default_factory=list)  # those of the warnings `wallet-simulator check` fails on

    @cached_property
    def root(self) -> yaml.Node:
        """The YAML node tree, for line numbers: composed when a problem is first located."""
        import yaml  # imported on first use: the embedded default comes parsed, without PyYAML

        node = yaml.compose(self.text)
        assert node is not None, "a scenario's text parsed to a mapping, so it composes to a node"
        return node

    def where(self, *path: str | int) -> str:
        """``file:line`` of the node at ``path`` (the closest existing parent if it is missing)."""
        node = self.root
        for part in path:
            child = _child(node, part)
            if child is None:
                break
            node = child
        return f"{self.path}:{node.start_mark.line + 1}"

    def line(self, *path: str | int) -> int:
        return int(self.where(*path).rsplit(":", 1)[1])

    def problem(self, path: tuple[str | int, ...], message: str) -> str:
        return f"{self.where(*path)}: {_dotted(path)}: {message}"

    def error(self, path: tuple[str | int, ...], message: str) -> ScenarioError:
        return ScenarioError(self.problem(path, message))


def load_scenario(path: Path | str, *, trusted: bool = False) -> Scenario:
    """Find (a path or a shipped name), parse and check a scenario, reporting every problem.

    Its ``include`` entries come back as absolute paths, so whoever loads them next does not
    depend on the working directory. ``trusted`` skips the checks: only for the embedded
    default, which the test suite checks, so that start-up does not pay for them.
    """
    scenario = parse_scenario(resolve_scenario(path), trusted=trusted)
    if trusted:
        return scenario
    from simulator.scenario.checks import check

    problems = check(scenario, warnings=scenario.warnings, failing=scenario.failing)
    if problems:  # refused: its warnings are listed too, so one round of fixes is enough
        every = problems + scenario.warnings
        raise ScenarioError(f"{len(problems)} problem(s) in scenario {scenario.path}:\n" + "\n".join(every))
    for text in scenario.warnings:
        warnings.warn(text, ScenarioNameWarning if text in scenario.failing else ScenarioWarning, stacklevel=2)
    return scenario


def parse_scenario(path: Path, *, trusted: bool = False) -> Scenario:
    """Read and parse one file (no checks); ``include`` entries that resolve become absolute.

    ``trusted`` (the embedded default) takes its parsed copy when the text is the one it was made from.
    """
    try:
        text = path.read_text()
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read scenario file: {exc.strerror}") from None
    data = (parsed_default.data_for(text) if trusted else None) or _parsed_yaml(path, text)
    includes = data.get("include")
    if isinstance(includes, list):
        data["include"] = [_absolute(entry, path.parent) for entry in includes]
    return Scenario(path, data, text)


def _parsed_yaml(path: Path, text: str) -> dict[str, Any]:
    import yaml  # imported on first use: serve's start-up reads the embedded default without it

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise ScenarioError(f"{path}{line}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}:1: a scenario must be a YAML mapping with an 'organizations' list (or 'include')")
    return data


def _absolute(entry: Any, base: Path) -> Any:
    if not isinstance(entry, str):
        return entry
    try:
        return str(resolve_scenario(entry, base).resolve())
    except ScenarioError:
        return entry  # left as written; the checks report it with its line


def schema_errors(scenario: Scenario) -> list[tuple[tuple[Any, ...], str]]:
    """Every JSON Schema problem as (path, message), one per unknown key at that key's line."""
    return [p for e in _validator().iter_errors(scenario.data) for p in _problems(e)]


def _problems(error: ValidationError) -> list[tuple[tuple[Any, ...], str]]:
    where = tuple(error.absolute_path)
    if error.validator != "additionalProperties":
        return [(where, error.message)]
    schema: Any = error.schema
    instance: Any = error.instance
    allowed = sorted(schema.get("properties", {}))
    extra = [k for k in instance if k not in allowed]
    return [(where + (k,), f"unknown field '{k}'; allowed here: {', '.join(allowed)}") for k in extra]


def _validator() -> Any:
    from jsonschema import Draft7Validator

    schema = json.loads((data_dir("schemas") / "scenario.json").read_text())
    return Draft7Validator(schema)


def _child(node: yaml.Node, part: str | int) -> yaml.Node | None:
    import yaml  # loaded already: the caller holds a node

    if isinstance(node, yaml.MappingNode):
        return next((v for k, v in node.value if k.value == part), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
        return node.value[part]  # type: ignore[no-any-return]
    return None


def _dotted(path: tuple[Any, ...]) -> str:
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    return text.lstrip(".") or "(top level)"
