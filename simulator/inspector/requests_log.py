"""The inspector's request log: every request the main port answered, with its duration.

The journal (``Simulator.journal``) keeps what a request asked and how it ended, but not how
long it took; this log times each request from the transport's side and keeps the last
``limit`` of them, so the page can show status, duration and error together. Reads of the
control API and the inspector's own polling are left out: they would bury the requests a
person is looking for.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque

from flask import Response, current_app, g, request

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


def started() -> None:
    g.inspector_started = time.perf_counter()


def answered(response: Response) -> Response:
    kind, op = classify(request.method, request.path)
    started_at = g.get("inspector_started")
    if kind is not None and started_at is not None:
        duration = round((time.perf_counter() - started_at) * 1000, 2)
        log_of_app().add(entry_for(kind, op, response, duration))
    return response


def classify(method: str, path: str) -> tuple[str | None, str]:
    """(kind, op) of a request worth logging: the public API, and control calls that change things."""
    parts = path.strip("/").split("/")
    if len(parts) == 4 and parts[:2] == ["public", "v1"] and parts[2] in ("submit", "query"):
        return parts[2], parts[3]
    if parts[0] == "_simulator" and method not in ("GET", "HEAD", "OPTIONS") and parts[1:2] != ["ui"]:
        return "control", "/".join(parts[1:])
    return None, ""


def entry_for(kind: str, op: str, response: Response, duration_ms: float) -> Json:
    sim = current_app.extensions["simulator"]
    parsed = response.get_json(silent=True) if response.is_json else None
    answer: Json = parsed if isinstance(parsed, dict) else {}
    activity: Json = answer["activity"] if isinstance(answer.get("activity"), dict) else {}
    failed = response.status_code >= 400
    body = request_body(MAX_KEPT_CONTROL_BODY_BYTES if kind == "control" else MAX_KEPT_BODY_BYTES)
    return {
        "timeMs": sim.clock.now_ms(),
        "method": request.method,
        "kind": kind,
        "op": op,
        "status": response.status_code,
        "durationMs": duration_ms,
        "errorCode": (answer.get("turnkeyErrorCode") or answer.get("code")) if failed else None,
        "error": answer.get("message") if failed else None,
        "activityId": activity.get("id") or activity_in_details(answer),
        "activityStatus": activity.get("status"),
        "organizationId": body.get("organizationId"),
        "request": body,
    }


def activity_in_details(answer: Json) -> str | None:
    """A policy denial answers 403 but names the activity it kept in its details."""
    for detail in answer.get("details") or []:
        if isinstance(detail, dict) and isinstance(detail.get("activityId"), str):
            return str(detail["activityId"])
    return None


def request_body(limit: int) -> Json:
    raw = request.get_data(cache=True)
    if len(raw) > limit:
        return {"_note": f"a body of {len(raw)} bytes, not kept"}
    try:
        body = json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError):
        return {"_note": "not a JSON body"}
    return body if isinstance(body, dict) else {"_body": body}
