"""The fidelity ledger's side of a diff: which differences it already records, and a draft entry for each of
the others, in the shape of ``docs/ledger/*.yaml`` (``tools/fidelity_ledger.py`` says what each key means).

A difference is known when an entry's ``id`` is the difference's ``ledger_id`` (kebab-case, made of the
operation, what differs and where), so a filed draft silences that difference in every later run.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from simulator.parity.compare import Difference

PROJECT_LEDGER = Path(__file__).resolve().parents[2] / "docs" / "ledger"  # a checkout's; an installed package has none


def default_ledgers() -> list[Path]:
    """The working directory's ``docs/ledger`` and the project's (in a checkout), those that exist."""
    found: list[Path] = []
    for place in (Path("docs") / "ledger", PROJECT_LEDGER):
        if place.is_dir() and all(place.resolve() != p.resolve() for p in found):
            found.append(place)
    return found


def known_ids(places: Iterable[Path]) -> set[str]:
    """Every entry id in the YAML files of these folders (or these files)."""
    import yaml

    ids: set[str] = set()
    for place in places:
        files = sorted(place.glob("*.yaml")) if place.is_dir() else [place]
        for path in files:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
            for entry in data if isinstance(data, list) else [data]:
                if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                    ids.add(entry["id"])
    return ids


def draft(difference: Difference, upstream: str) -> dict[str, Any]:
    where = f" at {difference.path}" if difference.path and difference.path.replace(".", " ") != difference.kind else ""
    return {
        "id": difference.ledger_id,
        "behaviour": f"{difference.operation}: {difference.kind}{where} (exchange {difference.number} of the run).",
        "source": f"observed on the real service (wallet-simulator parity record, upstream {upstream})",
        "service": difference.real,
        "simulator": difference.simulated,
        "status": "difference",
        "reason": "to fill in: why the simulator differs here, or the fix to make",
        "tests": [],
    }
