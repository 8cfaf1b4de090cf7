"""Where the data folders (schemas, scenarios, fixtures) are, installed or in a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """``simulator/_data/<name>`` in an installed wheel, else ``<repo>/<name>`` in a checkout."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"the simulator's {name}/ folder is missing: looked in {_PACKAGE / '_data' / name} "
        f"and {_PACKAGE.parent / name}; reinstall the package"
    )
