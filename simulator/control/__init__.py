"""The control API (``/_simulator``): its one table (control_surface.py), its views (views.py), the scenario
files it loads (control_scenarios.py) and the client for it (control_client.py).

``simulator.control`` was the views' module: its names are still found here, imported on first use, so
that the client (``simulator.control.control_client``) stays light to import.
"""

from __future__ import annotations

from simulator.paths import names_of

# ``from simulator.control import control_client`` imports the submodule, never the views
_SUBMODULES = {"control_client", "control_scenarios", "control_surface", "views"}

__getattr__ = names_of(
    __name__, "simulator.control.views", refused=lambda name: name.startswith("__") or name in _SUBMODULES
)
