"""Serving a simulator over HTTP: SimulatorServer (simulator_server.py) on its transports, waitress (wsgi.py) or
granian (granian_server.py), behind the Host check every port passes (host_check.py).

``simulator.server`` was one module: its names are still here (``from simulator.server import SimulatorServer``).
"""

from __future__ import annotations

from simulator.paths import names_of
from simulator.server.simulator_server import (
    STOP_GRACE_SECONDS,
    SimulatorServer,
    data_dir_writer,
    guard_control_api,
    log,
    open_data_dir,
    warn_about_another_seed,
    warn_about_every_origin,
)

__all__ = [
    "STOP_GRACE_SECONDS",
    "SimulatorServer",
    "data_dir_writer",
    "guard_control_api",
    "log",
    "open_data_dir",
    "warn_about_another_seed",
    "warn_about_every_origin",
]


__getattr__ = names_of(
    __name__, "simulator.server.simulator_server"
)  # any other name the one module had (what it imported, say)
