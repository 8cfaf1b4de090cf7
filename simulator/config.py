"""Settings of one simulator instance."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

TEN_MINUTES_MS = 10 * 60 * 1000


@dataclass(frozen=True)
class Config:
    """How a simulator behaves; every field has a command-line switch of the same name.

    ``scenarios`` empty means the embedded default (scenarios/default.yaml).
    ``timestamp_window_ms`` bounds how far an activity's ``timestampMs`` may be from the
    simulator clock (either way); ``None`` turns the liveness check off.
    """

    seed: int | None = None
    scenarios: tuple[Path, ...] = field(default_factory=tuple)
    auth: str = "verify"  # "verify" or "off"
    allow_unknown_fields: bool = False
    timestamp_window_ms: int | None = TEN_MINUTES_MS
    max_body_bytes: int = 2 * 1024 * 1024
    frozen_clock_ms: int | None = None
    webhook_retries: int = 5  # attempts after the first, for 5xx and network errors
    webhook_backoff_seconds: float = 1.0  # first retry delay (simulator clock), doubling each time

    def __post_init__(self) -> None:
        if self.auth not in ("verify", "off"):
            raise ValueError(f"auth must be 'verify' or 'off', got {self.auth!r}")
