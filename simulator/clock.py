"""The simulator's one clock and one seeded random source."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Callable
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


class Checkpoint:
    """Where a Source's stream was when ``checkpoint`` was called. Its state (625 words, which
    ``getstate`` copies at ~5-10 µs a time, twice per activity) is copied only when the stream is
    about to move on from it: a checkpoint nothing draws after, or that is never rewound, costs none."""

    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state: tuple[Any, ...] | None = None  # None: the stream has not moved since the checkpoint


class Source:
    """Every id, key, mnemonic and generated name comes from here, so a seed replays a run."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
        self._random = random.Random(self.seed)
        self._faker: Any = None
        self._lock = threading.Lock()
        self._waiting: list[Checkpoint] = []  # checkpoints taken since the stream last moved

    def _moving(self) -> None:
        """The stream is about to change (under the lock): the checkpoints taken at its current position keep it."""
        if self._waiting:
            state = self._random.getstate()
            for waiting in self._waiting:
                waiting.state = state
            self._waiting.clear()

    def bytes(self, n: int) -> bytes:
        with self._lock:
            self._moving()
            return self._random.getrandbits(8 * n).to_bytes(n, "big")

    def randbelow(self, n: int) -> int:
        with self._lock:
            self._moving()
            return self._random.randrange(n)

    def checkpoint(self) -> Checkpoint:
        """The stream's position now, for ``rewind`` (a refused request puts back what it drew)."""
        with self._lock:
            taken = Checkpoint()
            self._waiting.append(taken)
            return taken

    def rewind(self, to: Checkpoint) -> None:
        """Put the stream back where it was at ``to``."""
        with self._lock:
            if to.state is None:  # nothing drawn since: the stream is still there
                self._waiting = [w for w in self._waiting if w is not to]
                return
            self._moving()
            self._random.setstate(to.state)

    def uuid4(self) -> str:
        return str(uuid.UUID(bytes=self.bytes(16), version=4))

    def uuid7(self, now_ms: int) -> str:
        """A UUIDv7 (time-ordered, as the service's activity ids are) from the clock's reading."""
        tail = bytearray(self.bytes(10))
        tail[0] = 0x70 | (tail[0] & 0x0F)
        tail[2] = 0x80 | (tail[2] & 0x3F)
        return str(uuid.UUID(bytes=now_ms.to_bytes(6, "big") + bytes(tail)))

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
            self._moving()
            self._random.setstate(state)
