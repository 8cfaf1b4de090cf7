"""The data directory's files: ``state.json`` (a base document, replaced atomically) and ``changes.log``
(records appended after it, each framed as MAGIC, length, CRC32 and a JSON payload).

Every record holds the whole state as the export document (``GET /_simulator/state``) has it, so the
last complete record is the state: loading reads the base, then the log, and keeps the last record whose
frame is whole and whose checksum holds. A crash can only cut the last record short (appends go at the
end): that tail is ignored, and said so. A bad record anywhere else is damage: loading stops.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = "wallet-simulator-data/1"  # the `format` of both files; a later release reads every earlier one
FORMAT_PREFIX = "wallet-simulator-data/"
VERSION = 1
BASE = "state.json"
LOG = "changes.log"
LOCK = "lock"
MAGIC = b"WSR1"
HEADER = struct.Struct(">4sII")  # magic, payload length, CRC32 of the payload


class DataDirError(Exception):
    """A data directory that cannot be used as it is: the message names the file, the problem and what to do."""


@dataclass
class Loaded:
    """What a directory holds: the latest state document (None: empty), and what loading found."""

    document: dict[str, Any] | None = None
    records: int = 0
    log_bytes: int = 0
    dropped_tail_bytes: int = 0  # an incomplete last record (a crash while it was written), ignored
    notes: list[str] = field(default_factory=list)


def frame(payload: bytes) -> bytes:
    return HEADER.pack(MAGIC, len(payload), zlib.crc32(payload)) + payload


def encode(document: dict[str, Any]) -> bytes:
    return json.dumps({"format": FORMAT, "state": document}, separators=(",", ":")).encode()


def check_format(path: Path, data: Any) -> dict[str, Any]:
    """The state inside a decoded base document or record, once its format is one this release reads."""
    fmt = data.get("format") if isinstance(data, dict) else None
    if not isinstance(fmt, str) or not fmt.startswith(FORMAT_PREFIX):
        raise DataDirError(
            f"{path}: not a wallet-simulator data file (no format {FORMAT!r}); "
            "point --data-dir at an empty directory or at one a wallet-simulator wrote"
        )
    version = fmt[len(FORMAT_PREFIX) :]
    if not version.isdigit() or int(version) > VERSION:
        raise DataDirError(
            f"{path}: written by a newer release of wallet-simulator (format {fmt!r}; this release reads up to "
            f"{FORMAT!r}); upgrade wallet-simulator, or start with another --data-dir. Nothing was changed"
        )
    state = data.get("state")
    if not isinstance(state, dict):
        raise DataDirError(f"{path}: the document has no state; restore the directory from a copy or remove it")
    return state


def read_base(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as exc:
        raise DataDirError(
            f"{path}: corrupt (not JSON: {exc}); nothing was changed. Restore the directory from a copy, "
            "or move it away to start empty"
        ) from None
    return check_format(path, data)


def read_log(path: Path, loaded: Loaded) -> None:
    """The last complete record of the log into ``loaded``; an incomplete tail is noted, damage elsewhere raises."""
    if not path.exists():
        return
    data = path.read_bytes()
    loaded.log_bytes = len(data)
    at = 0
    last: bytes | None = None
    while at < len(data):
        start = at
        if len(data) - at < HEADER.size:
            loaded.dropped_tail_bytes = len(data) - at
            break
        magic, length, crc = HEADER.unpack_from(data, at)
        end = at + HEADER.size + length
        if magic != MAGIC:
            raise DataDirError(
                f"{path}: corrupt (no record starts at byte {start}); nothing was changed. Restore the directory "
                "from a copy, or move it away to start empty"
            )
        if end > len(data):
            loaded.dropped_tail_bytes = len(data) - at
            break
        payload = data[at + HEADER.size : end]
        if zlib.crc32(payload) != crc:
            if end == len(data):  # the last record, torn by a crash as it was written
                loaded.dropped_tail_bytes = len(data) - at
                break
            raise DataDirError(
                f"{path}: corrupt (the record at byte {start} fails its checksum, and records follow it); nothing "
                "was changed. Restore the directory from a copy, or move it away to start empty"
            )
        last = payload
        loaded.records += 1
        at = end
    if loaded.dropped_tail_bytes:
        loaded.notes.append(
            f"{path}: the last record was incomplete ({loaded.dropped_tail_bytes} bytes, a stop while it was "
            f"written); recovered the state up to the {loaded.records} complete record(s) before it"
        )
    if last is not None:
        try:
            loaded.document = check_format(path, json.loads(last))
        except ValueError:
            raise DataDirError(f"{path}: corrupt (a record is not JSON); nothing was changed") from None


def load(directory: Path) -> Loaded:
    """Read a directory without changing it (``state check`` and the start of ``serve``)."""
    loaded = Loaded()
    loaded.document = read_base(directory / BASE)
    read_log(directory / LOG, loaded)
    return loaded


def write_atomically(path: Path, data: bytes) -> None:
    """``path`` holds ``data`` whole or keeps what it held: a temporary file, synced, renamed, the folder synced."""
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
    sync_folder(path.parent)


def sync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def size_of(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.iterdir() if p.is_file())
