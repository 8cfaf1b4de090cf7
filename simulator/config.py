"""Settings of one simulator instance."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

TEN_MINUTES_MS = 10 * 60 * 1000


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
    max_body_bytes: int = 2 * 1024 * 1024
    frozen_clock_ms: int | None = None
    webhook_retries: int = 5  # attempts after the first, for 5xx and network errors
    webhook_backoff_seconds: float = 1.0  # first retry delay (simulator clock), doubling each time

    def __post_init__(self) -> None:
        if self.auth not in ("verify", "off"):
            raise ValueError(f"auth must be 'verify' or 'off', got {self.auth!r}")
        if self.liveness_clock not in ("auto", "real", "simulated"):
            raise ValueError(f"liveness_clock must be 'auto', 'real' or 'simulated', got {self.liveness_clock!r}")

    @property
    def liveness_on_simulated_clock(self) -> bool:
        return self.liveness_clock == "simulated" or (
            self.liveness_clock == "auto" and self.frozen_clock_ms is not None
        )
