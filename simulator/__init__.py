"""A local, protocol-level simulator of Turnkey's public API (and, later, its auth proxy)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simulator.app import create_app
    from simulator.config import Budget, Config, RateLimits
    from simulator.core import Simulator
    from simulator.errors import ApiError
    from simulator.scenario import ScenarioError, ScenarioWarning, load_scenario
    from simulator.server import SimulatorServer

__all__ = [
    "ApiError",
    "Budget",
    "Config",
    "RateLimits",
    "ScenarioError",
    "ScenarioWarning",
    "Simulator",
    "SimulatorServer",
    "create_app",
    "load_scenario",
]

# Each name's module, imported on first use: `import simulator.cli` (every command, and serve's start-up)
# would otherwise load the whole simulator through this package's __init__.
_HOMES = {
    "ApiError": "simulator.errors",
    "Budget": "simulator.config",
    "Config": "simulator.config",
    "RateLimits": "simulator.config",
    "ScenarioError": "simulator.scenario",
    "ScenarioWarning": "simulator.scenario",
    "Simulator": "simulator.core",
    "SimulatorServer": "simulator.server",
    "create_app": "simulator.app",
    "load_scenario": "simulator.scenario",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'simulator' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
