"""The ``wallet-simulator`` command: the command itself (wallet_simulator.py: its parser, ``serve``, the ready
line), the commands that drive a running simulator (cli_commands.py) and the switches they share (cli_options.py).

``simulator.cli`` was one module: its names are still here (the console script is ``simulator.cli:main``).
"""

from __future__ import annotations

from simulator.cli.wallet_simulator import (
    config_from,
    inspector_url,
    main,
    parser,
    ready_line,
    serve_command,
    show_scenario_warnings_plainly,
    warn_if_exposed,
)
from simulator.paths import names_of

__all__ = [
    "config_from",
    "inspector_url",
    "main",
    "parser",
    "ready_line",
    "serve_command",
    "show_scenario_warnings_plainly",
    "warn_if_exposed",
]


__getattr__ = names_of(
    __name__, "simulator.cli.wallet_simulator"
)  # any other name the one module had (what it imported, say)
