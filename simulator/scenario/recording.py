"""Recording a session as a replayable scenario (``serve --record FILE``).

Each main-interface request becomes a step made ``as`` the user whose key stamped it. Stamps
and timestamps are left out (replay makes its own). Every value an answer produced (ids,
fingerprints, addresses of any chain, keys, tokens) that a later request sends back is
captured from that answer into a variable and referenced, also inside longer strings (a policy
condition naming a wallet id), so the recording replays against a fresh simulator or a running
one with another seed. Values the client sent first are its own and stay literal. Shipped
scenarios are included by name, other files by a path relative to the recording.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from simulator.auth import stamps
from simulator.errors import ApiError
from simulator.paths import data_dir
from simulator.wire import Json

CONSTANT = re.compile(r"^[A-Z0-9_]+$")  # enum values such as ACTIVITY_STATUS_COMPLETED
MIN_PRODUCED = 8  # shorter strings are names and flags, not produced values
MIN_EMBEDDED = 20  # a produced value is searched inside longer strings only when this long


class Recorder:
    def __init__(self, path: Path, scenarios: list[Path], seed: int, credentials: list[Json]) -> None:
        self.path, self.scenarios, self.seed = path, scenarios, seed
        self.users = {c["apiPublicKey"]: c for c in credentials if c.get("apiPublicKey")}
        self.steps: list[Json] = []
        self.produced: dict[str, tuple[int, str]] = {}  # value -> (step index, dotted path of the answer)
        self.sent: set[str] = set()  # values the client sent before any answer held them
        self._lock = threading.Lock()

    def add(self, kind: str, op: str, body: Any, headers: Mapping[str, str], status: int, answer: Any) -> None:
        if not isinstance(body, dict):
            return
        with self._lock:
            self.sent.update(strings(body))
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
                self.remember(index, child, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list):
            for i, child in enumerate(value):
                self.remember(index, child, f"{path}.{i}")
        elif is_produced(value) and value not in self.produced and value not in self.sent:
            self.produced[value] = (index, path)

    def reference(self, value: Any) -> Any:
        """``value`` with every string an earlier answer produced replaced by ``${var}``."""
        if isinstance(value, dict):
            return {k: self.reference(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.reference(v) for v in value]
        if not isinstance(value, str):
            return value
        if value in self.produced:
            return "${" + self.variable(value) + "}"
        for produced in sorted(self.produced, key=len, reverse=True):
            if len(produced) >= MIN_EMBEDDED and produced in value:
                value = value.replace(produced, "${" + self.variable(produced) + "}")
        return value

    def variable(self, value: str) -> str:
        """The variable an earlier step captures ``value`` into (added to that step's captures)."""
        index, path = self.produced[value]
        name = f"s{index + 1}_" + re.sub(r"[^A-Za-z0-9]+", "_", path)
        self.steps[index].setdefault("capture", {})[name] = path
        return name

    def save(self) -> Path:
        # imported on first use: PyYAML is not on serve's start path
        import yaml

        base = self.path.resolve().parent
        with self._lock:
            data = {
                "version": 1,
                "description": "recorded by wallet-simulator serve --record",
                "seed": self.seed,
                "include": [include_entry(p, base) for p in self.scenarios],
                "steps": self.steps,
            }
        self.path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
        return self.path


def is_produced(value: Any) -> bool:
    return (
        isinstance(value, str)
        and len(value) >= MIN_PRODUCED
        and not CONSTANT.match(value)
        and not value.isdigit()
        and " " not in value.strip()
    )


def strings(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) else set()


def expectation(status: int, answer: Any) -> Json:
    fields: Json = {}
    if isinstance(answer, dict) and isinstance(answer.get("activity"), dict):
        fields["activity.status"] = answer["activity"]["status"]
    elif isinstance(answer, dict) and status >= 400 and "code" in answer:
        fields["code"] = answer["code"]
    return {"status": status, "fields": fields} if fields else {"status": status}


def include_entry(path: Path, base: Path) -> str:
    """A shipped scenario by name (portable across installs), else a path relative to the recording."""
    shipped = data_dir("scenarios")
    if path.resolve().parent == shipped.resolve() and path.suffix == ".yaml":
        return path.stem
    try:
        return os.path.relpath(path.resolve(), base)
    except ValueError:  # another drive on Windows
        return str(path.resolve())
