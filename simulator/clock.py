"""The simulator's one clock and one seeded random source."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any


class Clock:
    """Wall time plus an offset, or a frozen instant; tests move it with ``advance``.

    Following real time by default keeps the official clients' ``timestampMs`` inside the
    liveness window; freezing (``Clock(frozen_at_ms=...)`` or ``freeze()``) makes every
    timestamp repeat exactly.
    """

    def __init__(self, frozen_at_ms: int | None = None) -> None:
        self._offset_ms = 0
        self._frozen_ms = frozen_at_ms
        self._lock = threading.Lock()
        self._listeners: list[Callable[[int], None]] = []

    def on_move(self, listener: Callable[[int], None]) -> None:
        """Call ``listener(now_ms)`` whenever the clock is moved by hand (advance, freeze, restore)."""
        self._listeners.append(listener)

    def _moved(self) -> int:
        now = self.now_ms()
        for listener in list(self._listeners):
            listener(now)
        return now

    def now_ms(self) -> int:
        with self._lock:
            if self._frozen_ms is not None:
                return self._frozen_ms
            return int(time.time() * 1000) + self._offset_ms

    def advance(self, seconds: float) -> int:
        """Move the clock forward (or back, with a negative value); returns the new time."""
        with self._lock:
            delta = int(seconds * 1000)
            if self._frozen_ms is not None:
                self._frozen_ms += delta
            else:
                self._offset_ms += delta
        return self._moved()

    def freeze(self, at_ms: int | None = None) -> None:
        """Stop the clock at ``at_ms`` (default: now)."""
        current = self.now_ms()
        with self._lock:
            self._frozen_ms = current if at_ms is None else at_ms
        self._moved()

    def unfreeze(self) -> None:
        """Follow wall time again, keeping the current reading as the starting point."""
        current = self.now_ms()
        with self._lock:
            self._frozen_ms = None
            self._offset_ms = current - int(time.time() * 1000)

    def state(self) -> tuple[int, int | None]:
        with self._lock:
            return self._offset_ms, self._frozen_ms

    def restore(self, state: tuple[int, int | None]) -> None:
        with self._lock:
            self._offset_ms, self._frozen_ms = state
        self._moved()


class Source:
    """Every id, key, mnemonic and generated name comes from here, so a seed replays a run."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
        self._random = random.Random(self.seed)
        self._faker: Any = None
        self._lock = threading.Lock()
        self._rebase()

    def _rebase(self) -> None:
        # A checkpoint is this base plus how many draws were made since: Random.getstate copies 625
        # words (≈30 µs), too dear for the two checkpoints every activity takes and almost never uses.
        self._base: tuple[Any, ...] = self._random.getstate()
        self._draws: list[tuple[bool, int]] = []  # (a getrandbits?, its argument), in order

    def _drew(self, bits: bool, n: int) -> None:
        if len(self._draws) >= MAX_DRAWS_SINCE_BASE:
            self._rebase()  # before the draw: the new base is the state this draw starts from
        self._draws.append((bits, n))

    def bytes(self, n: int) -> bytes:
        with self._lock:
            self._drew(True, 8 * n)
            return self._random.getrandbits(8 * n).to_bytes(n, "big")

    def randbelow(self, n: int) -> int:
        with self._lock:
            self._drew(False, n)
            return self._random.randrange(n)

    def uuid4(self) -> str:
        raw = bytearray(self.bytes(16))
        raw[6] = 0x40 | (raw[6] & 0x0F)  # version 4
        raw[8] = 0x80 | (raw[8] & 0x3F)  # RFC 4122 variant
        return uuid_text(raw)

    def uuid7(self, now_ms: int) -> str:
        """A UUIDv7 (time-ordered, as the service's activity ids are) from the clock's reading."""
        tail = bytearray(self.bytes(10))
        tail[0] = 0x70 | (tail[0] & 0x0F)
        tail[2] = 0x80 | (tail[2] & 0x3F)
        return uuid_text(now_ms.to_bytes(6, "big") + tail)

    def faker(self) -> Any:
        """A Faker seeded from this source (imported lazily: Faker costs ~150 ms to load)."""
        if self._faker is None:
            from faker import Faker

            self._faker = Faker()
        self._faker.seed_instance(self.randbelow(2**32))
        return self._faker

    def state(self) -> object:
        with self._lock:
            return self._random.getstate()

    def restore(self, state: Any) -> None:
        with self._lock:
            self._random.setstate(state)
            self._rebase()

    def checkpoint(self) -> Checkpoint:
        """Where the stream is, cheaply: for ``rewind`` after a refused request."""
        with self._lock:
            return Checkpoint(self._base, self._draws, len(self._draws))

    def rewind(self, checkpoint: Checkpoint) -> None:
        """Put the stream back to ``checkpoint``: its base state, then the same draws replayed (each
        gives what it gave then: the generator is deterministic)."""
        with self._lock:
            self._random.setstate(checkpoint.base)
            draws = checkpoint.draws[: checkpoint.position]
            replay_draws(self._random, draws)
            self._base, self._draws = checkpoint.base, draws


def replay_draws(generator: random.Random, draws: Iterable[Sequence[Any]]) -> None:
    """Make ``draws`` (``(a getrandbits?, its argument)``, as ``Source`` notes them) on ``generator`` again."""
    for bits, n in draws:
        if bits:
            generator.getrandbits(n)
        else:
            generator.randrange(n)


MAX_DRAWS_SINCE_BASE = 512  # bounds a rewind's replay (≈0.1 µs a draw); a rebase costs one getstate


@dataclass(frozen=True)
class Checkpoint:
    """A Source's position: a base state, the list of draws made since it (shared, appended to) and
    how many of them came before the checkpoint."""

    base: tuple[Any, ...]
    draws: list[tuple[bool, int]]
    position: int


def uuid_text(raw: bytes | bytearray) -> str:
    """The 8-4-4-4-12 form of 16 bytes whose version and variant bits are set, as ``str(uuid.UUID(bytes=raw))``
    writes it (without building the UUID object: a quarter of the cost, several ids per activity)."""
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
