"""The data directory's files: ``state.json`` (a base document, replaced atomically) and ``changes.log``
(records appended after it, each framed as a magic, length, CRC32 and a JSON payload).

A record is either the whole state (magic ``WSR1``: the kept document, as ``GET /_simulator/state`` has it
plus the seed and snapshots; every record of format 1 is one) or the changes since the record before it
(``WSR2``: operations on that document, ``simulator.datadir.tracker``). Payloads orjson wrote open with
``{"orjson":true,`` and are read by orjson; any other (json's, every earlier release's) is read by json.
Loading reads the base, then the log: from the last whole state on, each change record is applied in order.
A crash can only cut the last record short (appends go at the end): that tail is ignored, and said so. A bad
record anywhere else is damage: loading stops.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from simulator.datadir import kept_base
from simulator.datadir.log_applier import LogApplier

FORMAT = "wallet-simulator-data/2"  # the `format` of both files; a later release reads every earlier one
FORMAT_PREFIX = "wallet-simulator-data/"
VERSION = 3  # 1: every record a whole state; 2: change records too; 3: a base laid out for a lazy start (kept_base)
BASE = "state.json"
LOG = "changes.log"
LOCK = "lock"
MAGIC = b"WSR1"  # a record holding the whole state
MAGIC_CHANGES = b"WSR2"  # a record holding the changes since the one before it
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
    generation: int = 0  # the base's compaction count
    notes: list[str] = field(default_factory=list)


def frame(payload: bytes, magic: bytes = MAGIC) -> bytes:
    return HEADER.pack(magic, len(payload), zlib.crc32(payload)) + payload


def encode(document: dict[str, Any], generation: int = 0, read_back: bool = True) -> bytes:
    return dumps({"format": FORMAT, "generation": generation, "state": document}, read_back)


def encode_changes(changes: dict[str, Any], generation: int = 0, read_back: bool = True) -> bytes:
    return dumps({"format": FORMAT, "generation": generation, **changes}, read_back)


_JSON = json.JSONEncoder(separators=(",", ":")).encode
ORJSON_MARK = b'{"orjson":true,'  # opens what orjson wrote: read back by orjson; anything else by json


def dumps(value: dict[str, Any], read_back: bool = True) -> bytes:
    """``value`` (a non-empty object) as JSON, orjson's where reading it back gives ``value`` again (marked, so
    that loading reads it with orjson), json's otherwise. json took 25-60 µs of a sign request's change
    record, the largest part of its cost; orjson and the check take a fraction of that. Where the two would
    differ, orjson writes NaN and the infinities as null (json: NaN, Infinity) and tuples as lists, or refuses
    (keys that are not strings, integers beyond 64 bits, lone surrogates): the read-back differs, or it raises,
    and json writes it as every earlier release did. ``read_back`` False: the caller knows orjson writes
    ``value`` exactly (``DataDir``: every part of it passed this check when it was written, or its encoding noted
    nothing orjson might write otherwise), and only a refusal sends it to json."""
    try:
        written = orjson.dumps(value)
        if len(value) and (not read_back or _read_back(written) == value):
            return b"".join((ORJSON_MARK, memoryview(written)[1:]))  # one copy (a base is megabytes), not two
    except (TypeError, orjson.JSONDecodeError):
        pass
    return _JSON(value).encode()


def exact(payload: bytes) -> bool:
    """Whether ``dumps`` wrote ``payload`` with orjson (the value read back the same)."""
    return payload.startswith(ORJSON_MARK)


COLLECTOR_OFF_FROM_BYTES = 1 << 20


def _read_back(written: bytes) -> Any:
    """``written`` read by orjson, a large payload with the cycle collector held off: the read makes objects and
    no garbage, and for a whole state (a compaction, a stop) collections on the way doubled its time (0.15 s ->
    0.33 s for 10,000 activities). A change record (a few KB) is read as it is: switching the collector off and
    on again cost more than any collection it could meet."""
    if len(written) < COLLECTOR_OFF_FROM_BYTES:
        return orjson.loads(written)
    with collector_off():
        return orjson.loads(written)


def loads(payload: bytes) -> Any:
    """A base's or record's value: what orjson wrote (``dumps``) read by orjson; anything else (json's, and
    every earlier release's) by json, which reads integers beyond 64 bits as integers where orjson reads floats."""
    if payload.startswith(ORJSON_MARK):
        data = orjson.loads(payload)
        del data["orjson"]
        return data
    return json.loads(payload)


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    """Python's cycle collector off inside, on again after if it was on (left off if something else turned it off:
    a start's load)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """Python's cycle collector held off while a state is read and built (at start, before any thread serves),
    and what was built then frozen (``gc.freeze``): loading makes millions of objects and no garbage, every
    collection on the way would walk all those made before it, and the first ones after it all of them again
    (0.1 s of a start with 10,000 activities). Frozen objects are still freed by their reference counts when let
    go; only a reference cycle among them would stay, so the directory's close unfreezes them
    (``DataDir.unfreeze_at_close``): a test process that opens many directories keeps collecting its garbage."""
    with collector_off():
        yield
        gc.freeze()  # not when loading failed: nothing is kept, and nothing would unfreeze it


def generation_of(data: Any) -> int:
    """Which compaction a base or record belongs to: a record of an earlier one than the base's is already in
    the base (a stop between writing the base and emptying the log leaves such records)."""
    value = data.get("generation", 0) if isinstance(data, dict) else 0
    return value if isinstance(value, int) else 0


def check_format(path: Path, data: Any, changes: bool = False) -> dict[str, Any]:
    """The state inside a decoded base document or record (the record itself for a change record), once its
    format is one this release reads."""
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
    if changes:
        if not isinstance(data.get("ops", []), list):
            raise DataDirError(f"{path}: a change record has no operations; restore the directory from a copy")
        return dict(data)
    state = data.get("state")
    if not isinstance(state, dict):
        raise DataDirError(f"{path}: the document has no state; restore the directory from a copy or remove it")
    return state


def read_base(path: Path, loaded: Loaded | None = None) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        payload = path.read_bytes()
        data = kept_base.read(payload) if kept_base.is_kept_base(payload) else loads(payload)
    except (ValueError, UnicodeDecodeError, LookupError, TypeError) as exc:
        raise DataDirError(
            f"{path}: corrupt (not JSON: {exc}); nothing was changed. Restore the directory from a copy, "
            "or move it away to start empty"
        ) from None
    if loaded is not None:
        loaded.generation = generation_of(data)
    return check_format(path, data)


def read_log(path: Path, loaded: Loaded) -> None:
    """The log's records applied to ``loaded.document`` (the base's state); an incomplete tail is noted,
    damage elsewhere raises."""
    if not path.exists():
        return
    data = path.read_bytes()
    loaded.log_bytes = len(data)
    at = 0
    records: list[tuple[bytes, bytes]] = []
    while at < len(data):
        start = at
        if len(data) - at < HEADER.size:
            loaded.dropped_tail_bytes = len(data) - at
            break
        magic, length, crc = HEADER.unpack_from(data, at)
        end = at + HEADER.size + length
        if magic not in (MAGIC, MAGIC_CHANGES):
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
        records.append((magic, payload))
        loaded.records += 1
        at = end
    if loaded.dropped_tail_bytes:
        loaded.notes.append(
            f"{path}: the last record was incomplete ({loaded.dropped_tail_bytes} bytes, a stop while it was "
            f"written); recovered the state up to the {loaded.records} complete record(s) before it"
        )
    whole = [i for i, (magic, _) in enumerate(records) if magic == MAGIC]
    first = whole[-1] if whole else 0  # what comes before the last whole state does not count
    applier = LogApplier(loaded.document)
    for magic, payload in records[first:]:
        try:
            record = loads(payload)
        except ValueError:
            raise DataDirError(f"{path}: corrupt (a record is not JSON); nothing was changed") from None
        if generation_of(record) < loaded.generation:
            continue  # written before the base was: the base holds it
        if magic == MAGIC:
            applier.whole(check_format(path, record))
            continue
        try:
            applier.apply(check_format(path, record, changes=True))
        except (LookupError, TypeError, ValueError) as exc:
            raise DataDirError(
                f"{path}: corrupt (a change record does not apply to the state before it: {exc!r}); nothing was "
                "changed. Restore the directory from a copy, or move it away to start empty"
            ) from None
    loaded.document = applier.result()


def load(directory: Path) -> Loaded:
    """Read a directory without changing it (``state check`` and the start of ``serve``)."""
    loaded = Loaded()
    loaded.document = read_base(directory / BASE, loaded)
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
