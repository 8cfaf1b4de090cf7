"""The embedded default scenario, parsed ahead, so that serve's start-up need not load PyYAML.

``parsed_default.json`` holds what PyYAML's ``safe_load`` makes of scenarios/default.yaml, with
the SHA-256 of the text it was made from. ``data_for`` gives it only for that exact text: an
edited default (in a checkout) is parsed as YAML, as before, only slower. Rewrite it with
``python -m simulator.scenario.parsed_default``; tests/cli/test_startup_imports.py fails while it is stale.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

PARSED = Path(__file__).with_name("parsed_default.json")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def data_for(text: str) -> dict[str, Any] | None:
    """The parsed data of ``text`` when it is the text the file was made from, else None."""
    try:
        stored = json.loads(PARSED.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("sha256") != digest(text):
        return None
    data = stored.get("data")
    return data if isinstance(data, dict) else None


def refresh(source: Path) -> None:
    """Rewrite the parsed copy from ``source``; refuses a file JSON cannot hold as PyYAML parses it."""
    import yaml  # only this maintenance step reads the YAML

    text = source.read_text()
    data = yaml.safe_load(text)
    try:
        same = json.loads(json.dumps(data)) == data
    except TypeError:  # dates, sets, bytes
        same = False
    if not same or not isinstance(data, dict):
        raise ValueError(f"{source}: its data cannot be kept as JSON unchanged (dates, non-string keys...)")
    PARSED.write_text(json.dumps({"sha256": digest(text), "data": data}, indent=1) + "\n")


if __name__ == "__main__":
    from simulator.paths import data_dir

    refresh(data_dir("scenarios") / "default.yaml")
