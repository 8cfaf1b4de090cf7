"""The ``wallet-simulator`` command: the command itself (wallet_simulator.py: its parser, ``serve``, the ready
line), the commands that drive a running simulator (cli_commands.py) and the switches they share (cli_options.py).

``simulator.cli`` was one module: its names are still here (the console script is ``simulator.cli:main``).
"""

from __future__ import annotations

from typing import Any

from simulator.cli import wallet_simulator
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


def __getattr__(name: str) -> Any:
    # any other name the one module had (what it imported, say)
    try:
        return getattr(wallet_simulator, name)
    except AttributeError:
        raise AttributeError(f"module 'simulator.cli' has no attribute {name!r}") from None
