"""New wallets' mnemonics and BIP-39 seeds, computed ahead by a background worker.

The n-th mnemonic of a simulator is a function of its stream key (from the seed) and n alone:
its entropy is the first bytes of SHA-512(key || n). So a pool can compute the next ones ahead
(their 2048 PBKDF2 rounds release the interpreter, so they run beside the requests), a seeded
run draws the same mnemonics in the same order whatever the worker's timing, and ``reset``
(which restores the stream's position with the store) draws them again. A computed entry stays
known after it is used, so a test suite that resets and creates a wallet again finds it ready.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Callable

from simulator.clock import Source
from simulator.state.store import MnemonicStream

AHEAD = 8  # default-length mnemonics computed ahead of the stream's position
KEPT = 512  # computed entries remembered (ahead and used), per pool
DEFAULT_WORDS = 12
Entry = tuple[str, bytes]  # mnemonic, BIP-39 seed


def stream_key(seed: int) -> str:
    """The stream key of a seed: apart from the main random source, the same for the same seed."""
    return hashlib.sha256(f"wallet-simulator/mnemonic-stream/1:{seed}".encode()).hexdigest()


def compute(key: str, index: int, words: int) -> Entry:
    """The ``index``-th mnemonic of length ``words`` of stream ``key``, and its seed."""
    from simulator.crypto import hd  # imported on first use: the first wallet loads BIP-39, not serve's start-up

    entropy = hashlib.sha512(bytes.fromhex(key) + index.to_bytes(8, "big")).digest()[: hd.MNEMONIC_LENGTHS[words]]
    mnemonic = hd.generate_mnemonic(entropy)
    return mnemonic, hd.mnemonic_to_seed(mnemonic)


class MnemonicPool:
    """Draws from the stream ``stream_of()`` returns (the live store's), computing ahead."""

    def __init__(self, stream_of: Callable[[], MnemonicStream], ahead: int = AHEAD) -> None:
        self._stream_of = stream_of
        self.ahead = ahead
        self._known: dict[tuple[str, int, int], Entry] = {}
        self._lock = threading.Lock()

    def take(self, words: int = DEFAULT_WORDS) -> Entry:
        """The stream's next mnemonic (``words`` long) and its seed; moves the stream on."""
        with self._lock:
            stream = self._stream_of()
            slot = (stream.key, stream.position, words)
            stream.position += 1
            entry = self._known.get(slot)
        if entry is None:
            entry = compute(*slot)
            self._remember(slot, entry)
        if self.ahead:
            _worker.want(self)
        return entry

    def missing(self) -> tuple[str, int, int] | None:
        """The next default-length entry ahead of the position that is not computed yet."""
        with self._lock:
            stream = self._stream_of()
            for index in range(stream.position, stream.position + self.ahead):
                if (stream.key, index, DEFAULT_WORDS) not in self._known:
                    return stream.key, index, DEFAULT_WORDS
        return None

    def _remember(self, slot: tuple[str, int, int], entry: Entry) -> None:
        with self._lock:
            self._known[slot] = entry
            while len(self._known) > KEPT:
                del self._known[next(iter(self._known))]  # the earliest computed

    def fill_one(self) -> bool:
        """Compute one missing entry; False when none is missing."""
        slot = self.missing()
        if slot is None:
            return False
        self._remember(slot, compute(*slot))
        return True


class _Worker:
    """One background thread for every pool of the process, started on first use."""

    def __init__(self) -> None:
        self._pools: weakref.WeakSet[MnemonicPool] = weakref.WeakSet()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def want(self, pool: MnemonicPool) -> None:
        with self._wake:
            self._pools.add(pool)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mnemonic-pool", daemon=True)
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._pools:
                    self._wake.wait()
                pool = self._pools.pop()
            while pool.fill_one():
                pass


_worker = _Worker()
_POOLS: weakref.WeakKeyDictionary[Source, MnemonicPool] = weakref.WeakKeyDictionary()


def serve(source: Source, pool: MnemonicPool) -> None:
    """Wallets made with ``source`` draw their mnemonics from ``pool`` (the simulator's wiring)."""
    _POOLS[source] = pool


def pool_for(source: Source) -> MnemonicPool | None:
    return _POOLS.get(source)
