"""Scenario files: YAML checked against schemas/scenario.json, errors named by file and line."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from simulator.paths import data_dir

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError


class ScenarioError(ValueError):
    """A scenario file that cannot be loaded; the message names the file, line and problem."""


@dataclass
class Scenario:
    path: Path
    data: dict[str, Any]
    root: yaml.Node

    def where(self, *path: str | int) -> str:
        """``file:line`` of the node at ``path`` (the closest existing parent if it is missing)."""
        node = self.root
        for part in path:
            child = _child(node, part)
            if child is None:
                break
            node = child
        return f"{self.path}:{node.start_mark.line + 1}"

    def error(self, path: tuple[str | int, ...], message: str) -> ScenarioError:
        return ScenarioError(f"{self.where(*path)}: {_dotted(path)}: {message}")


def load_scenario(path: Path, *, trusted: bool = False) -> Scenario:
    """Parse and check a scenario file, reporting every schema problem with its line.

    ``trusted`` skips the schema check: only for the embedded default, which the test suite
    checks, so that start-up does not pay for importing jsonschema.
    """
    try:
        text = path.read_text()
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read scenario file: {exc.strerror}") from None
    try:
        root = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise ScenarioError(f"{path}{line}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if root is None or not isinstance(data, dict):
        raise ScenarioError(f"{path}:1: a scenario must be a YAML mapping with an 'organizations' list (or 'include')")
    scenario = Scenario(path, data, root)
    if trusted:
        return scenario
    problems = [p for e in _validator().iter_errors(data) for p in _problems(e)]
    if problems:
        lines = [
            f"{scenario.where(*where)}: {_dotted(where)}: {message}" for where, message in sorted(problems, key=str)
        ]
        raise ScenarioError(f"{len(lines)} problem(s) in scenario {path}:\n" + "\n".join(lines))
    return scenario


def _problems(error: ValidationError) -> list[tuple[tuple[Any, ...], str]]:
    """One problem per unknown key (at that key's line), else the error where it occurred."""
    where = tuple(error.absolute_path)
    if error.validator != "additionalProperties":
        return [(where, error.message)]
    allowed = sorted(error.schema.get("properties", {}))
    extra = [k for k in error.instance if k not in allowed]
    return [(where + (k,), f"unknown field '{k}'; allowed here: {', '.join(allowed)}") for k in extra]


def _validator() -> Any:
    from jsonschema import Draft7Validator

    schema = json.loads((data_dir("schemas") / "scenario.json").read_text())
    return Draft7Validator(schema)


def _child(node: yaml.Node, part: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        return next((v for k, v in node.value if k.value == part), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
        return node.value[part]  # type: ignore[no-any-return]
    return None


def _dotted(path: tuple[Any, ...]) -> str:
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    return text.lstrip(".") or "(top level)"
