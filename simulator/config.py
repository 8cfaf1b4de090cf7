"""Settings of one simulator instance."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

TEN_MINUTES_MS = 10 * 60 * 1000
STRICT_RESPONSES_ENV = "WALLET_SIMULATOR_STRICT_RESPONSES"  # "1": every Config defaults to strict_responses


@dataclass(frozen=True)
class Config:
    """How a simulator behaves; every field has a command-line switch of the same name.

    ``scenarios`` empty means the embedded default (scenarios/default.yaml).
    ``timestamp_window_ms`` bounds how far an activity's ``timestampMs`` may be from real time
    (either way; the client's clock is a real clock, so moving the simulated clock never breaks
    the official clients); ``liveness_clock="simulated"`` measures it against the simulated
    clock instead, for suites that stamp with simulated time; the default ``"auto"`` is real
    time, except for a clock started frozen (``frozen_clock_ms``), whose users stamp the frozen
    time; ``None`` turns the check off.
    """

    seed: int | None = None
    scenarios: tuple[Path, ...] = field(default_factory=tuple)
    auth: str = "verify"  # "verify" or "off"
    allow_unknown_fields: bool = False
    timestamp_window_ms: int | None = TEN_MINUTES_MS
    liveness_clock: str = "auto"  # "auto", "real" or "simulated": what timestampMs is checked against
    max_body_bytes: int = 2 * 1024 * 1024  # larger request bodies are refused 413 on every port
    frozen_clock_ms: int | None = None
    # activities kept: beyond it the oldest finished ones are forgotten (never one still waiting); None: all
    max_activities: int | None = 50_000
    webhook_retries: int = 5  # attempts after the first, for 5xx and network errors
    webhook_backoff_seconds: float = 1.0  # first retry delay (simulator clock), doubling each time
    # a receiver answering within this is never retried; long enough for a receiver under a debugger or a busy CI box
    webhook_timeout_seconds: float = 10.0  # per attempt: to connect, and for each read of the answer (real time)
    # the control API (/_simulator): served at all, and the token it then requires (None: none)
    control: bool = True
    control_token: str | None = None  # Authorization: Bearer <token> or X-Simulator-Control-Token: <token>
    inspector: bool = False  # the page at /_simulator/ui (with the control API only); `serve` turns it on
    # transport (simulator/wsgi.py), for every port: main (with the control API) and auth proxy
    threads: int = 8  # worker threads answering requests, shared by the ports; reading never holds one
    max_connections: int = 256  # open connections per port; more wait in the listen backlog
    header_timeout_seconds: float = 10.0  # a request's line and headers must arrive within this of its first byte
    read_timeout_seconds: float = 30.0  # for its body after the headers, and the longest a connection may idle
    # every 200 answer checked against the public swagger's response schema (simulator/responses.py): a mismatch
    # answers 500 and is kept in crashes (the pytest plugin fails the test); test suites turn it on by environment
    strict_responses: bool = field(default_factory=lambda: os.environ.get(STRICT_RESPONSES_ENV) == "1")

    def __post_init__(self) -> None:
        if self.auth not in ("verify", "off"):
            raise ValueError(f"auth must be 'verify' or 'off', got {self.auth!r}")
        if self.liveness_clock not in ("auto", "real", "simulated"):
            raise ValueError(f"liveness_clock must be 'auto', 'real' or 'simulated', got {self.liveness_clock!r}")
        if self.max_activities is not None and self.max_activities < 1:
            raise ValueError(
                f"max_activities must be at least 1 (None keeps every activity), got {self.max_activities!r}"
            )
        if not self.webhook_timeout_seconds > 0:
            raise ValueError(f"webhook_timeout_seconds must be positive, got {self.webhook_timeout_seconds!r}")
        if self.control_token is not None and not self.control_token.strip():
            raise ValueError("control_token must not be empty (None turns the token off)")

    @property
    def liveness_on_simulated_clock(self) -> bool:
        return self.liveness_clock == "simulated" or (
            self.liveness_clock == "auto" and self.frozen_clock_ms is not None
        )
