"""The recording file ``parity record`` writes and ``parity diff`` reads: JSON Lines, a header line and then one
exchange per line, appended as each answer goes back (an interrupted run keeps what it recorded).

An exchange: ``index``, ``interface`` (``api`` or ``authProxy``), ``operation`` (the URL's last segment, as the
catalogue names it), ``kind`` (submit, query, proxy or other), ``method``, ``path``, ``request`` (the headers a
reader needs and the JSON body), ``status``, ``answer`` (the JSON body, or ``{"text": ...}``), ``ms`` (upstream
time) and ``redactions`` (where a secret was replaced, and what it was).
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

FORMAT = "wallet-simulator parity recording"
VERSION = 1


@dataclass
class Exchange:
    index: int
    interface: str
    operation: str
    kind: str
    method: str
    path: str
    request: dict[str, Any]
    status: int
    answer: Any
    ms: float
    redactions: list[dict[str, str]] = field(default_factory=list)


def operation_of(interface: str, path: str) -> tuple[str, str]:
    """(operation, kind) of a request path: ``/public/v1/submit/create_wallet`` is (create_wallet, submit)."""
    parts = [p for p in path.split("?", 1)[0].split("/") if p]
    if interface == "api" and len(parts) == 4 and parts[:2] == ["public", "v1"] and parts[2] in ("submit", "query"):
        return parts[3], parts[2]
    if interface == "authProxy" and len(parts) == 2 and parts[0] == "v1":
        return parts[1], "proxy"
    return "/".join(parts), "other"


class RecordingWriter:
    """Appends exchanges to the file, one line each, from any thread."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.count = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as out:
            out.write(json.dumps({"format": FORMAT, "version": VERSION, **header}) + "\n")

    def next_index(self) -> int:
        with self._lock:
            self.count += 1
            return self.count

    def write(self, exchange: Exchange) -> None:
        line = json.dumps(asdict(exchange), ensure_ascii=False)
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


class RecordingError(ValueError):
    """The file is not a parity recording."""


def read_recording(path: Path) -> tuple[dict[str, Any], list[Exchange]]:
    """The header and the exchanges of a recording, in the order their requests were numbered."""
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError as exc:
        raise RecordingError(f"{path}: {exc.strerror or exc}") from None
    try:
        rows = [json.loads(line) for line in lines]
    except json.JSONDecodeError as exc:
        raise RecordingError(f"{path}: not JSON Lines: {exc}") from None
    if not rows or not isinstance(rows[0], dict) or rows[0].get("format") != FORMAT:
        raise RecordingError(f"{path}: not a parity recording (its first line must say format: {FORMAT!r})")
    try:
        exchanges = [Exchange(**row) for row in rows[1:]]
    except TypeError as exc:
        raise RecordingError(f"{path}: an exchange is not in the recording's shape: {exc}") from None
    return rows[0], sorted(exchanges, key=lambda e: e.index)
