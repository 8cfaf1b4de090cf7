"""The inspector's request log: every request the main port answered, with its duration.

The journal (``Simulator.journal``) keeps what a request asked and how it ended, but not how
long it took; this log keeps the last ``limit`` requests' records (simulator/http/log_entry.py:
the same parse of the body and answer the journal read, timed once by the transport), so the
page can show status, duration and error together. Reads of the
control API and the inspector's own polling are left out: they would bury the requests a
person is looking for.
"""

from __future__ import annotations

import threading
from collections import deque

from flask import Response, current_app, request

from simulator.http.log_entry import UNREAD, RequestLogEntry
from simulator.http.request_body import json_or_none
from simulator.wire import Json

MAX_KEPT_BODY_BYTES = 64 * 1024  # larger request bodies are summarised, not kept
MAX_KEPT_CONTROL_BODY_BYTES = 2 * 1024  # a state import is the whole state, secrets and all: not kept
EXTENSION = "inspector_requests"


class RequestLog:
    """The last ``limit`` requests, oldest first, each numbered (``seq``) in arrival order."""

    def __init__(self, limit: int = 1000) -> None:
        self._entries: deque[Json] = deque(maxlen=limit)
        self._lock = threading.Lock()
        self._next = 1

    def add(self, entry: Json) -> None:
        with self._lock:
            self._entries.append({"seq": self._next, **entry})
            self._next += 1

    def entries(self, op: str | None = None) -> list[Json]:
        with self._lock:
            return [dict(e) for e in self._entries if op in (None, "", e["op"])]

    def duration_of(self, activity_id: str) -> float | None:
        """How long the request that created ``activity_id`` took (None when not logged)."""
        with self._lock:
            found = [e["durationMs"] for e in self._entries if e.get("activityId") == activity_id]
        return found[0] if found else None


def log_of_app() -> RequestLog:
    return current_app.extensions[EXTENSION]  # type: ignore[no-any-return]


def answered(record: RequestLogEntry, response: Response) -> None:
    """Keep a finished request worth a person's look: the public API, and control calls that change things."""
    if record.kind in ("submit", "query", "control") and record.duration_ms is not None:
        log_of_app().add(entry_for(record))


def entry_for(record: RequestLogEntry) -> Json:
    sim = current_app.extensions["simulator"]
    answer: Json = record.answer if isinstance(record.answer, dict) else {}
    activity: Json = answer["activity"] if isinstance(answer.get("activity"), dict) else {}
    error = record.error
    body = kept_body(record)
    return {
        "timeMs": sim.clock.now_ms(),
        "method": record.method,
        "kind": record.kind,
        "op": record.op,
        "status": record.status,
        "durationMs": record.duration_ms,
        "errorCode": error[0] if error else None,
        "error": error[1] if error else None,
        "activityId": activity.get("id") or activity_in_details(answer),
        "activityStatus": activity.get("status"),
        "organizationId": body.get("organizationId"),
        "request": body,
        "fault": record.fault.describe() if record.fault is not None else None,
        "warnings": list(record.warnings or ()),  # what it passed with (an e-mail domain that receives no mail)
    }


def activity_in_details(answer: Json) -> str | None:
    """A policy denial answers 403 but names the activity it kept in its details."""
    for detail in answer.get("details") or []:
        if isinstance(detail, dict) and isinstance(detail.get("activityId"), str):
            return str(detail["activityId"])
    return None


def kept_body(record: RequestLogEntry) -> Json:
    """The request's body as the pipeline parsed it (a control call's is read here), or a note saying why not."""
    limit = MAX_KEPT_CONTROL_BODY_BYTES if record.kind == "control" else MAX_KEPT_BODY_BYTES
    if record.body is UNREAD:
        raw = request.get_data(cache=True)
        size, body = len(raw), parsed(raw)
    else:
        size, body = record.size, record.body
    if size > limit:
        return {"_note": f"a body of {size} bytes, not kept"}
    if body is None:
        return {"_note": "not a JSON body"}
    return body if isinstance(body, dict) else {"_body": body}


def parsed(raw: bytes) -> object:
    return json_or_none(raw) if raw.strip() else {}
