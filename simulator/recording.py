"""Recording a session as a replayable scenario (``serve --record FILE``).

Each main-interface request becomes a step made ``as`` the user whose key stamped it. Stamps
and timestamps are left out (replay makes its own); a value an earlier answer produced (ids,
fingerprints, addresses) is captured from that answer into a variable and referenced, so the
recording replays against a fresh simulator.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from simulator.auth import stamps
from simulator.errors import ApiError

Json = dict[str, Any]
VOLATILE = re.compile(
    r"^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|sha256:[0-9a-f]{64}|0x[0-9a-fA-F]{40})$"
)


class Recorder:
    def __init__(self, path: Path, scenarios: list[Path], seed: int, credentials: list[Json]) -> None:
        self.path, self.scenarios, self.seed = path, scenarios, seed
        self.users = {c["apiPublicKey"]: c for c in credentials if c.get("apiPublicKey")}
        self.steps: list[Json] = []
        self.produced: dict[str, tuple[int, str]] = {}  # value -> (step index, dotted path)
        self._lock = threading.Lock()

    def add(self, kind: str, op: str, body: Any, headers: Mapping[str, str], status: int, answer: Any) -> None:
        if not isinstance(body, dict):
            return
        with self._lock:
            self.steps.append(self.step(kind, op, body, headers, status, answer))
            self.remember(len(self.steps) - 1, answer, "")

    def step(self, kind: str, op: str, body: Json, headers: Mapping[str, str], status: int, answer: Any) -> Json:
        user = self.user(headers)
        step: Json = {"name": f"{op} #{len(self.steps) + 1}"}
        if user is not None:
            step["as"] = user["userName"]
        if body.get("organizationId") != (user or {}).get("organizationId"):
            step["organization"] = self.reference(body.get("organizationId"))
        if kind == "submit":
            step.update(
                {"submit": op, "type": body.get("type"), "parameters": self.reference(body.get("parameters", {}))}
            )
        else:
            step.update({"query": op, "body": self.reference({k: v for k, v in body.items() if k != "organizationId"})})
        step["expect"] = expectation(status, answer)
        return step

    def user(self, headers: Mapping[str, str]) -> Json | None:
        try:
            return self.users.get(stamps.read_stamp(headers).handle)
        except ApiError:
            return None

    def remember(self, index: int, value: Any, path: str) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                self.remember(index, child, f"{path}.{key}" if path else key)
        elif isinstance(value, list):
            for i, child in enumerate(value):
                self.remember(index, child, f"{path}.{i}")
        elif isinstance(value, str) and VOLATILE.match(value) and value not in self.produced:
            self.produced[value] = (index, path)

    def reference(self, value: Any) -> Any:
        """``value`` with every string an earlier answer produced replaced by ``${var}``."""
        if isinstance(value, dict):
            return {k: self.reference(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.reference(v) for v in value]
        if isinstance(value, str) and value in self.produced:
            index, path = self.produced[value]
            name = f"s{index + 1}_" + re.sub(r"[^A-Za-z0-9]+", "_", path)
            self.steps[index].setdefault("capture", {})[name] = path
            return "${" + name + "}"
        return value

    def save(self) -> Path:
        base = self.path.resolve().parent
        with self._lock:
            data = {
                "version": 1,
                "description": "recorded by wallet-simulator serve --record",
                "seed": self.seed,
                "include": [relative(p, base) for p in self.scenarios],
                "steps": self.steps,
            }
        self.path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
        return self.path


def expectation(status: int, answer: Any) -> Json:
    fields: Json = {}
    if isinstance(answer, dict) and isinstance(answer.get("activity"), dict):
        fields["activity.status"] = answer["activity"]["status"]
    elif isinstance(answer, dict) and status >= 400 and "code" in answer:
        fields["code"] = answer["code"]
    return {"status": status, "fields": fields} if fields else {"status": status}


def relative(path: Path, base: Path) -> str:
    try:
        return str(path.resolve().relative_to(base))
    except ValueError:
        return str(path.resolve())
