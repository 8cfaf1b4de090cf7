"""``parity diff``: two recordings of one suite, exchanges aligned by order and operation, every difference in
what a client can see: the HTTP status, the error's gRPC code and message, the activity's status and type, the
answer's fields, their types and values (values by role: ``simulator.parity.roles``) and the order of lists.

An official client polls ``get_activity`` until an activity ends, as often as the service keeps it pending; a
poll is folded into the submit it follows (the submit is compared as it ended), so how often each side was
polled is no difference.
"""

from __future__ import annotations

import copy
import difflib
import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from simulator.parity.exchanges import Exchange
from simulator.parity.roles import Roles

FIELD_KINDS = {
    "code": "gRPC code",
    "message": "message",
    "activity.status": "activity status",
    "activity.type": "activity type",
}
TERMINAL_POLL = "get_activity"


@dataclass
class Difference:
    number: int  # the aligned exchange's number, from 1
    operation: str
    kind: str  # HTTP status, gRPC code, message, activity status/type, missing/extra field, field type, value, ...
    path: str  # where in the answer ('' for the whole exchange)
    real: str
    simulated: str
    ledger_id: str
    known: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {dict: "object", list: "array", str: "string", type(None): "null"}[type(value)]


def ledger_id(operation: str, kind: str, path: str) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", f"parity {operation} {kind} {path}".lower()).strip("-")
    return words[:120].rstrip("-")


def fold_polls(exchanges: list[Exchange]) -> list[Exchange]:
    """The exchanges without the get_activity polls of an activity a submit started; each submit with the
    answer its last poll gave."""
    kept: list[Exchange] = []
    started: dict[str, Exchange] = {}
    for original in exchanges:
        ex = copy.deepcopy(original)
        asked = (ex.request.get("body") or {}).get("activityId") if isinstance(ex.request.get("body"), dict) else None
        if ex.operation == TERMINAL_POLL and isinstance(asked, str) and asked in started and ex.status == 200:
            started[asked].answer = ex.answer
            continue
        activity = ex.answer.get("activity") if isinstance(ex.answer, dict) else None
        if ex.kind == "submit" and isinstance(activity, dict) and isinstance(activity.get("id"), str):
            started[activity["id"]] = ex
        kept.append(ex)
    return kept


def align(real: list[Exchange], simulated: list[Exchange]) -> list[tuple[Exchange | None, Exchange | None]]:
    """Pairs in order: the longest common run of operations pairs up; the rest is missing on one side."""
    keys = [f"{e.interface}:{e.operation}" for e in real], [f"{e.interface}:{e.operation}" for e in simulated]
    pairs: list[tuple[Exchange | None, Exchange | None]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, keys[0], keys[1], autojunk=False).get_opcodes():
        if tag == "equal":
            pairs.extend(zip(real[i1:i2], simulated[j1:j2]))
        else:
            pairs.extend((e, None) for e in real[i1:i2])
            pairs.extend((None, e) for e in simulated[j1:j2])
    return pairs


class Comparison:
    def __init__(self) -> None:
        self.real, self.simulated = Roles(), Roles()
        self.found: list[Difference] = []

    def add(self, number: int, operation: str, kind: str, path: str, real: str, simulated: str) -> None:
        self.found.append(Difference(number, operation, kind, path, real, simulated, ledger_id(operation, kind, path)))

    def pair(self, number: int, real: Exchange | None, simulated: Exchange | None) -> None:
        if real is None or simulated is None:
            one = real or simulated
            assert one is not None
            side = "real" if real is not None else "simulated"
            shown = f"{one.status} {self.summary(one, self.real if real else self.simulated)}"
            self.add(
                number,
                one.operation,
                "missing exchange" if side == "real" else "extra exchange",
                "",
                shown if side == "real" else "(none)",
                shown if side == "simulated" else "(none)",
            )
            (self.real if real else self.simulated).learn(one.answer, f"unmatched {side} exchange {one.index}")
            return
        where = f"#{number} {real.operation}"
        self.real.learn(real.request.get("body"), f"request {where}")
        self.simulated.learn(simulated.request.get("body"), f"request {where}")
        if real.status != simulated.status:
            self.add(
                number,
                real.operation,
                "HTTP status",
                "",
                f"{real.status} {self.summary(real, self.real)}",
                f"{simulated.status} {self.summary(simulated, self.simulated)}",
            )
        else:
            self.walk(number, real.operation, real.answer, simulated.answer, "", "")
        self.real.learn(real.answer, f"answer {where}")
        self.simulated.learn(simulated.answer, f"answer {where}")

    def summary(self, ex: Exchange, roles: Roles) -> str:
        answer = ex.answer if isinstance(ex.answer, dict) else {}
        if isinstance(answer.get("activity"), dict):
            return str(answer["activity"].get("status", ""))
        if "code" in answer or "message" in answer:
            return f"code {answer.get('code')}: {roles.sentence(str(answer.get('message', '')))}"
        return ""

    def walk(self, number: int, op: str, real: Any, simulated: Any, path: str, key: str) -> None:
        kind = FIELD_KINDS.get(path, "value")
        if json_type(real) != json_type(simulated):
            self.add(number, op, "field type", path, describe(real), describe(simulated))
        elif isinstance(real, dict):
            for name in real:
                child = f"{path}.{name}" if path else name
                if name not in simulated:
                    self.add(number, op, "missing field", child, describe(real[name]), "(absent)")
                else:
                    self.walk(number, op, real[name], simulated[name], child, name)
            for name in simulated:
                if name not in real:
                    child = f"{path}.{name}" if path else name
                    self.add(number, op, "extra field", child, "(absent)", describe(simulated[name]))
        elif isinstance(real, list):
            if len(real) != len(simulated):
                self.add(number, op, "list length", path, f"{len(real)} items", f"{len(simulated)} items")
            for i, (a, b) in enumerate(zip(real, simulated)):
                self.walk(number, op, a, b, f"{path}.{i}" if path else str(i), key)
        elif isinstance(real, str):
            a, b = self.real.norm(real, key), self.simulated.norm(simulated, key)
            if a != b:
                self.add(number, op, kind, path, a.shown(), b.shown())
        elif (
            isinstance(real, (int, float)) and not isinstance(real, bool) and key in ("seconds", "nanos", "exp", "iat")
        ):
            return  # a time: its type is compared
        elif real != simulated:
            self.add(number, op, kind, path, json.dumps(real), json.dumps(simulated))


def describe(value: Any) -> str:
    if isinstance(value, dict):
        return f"object ({len(value)} fields)"
    if isinstance(value, list):
        return f"array ({len(value)} items)"
    return json_type(value)


def compare(real: list[Exchange], simulated: list[Exchange]) -> tuple[list[Difference], int]:
    """The differences, in the aligned order, and how many exchanges were aligned."""
    pairs = align(fold_polls(real), fold_polls(simulated))
    comparison = Comparison()
    for number, (a, b) in enumerate(pairs, start=1):
        comparison.pair(number, a, b)
    return comparison.found, len(pairs)
