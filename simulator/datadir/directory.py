"""An open data directory: held with a lock, loaded at start, written after every change.

Writes are group commits: a request that changed the state takes a ticket once its change is done;
the writer captures the state after reading the newest ticket, so one record covers every change
whose ticket it read, and a request whose ticket an earlier record already covered writes nothing.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from simulator.datadir import files
from simulator.datadir.files import DataDirError, Loaded

log = logging.getLogger("simulator")
DURABILITIES = ("always", "everysec", "no")
COMPACT_AT_LEAST_BYTES = 4 * 1024 * 1024  # the log is folded into the base once beyond this ...
COMPACT_RECORDS = 16  # ... and beyond this many records of the current size: the disk holds at most ~17 states


class DataDir:
    """``serve --data-dir``: ``open()`` locks and reads it, ``write(document)`` appends a record."""

    def __init__(self, path: Path, durability: str = "always") -> None:
        if durability not in DURABILITIES:
            raise ValueError(f"data durability must be one of {', '.join(DURABILITIES)}, got {durability!r}")
        self.path = Path(path)
        self.durability = durability
        self._lock_file: IO[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._log_bytes = 0
        self._last_sync = 0.0
        self._latest: bytes | None = None  # the last record's payload: what a clean stop folds into the base

    def open(self) -> Loaded:
        """Lock the directory and read it; on any problem raise DataDirError having changed nothing.
        Then fold the log, if any, into the base (the start's compaction)."""
        if self.path.exists() and not self.path.is_dir():
            raise DataDirError(f"{self.path}: not a directory; give --data-dir a directory (it is created if absent)")
        if self.path.is_dir():
            files.load(self.path)  # damage stops the start before anything is written
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock()
        loaded = files.load(self.path)  # again, now that no other simulator can write it
        for note in loaded.notes:
            log.warning("%s", note)
        if loaded.document is not None and (loaded.records or loaded.dropped_tail_bytes):
            self._compact(files.encode(loaded.document))
        self._log = open(self.path / files.LOG, "ab")  # noqa: SIM115 - open while serving
        self._log_bytes = self._log.tell()
        return loaded

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
        """Append the state as a record; with durability ``always`` it is on disk when this returns."""
        assert self._log is not None, "open() first"
        payload = self._latest = files.encode(document)
        record = files.frame(payload)
        self._log.write(record)
        self._log.flush()  # in the OS from here: a killed process loses nothing; fsync also covers a power cut
        self._log_bytes += len(record)
        now = time.monotonic()
        if self.durability == "always" or (self.durability == "everysec" and now - self._last_sync >= 1.0):
            os.fsync(self._log.fileno())
            self._last_sync = now
        if self._log_bytes > max(COMPACT_AT_LEAST_BYTES, COMPACT_RECORDS * len(record)):
            self._compact(payload)

    def _compact(self, payload: bytes) -> None:
        """The base becomes ``payload`` (the latest state), then the log is emptied: a stop in between
        leaves a log whose last record is that same state."""
        files.write_atomically(self.path / files.BASE, payload)
        with open(self.path / files.LOG, "ab") as emptied:
            emptied.truncate(0)
            os.fsync(emptied.fileno())
        self._log_bytes = 0

    def size(self) -> int:
        return files.size_of(self.path)

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
            if self._latest is not None and self._log_bytes:
                self._compact(self._latest)  # a clean stop leaves the state in state.json alone
        if self._lock_file is not None:
            self._lock_file.close()  # releases the lock
            self._lock_file = None


class Writer:
    """Group commits of ``capture()`` into ``data_dir``; ``changed()`` returns once the change is written."""

    def __init__(self, data_dir: DataDir, capture: Callable[[], dict[str, Any]]) -> None:
        self.data_dir = data_dir
        self.capture = capture
        self._tickets = 0
        self._written = 0
        self._ticket_lock = threading.Lock()
        self._write_lock = threading.Lock()

    def changed(self) -> None:
        with self._ticket_lock:
            self._tickets += 1
            mine = self._tickets
        with self._write_lock:
            if self._written >= mine:
                return  # a record written since this change covers it
            with self._ticket_lock:
                covered = self._tickets
            self.data_dir.write(self.capture())
            self._written = covered
