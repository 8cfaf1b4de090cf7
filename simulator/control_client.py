"""A small client for a running simulator's control API (/_simulator), for tests and the CLI."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

Json = dict[str, Any]


class ControlError(RuntimeError):
    """The control API refused a call; the message is its error message."""


class ControlClient:
    """``ControlClient("http://127.0.0.1:8080").approve(activity_id, "Bob")`` and the like."""

    def __init__(self, url: str, timeout: float = 30) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    def call(self, method: str, path: str, body: Any = None, **query: str) -> Any:
        qs = f"?{urllib.parse.urlencode(query)}" if query else ""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}/_simulator{path}{qs}", data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                return json.load(reply)
        except urllib.error.HTTPError as exc:
            raise ControlError(json.load(exc).get("message", str(exc))) from None

    def reset(self) -> None:
        self.call("POST", "/reset", {})

    def load_scenarios(self, paths: list[Path], replace: bool = True) -> list[Json]:
        return self.call("POST", "/scenarios", {"paths": [str(p) for p in paths], "replace": replace})["credentials"]

    def snapshot(self) -> str:
        return str(self.call("POST", "/snapshots", {})["snapshotId"])

    def restore(self, snapshot_id: str) -> None:
        self.call("POST", f"/snapshots/{snapshot_id}/restore", {})

    def state(self) -> Json:
        return self.call("GET", "/state")  # type: ignore[no-any-return]

    def import_state(self, state: Json) -> None:
        self.call("PUT", "/state", state)

    def journal(self, op: str | None = None) -> list[Json]:
        return self.call("GET", "/journal", **({"op": op} if op else {}))["entries"]  # type: ignore[no-any-return]

    def advance_clock(self, seconds: float) -> int:
        return int(self.call("POST", "/clock/advance", {"seconds": seconds})["nowMs"])

    def outbox(self, contact: str | None = None) -> list[Json]:
        return self.call("GET", "/outbox", **({"contact": contact} if contact else {}))["messages"]  # type: ignore[no-any-return]

    def approve(self, activity_id: str, user: str) -> Json:
        return self.call("POST", f"/activities/{activity_id}/approve", {"userId": user})["activity"]  # type: ignore[no-any-return]

    def reject(self, activity_id: str, user: str) -> Json:
        return self.call("POST", f"/activities/{activity_id}/reject", {"userId": user})["activity"]  # type: ignore[no-any-return]

    def explain(self, activity_id: str) -> Json:
        return self.call("GET", f"/activities/{activity_id}/explain")  # type: ignore[no-any-return]

    def coverage(self) -> Json:
        return self.call("GET", "/coverage")  # type: ignore[no-any-return]
