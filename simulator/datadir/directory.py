"""An open data directory: held with a lock, loaded at start, written after every change.

Writes are group commits: a request that changed the state takes a ticket once its change is done;
the writer looks for changes after reading the newest ticket, so one record covers every change
whose ticket it read, and a request whose ticket an earlier record already covered writes nothing. A
request that finishes while others are still running waits for them (at most ``SIBLINGS_WAIT_S``), so that
one record covers the batch.
A record holds what changed (``simulator.datadir.tracker``); the log is folded into the base (the whole
state, written atomically) once it is larger than the base, so the directory stays within about twice
the state's size.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import logging
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from simulator.datadir import files, heap, kept_base
from simulator.datadir.files import DataDirError, Loaded
from simulator.datadir.tracker import ChangeTracker
from simulator.datadir.watchers import FieldWatch
from simulator.state import codec

log = logging.getLogger("simulator")
DURABILITIES = ("always", "everysec", "no")
DEFAULT_DURABILITY = "everysec"  # as Redis's appendfsync: a kill loses nothing, a power cut at most a second
# how long a finished request waits for the state-changing requests still running beside it before it writes
# without them (Writer): they take about a millisecond each, so eight connections' batch fits in it
SIBLINGS_WAIT_S = 0.01
COMPACT_AT_LEAST_BYTES = 4 * 1024 * 1024  # the log is folded into the base once beyond this and beyond the base


class DataDir:
    """``serve --data-dir``: ``open()`` locks and reads it, ``write(document)`` appends a record."""

    def __init__(self, path: Path, durability: str = DEFAULT_DURABILITY) -> None:
        if durability not in DURABILITIES:
            raise ValueError(f"data durability must be one of {', '.join(DURABILITIES)}, got {durability!r}")
        self.path = Path(path)
        self.durability = durability
        self._lock_file: IO[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._log_bytes = 0
        self._base_bytes = 0
        self._generation = 0  # the base's compaction count, carried by every record written after it
        # Every base and record written since the last base read back whole was orjson's exact writing: a base of the
        # state those records make (``trusted``: the writer found nothing else changed) is then written without
        # reading it back, every value in it having passed the check in one of them (a third of a compaction: 0.13 s
        # of 0.35 s with 6,000 activities). False at the start (what was loaded was not checked so) and after
        # anything json wrote, until a base is read back.
        self._exact = False
        self._unsynced = threading.Event()
        self._closing = threading.Event()
        self._sync_lock = threading.Lock()  # the syncer never syncs a log being closed
        self._syncer: threading.Thread | None = None
        self.unfreeze_at_close = False  # the objects loaded with it were frozen (files.collection_paused)

    def open(self) -> Loaded:
        """Read the directory and lock it; on any problem raise DataDirError having changed nothing. A last
        record cut short is dropped by rewriting the base from what came before it."""
        if self.path.exists() and not self.path.is_dir():
            raise DataDirError(f"{self.path}: not a directory; give --data-dir a directory (it is created if absent)")
        read_before = self._files_as_they_are()
        loaded = files.load(self.path) if self.path.is_dir() else Loaded()  # damage stops the start here
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock()
        if self._files_as_they_are() != read_before:  # another simulator wrote it meanwhile: read what it left
            loaded = files.load(self.path)
        for note in loaded.notes:
            log.warning("%s", note)
        self._generation = loaded.generation
        if loaded.document is not None and loaded.dropped_tail_bytes:  # the torn tail goes before appending
            self._compact(loaded.document)
        self._log = open(self.path / files.LOG, "ab")  # noqa: SIM115 - open while serving
        self._log_bytes = self._log.tell()
        if self.durability == "everysec":
            self._syncer = threading.Thread(target=self._sync_every_second, name="data-dir-sync", daemon=True)
            self._syncer.start()
        base = self.path / files.BASE
        self._base_bytes = base.stat().st_size if base.exists() else 0
        return loaded

    def _files_as_they_are(self) -> list[tuple[int, int] | None]:
        """The base's and the log's size and modification time (None: absent)."""
        found: list[tuple[int, int] | None] = []
        for name in (files.BASE, files.LOG):
            try:
                stat = (self.path / name).stat()
            except FileNotFoundError:
                found.append(None)
            else:
                found.append((stat.st_size, stat.st_mtime_ns))
        return found

    def _lock(self) -> None:
        lock_path = self.path / files.LOCK
        handle = open(lock_path, "a+b")  # noqa: SIM115 - held while serving: the lock
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise DataDirError(
                f"{lock_path}: another running simulator holds this data directory; stop it first, or give this "
                "one another --data-dir"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n".encode())
        handle.flush()
        self._lock_file = handle

    def write(self, document: dict[str, Any]) -> None:
        """Append the whole state as a record; with durability ``always`` it is on disk when this returns."""
        payload = files.encode(document, self._generation)
        self._exact = files.exact(payload)  # the state now is this record's alone
        self._append(files.frame(payload))

    def write_changes(self, changes: dict[str, Any], exact: bool = False) -> None:
        """Append a change record (``ChangeTracker.collect``). ``exact``: its encoding noted no value orjson might
        write otherwise than json (``codec.inexact``), so it is written without being read back (verify mode reads
        it back, and fails if orjson did not write it exactly after all)."""
        payload = files.encode_changes(changes, self._generation, read_back=not exact or FieldWatch.verify)
        if exact and FieldWatch.verify and not files.exact(payload):
            raise AssertionError(f"a change record noted exact is not orjson's exact writing: {payload[:300]!r}")
        self._exact = self._exact and files.exact(payload)
        self._append(files.frame(payload, files.MAGIC_CHANGES))

    def _append(self, record: bytes) -> None:
        assert self._log is not None, "open() first"
        self._log.write(record)
        self._log.flush()  # in the OS from here: a killed process loses nothing; fsync also covers a power cut
        self._log_bytes += len(record)
        if self.durability == "always":
            os.fsync(self._log.fileno())
        elif self.durability == "everysec" and not self._unsynced.is_set():
            # the syncer's next round (within a second) takes it to the disk; set once a round, not at every append
            # (an Event's set takes its condition's lock and wakes its waiters: a few µs a request)
            self._unsynced.set()

    def _sync_every_second(self) -> None:
        """``everysec``: what was written reaches the disk within a second, off the requests' path (an fsync
        takes milliseconds: 4.3 ms on the machine docs/reference/data-directory.md measured, more than a whole signature)."""
        while not self._closing.wait(1.0):
            if self._unsynced.is_set():
                self._unsynced.clear()
                with self._sync_lock:
                    if self._log is not None:
                        os.fsync(self._log.fileno())

    def wants_compaction(self) -> bool:
        return self._log_bytes > max(COMPACT_AT_LEAST_BYTES, self._base_bytes)

    def compact(self, document: dict[str, Any], trusted: bool = False) -> None:
        """The base becomes ``document`` (the state now), the log is emptied. ``trusted``: the document is the state
        the records written make, nothing changed since the last one (``Writer.whole_now``)."""
        self._compact(document, trusted)

    def _compact(self, document: dict[str, Any], trusted: bool = False) -> None:
        """The base becomes ``document``, of the next generation, then the log is emptied: a stop in between
        leaves records of the earlier generation, which loading skips (the base holds them)."""
        self._generation += 1
        read_back = not (trusted and self._exact) or FieldWatch.verify
        payload = files.encode(document, self._generation, read_back=read_back)
        files.write_atomically(self.path / files.BASE, payload)
        self._exact = files.exact(payload)
        self._base_bytes = len(payload)
        self._empty_log()
        heap.give_back()

    def fold(self, tracker: ChangeTracker) -> bool:
        """The base becomes the state now, written in pieces from the live state (``kept_base``; call under the
        simulator's lock), the log is emptied; False (nothing changed) where orjson would not write a piece
        exactly: ``compact`` then writes the whole document."""
        generation = self._generation + 1
        try:
            size = kept_base.write(self.path / files.BASE, generation, tracker.sim, tracker.views, tracker.evaluations)
        except kept_base.Inexact:
            return False
        files.sync_folder(self.path)
        self._generation = generation
        self._exact = True  # every piece was orjson's exact writing
        self._base_bytes = size
        self._empty_log()
        heap.give_back()  # what the fold freed (heap.py: without it, each fold left 20-40 MiB behind)
        return True

    def _empty_log(self) -> None:
        with open(self.path / files.LOG, "ab") as emptied:
            emptied.truncate(0)
            os.fsync(emptied.fileno())
        self._log_bytes = 0

    @property
    def log_bytes(self) -> int:
        return self._log_bytes

    def size(self) -> int:
        return files.size_of(self.path)

    def close(self, document: dict[str, Any] | None = None, trusted: bool = False) -> None:
        """Release the directory; ``document`` (the state now), if the log holds records, becomes the base:
        a clean stop leaves the state in state.json alone (``trusted`` as ``compact``'s)."""
        self._closing.set()
        if self._syncer is not None:
            self._syncer.join(timeout=5)
            self._syncer = None
        if self._log is not None:
            with self._sync_lock:
                os.fsync(self._log.fileno())
                self._log.close()
                self._log = None
            if document is not None:
                self._compact(document, trusted)
        if self._lock_file is not None:
            self._lock_file.close()  # releases the lock
            self._lock_file = None
        if self.unfreeze_at_close:
            self.unfreeze_at_close = False
            gc.unfreeze()


class Writer:
    """Group commits of what changed into ``data_dir``; ``changed()`` returns once the change is written.

    A request that finishes while other state-changing requests are still running (between the gate's
    ``entered`` and ``left``) waits for them, up to ``siblings_wait_s``, and the last of them to finish writes one
    record for all, as PostgreSQL's ``commit_delay`` waits when ``commit_siblings`` transactions are active: the look
    over the state, the framing and the write are paid once for the batch. A request alone writes at once, so one
    connection's requests wait for nothing."""

    def __init__(self, data_dir: DataDir, tracker: ChangeTracker, siblings_wait_s: float = SIBLINGS_WAIT_S) -> None:
        self.data_dir = data_dir
        self.tracker = tracker
        self.siblings_wait_s = siblings_wait_s
        self._tickets = 0  # changes acknowledged (requests answered 2xx that could change the state)
        self._written = 0  # the last ticket a written record covers
        self.records = 0  # change records written: fewer than tickets when records covered several
        self._running = 0  # state-changing requests inside the application (the gate's entered/left)
        self._writing = False
        self._turn = threading.Condition(threading.Lock())

    def entered(self) -> None:
        """A request that may change the state is running (the gate calls ``left()`` when it has its answer)."""
        with self._turn:
            self._running += 1

    def left(self) -> None:
        with self._turn:
            self._running -= 1
            if not self._running:
                self._turn.notify_all()  # a finished request waiting for its siblings writes now

    def changed(self) -> None:
        turn = self._turn
        with turn:
            self._tickets += 1
            mine = self._tickets
            deadline: float | None = None
            while self._written < mine:  # until a record covers this change: this thread's, or another's
                if self._writing:
                    turn.wait()
                    continue
                if self._running:  # siblings still running: the last of them writes for all, unless it takes long
                    now = time.monotonic()
                    if deadline is None:
                        deadline = now + self.siblings_wait_s
                    if now < deadline:
                        turn.wait(deadline - now)
                        continue
                self._writing = True
                covered = self._tickets  # the record made next sees every change whose ticket is taken by now
                turn.release()
                try:
                    self._write()
                finally:
                    turn.acquire()
                    self._writing = False
                    turn.notify_all()
                self._written = covered
                self.records += 1

    @property
    def changes(self) -> int:
        """Changes acknowledged so far (``records`` over it: how well the group commit batches)."""
        return self._tickets

    def _write(self) -> None:
        noted = codec.inexact()
        record = self.tracker.collect()
        if record is not None and "state" in record:
            self.data_dir.write(record["state"])
        elif record is not None:  # read back only if its encoding noted a value orjson might write otherwise
            self.data_dir.write_changes(record, exact=codec.inexact() == noted)
        if self.data_dir.wants_compaction():
            self.fold()

    def fold(self) -> None:
        """The log folded into the base, written in pieces from the live state (``kept_base``), what changed since
        the last record included; the whole document the earlier way where orjson would not write a piece exactly.
        Under the simulator's lock: requests wait for it (``bench/soak.py`` measures how long)."""
        with self.tracker.sim.lock:
            late = self.tracker.collect()
            if self.data_dir.fold(self.tracker):
                self.tracker.prime()
                return
            document, trusted = self.tracker.full(), _written_exactly(late)
        self.data_dir.compact(document, trusted)

    @contextlib.contextmanager
    def _writing_alone(self) -> Iterator[None]:
        """No record written meanwhile (a whole base, the stop)."""
        turn = self._turn
        with turn:
            while self._writing:
                turn.wait()
            self._writing = True
        try:
            yield
        finally:
            with turn:
                self._writing = False
                turn.notify_all()

    def whole_now(self) -> tuple[dict[str, Any], bool]:
        """The whole state, and whether it is the state the records written make (``DataDir.compact``'s
        ``trusted``): what changed since the last one (another request's change, made between that record and this
        look) is read back here, in the same hold of the simulator's lock."""
        with self.tracker.sim.lock:
            late = self.tracker.collect()
            document = self.tracker.full()
        return document, _written_exactly(late)

    def write_whole(self) -> None:
        """The whole state as the base (an empty directory at the start: the state and its seed from the start)."""
        with self._writing_alone(), self.tracker.sim.lock:
            if self.data_dir.fold(self.tracker):
                self.tracker.prime()
            else:
                self.data_dir.compact(self.tracker.full())

    def close(self) -> None:
        """The base becomes the state now (changes made in process since the last request included) if the log
        holds records or anything changed; the lock is released."""
        with self._writing_alone():
            with self.tracker.sim.lock:
                late = self.tracker.collect()
                document = None
                if (self.data_dir.log_bytes or late is not None) and not self.data_dir.fold(self.tracker):
                    document = self.tracker.full()
            self.data_dir.close(document, _written_exactly(late))


def _written_exactly(late: dict[str, Any] | None) -> bool:
    """Whether the changes not yet in a record (None: none) are written by orjson exactly, as a record would be."""
    return late is None or files.exact(files.encode_changes(late))
