"""Finding a scenario file: a path, or the name of a scenario shipped with the package.

``two_of_three_quorum``, ``two_of_three_quorum.yaml`` and the README's older spelling
``scenarios/two_of_three_quorum.yaml`` all name the shipped file when no such file exists
where they point, so a downstream project can use them without a copy of this repository.
"""

from __future__ import annotations

import os
from pathlib import Path

from simulator.paths import data_dir


class ScenarioError(ValueError):
    """A scenario file that cannot be loaded; the message names the file, line and problem."""


SUFFIXES = (".yaml", ".yml")


def shipped_scenarios() -> dict[str, Path]:
    """The scenarios shipped with the package, by name (the file name without ``.yaml``)."""
    return {p.stem: p for p in sorted(data_dir("scenarios").glob("*.yaml"))}


def shipped_name(path: Path) -> str | None:
    """The name of a shipped scenario when ``path`` is that shipped file, else None."""
    try:
        resolved = path.resolve()
    except OSError:
        return None
    return next((name for name, p in shipped_scenarios().items() if p.resolve() == resolved), None)


def resolve_scenario(ref: str | os.PathLike[str], base: Path | None = None) -> Path:
    """The scenario file ``ref`` names: a path (relative to ``base``, else to the working
    directory), or a shipped scenario's name. Raises :class:`ScenarioError` naming both places
    it looked and the shipped names."""
    path = Path(ref)
    candidates = [path] if path.is_absolute() or base is None else list(dict.fromkeys([base / path, path]))
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    shipped = _shipped_for(path)
    if shipped is not None:
        return shipped
    looked = " or ".join(str(c) for c in candidates)
    raise ScenarioError(
        f"{ref}: cannot read scenario file: no file at {looked}, and no shipped scenario of that name; "
        f"shipped scenarios: {', '.join(shipped_scenarios())}"
    )


def _shipped_for(path: Path) -> Path | None:
    if path.is_absolute() or path.parent not in (Path("."), Path("scenarios")):
        return None
    stem = path.stem if path.suffix in SUFFIXES else path.name
    return shipped_scenarios().get(stem)
