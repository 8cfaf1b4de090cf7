"""The ``serve`` command's transport and control-API switches, and the client commands' token option."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from simulator.config import Config


def transport_switches(serve: argparse.ArgumentParser) -> None:
    """The HTTP transport's limits, on both ports (Config and simulator/wsgi.py say more)."""
    default = Config()
    serve.add_argument("--threads", type=positive(int), default=default.threads, help="worker threads (both ports)")
    serve.add_argument(
        "--max-connections", type=positive(int), default=default.max_connections, help="open connections per port"
    )
    serve.add_argument(
        "--max-body-bytes", type=positive(int), default=default.max_body_bytes, help="larger bodies are refused 413"
    )
    serve.add_argument(
        "--max-activities",
        type=positive(int),
        default=default.max_activities,
        metavar="N",
        help="activities kept; beyond it the oldest finished ones are forgotten (never one still waiting)",
    )
    serve.add_argument(
        "--header-timeout",
        type=positive(float),
        default=default.header_timeout_seconds,
        metavar="SECONDS",
        help="a request's line and headers must arrive within this of its first byte",
    )
    serve.add_argument(
        "--read-timeout",
        type=positive(float),
        default=default.read_timeout_seconds,
        metavar="SECONDS",
        help="a request's body must arrive within this of its headers; idle connections close after it",
    )


def positive(kind: Callable[[str], float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in "invalid int value"
    return parse


def control_switches(serve: argparse.ArgumentParser) -> None:
    """The webhook timeout and the control API's protection (Config says more)."""
    serve.add_argument(
        "--webhook-timeout",
        type=positive(float),
        default=Config().webhook_timeout_seconds,
        metavar="SECONDS",
        help="a receiver answering within this (real time) is never retried; slower answers are retried",
    )
    serve.add_argument(
        "--control-token",
        type=token_text,
        default=os.environ.get("WALLET_SIMULATOR_CONTROL_TOKEN") or None,
        metavar="TOKEN",
        help="require this token on the control API (/_simulator): 'Authorization: Bearer TOKEN' or "
        "'X-Simulator-Control-Token: TOKEN'; default: $WALLET_SIMULATOR_CONTROL_TOKEN",
    )
    serve.add_argument(
        "--no-control", dest="control", action="store_false", help="do not serve the control API (/_simulator) at all"
    )
    serve.add_argument(
        "--no-inspector",
        dest="inspector",
        action="store_false",
        help="do not serve the inspector page (/_simulator/ui; it needs the control API, so --no-control ends it too)",
    )


def token_text(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def control_token_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--control-token",
        default=os.environ.get("WALLET_SIMULATOR_CONTROL_TOKEN"),
        help="the token the simulator's control API requires (default: $WALLET_SIMULATOR_CONTROL_TOKEN)",
    )
