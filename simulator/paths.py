"""Where things are: the data folders (schemas, scenarios, fixtures), installed or in a checkout, and the
names a folder serves for the one module whose name it took."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def names_of(package: str, module: str, refused: Callable[[str], bool] = lambda name: False) -> Callable[[str], Any]:
    """The ``__getattr__`` of a folder that took the name of the one module it replaced (``simulator.cli``,
    ``.control``, ``.server``, ``.testing``): any name that module had, looked up in ``module`` (imported on
    first use) unless ``refused`` says the package itself must not have it."""

    def __getattr__(name: str) -> Any:
        if not refused(name):
            try:
                return getattr(importlib.import_module(module), name)
            except AttributeError:
                pass
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
