"""New wallets' mnemonics and BIP-39 seeds, computed ahead by a background worker.

The n-th mnemonic of a simulator is a function of its stream key (from the seed) and n alone:
its entropy is the first bytes of SHA-512(key || n). So a pool can compute the next ones ahead
(their 2048 PBKDF2 rounds release the interpreter, so they run beside the requests), a seeded
run draws the same mnemonics in the same order whatever the worker's timing, and ``reset``
(which restores the stream's position with the store) draws them again. A computed entry stays
known after it is used, so a test suite that resets and creates a wallet again finds it ready.

Drawing is two steps so that a refused request leaves the stream where it was: ``peek`` (the
preparer, before the decision) hands out the next free entry without moving the stream, and
``claim`` (the handler, once the wallet is stored) moves it on. A preparer's entry that is no
longer next when its handler runs (another wallet was made first, or it waited for approvals)
is drawn again there, so the n-th wallet made always gets the n-th entry.
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
Slot = tuple[str, int]  # stream key, index: where an entry sits in its stream


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
        self._held: set[int] = set()  # indexes preparers peeked at and no handler claimed yet
        # entries a thread is computing now: another thread that needs one waits for it rather than
        # running the same 2,048 PBKDF2 rounds beside it (under sustained create_wallet load the
        # request thread and the worker would otherwise compute the same seed on both cores)
        self._computing: dict[tuple[str, int, int], threading.Event] = {}
        self._lock = threading.Lock()

    def take(self, words: int = DEFAULT_WORDS) -> Entry:
        """The stream's next mnemonic (``words`` long) and its seed; moves the stream on."""
        slot, entry = self.peek(words, reserve=False)
        self.claim(slot)
        return entry

    def peek(self, words: int = DEFAULT_WORDS, *, reserve: bool = True) -> tuple[Slot, Entry]:
        """The next entry no other preparer holds, without moving the stream (``claim`` does).

        ``reserve`` marks it held, so that concurrent preparers compute different entries; a
        hold is only a hint: one left by a refused request is passed over until the stream
        moves past it."""
        with self._lock:
            stream = self._stream_of()
            index = stream.position
            while reserve and index in self._held:
                index += 1
            if reserve:
                self._held.add(index)
            slot = (stream.key, index)
        entry = self._entry((*slot, words))
        if self.ahead:
            _worker.want(self)
        return slot, entry

    def is_next(self, slot: Slot) -> bool:
        """Whether ``slot`` is the entry the stream hands out next."""
        with self._lock:
            stream = self._stream_of()
            return (stream.key, stream.position) == slot

    def release(self, slot: Slot) -> None:
        """Give up a preparer's hold on ``slot`` (its handler drew another entry)."""
        with self._lock:
            self._held.discard(slot[1])

    def claim(self, slot: Slot) -> None:
        """Move the stream past ``slot`` (the caller checked it is next, under the store lock)."""
        with self._lock:
            stream = self._stream_of()
            if (stream.key, stream.position) == slot:
                stream.position += 1
            self._held.discard(slot[1])
            self._held = {index for index in self._held if index >= stream.position}

    def missing(self) -> tuple[str, int, int] | None:
        """The next default-length entry ahead of the position that is neither computed nor under way."""
        with self._lock:
            return self._missing()

    def _missing(self) -> tuple[str, int, int] | None:
        stream = self._stream_of()
        for index in range(stream.position, stream.position + self.ahead):
            slot = (stream.key, index, DEFAULT_WORDS)
            if slot not in self._known and slot not in self._computing:
                return slot
        return None

    def _entry(self, slot: tuple[str, int, int]) -> Entry:
        """The entry at ``slot``: known, or awaited from the thread computing it, or computed here."""
        while True:
            with self._lock:
                entry = self._known.get(slot)
                if entry is not None:
                    return entry
                underway = self._computing.get(slot)
                if underway is None:
                    underway = self._computing[slot] = threading.Event()
                    break
            underway.wait()  # then look again: known now, unless that computation failed
        return self._compute(slot, underway)

    def _compute(self, slot: tuple[str, int, int], underway: threading.Event) -> Entry:
        try:
            entry = compute(*slot)  # outside the lock: PBKDF2 releases the interpreter for its 2,048 rounds
            with self._lock:
                self._known[slot] = entry
                while len(self._known) > KEPT:
                    del self._known[next(iter(self._known))]  # the earliest computed
            return entry
        finally:
            with self._lock:
                self._computing.pop(slot, None)
            underway.set()

    def fill_one(self) -> bool:
        """Compute one missing entry; False when none is missing."""
        with self._lock:
            slot = self._missing()
            if slot is None:
                return False
            underway = self._computing[slot] = threading.Event()
        self._compute(slot, underway)
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
