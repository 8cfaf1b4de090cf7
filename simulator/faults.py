"""Faults on demand: which API requests get a transport fault, and which fault.

A fault is matched as a scripted rule is (simulator/handler_support/matching.py): by operation,
activity type (or kind), organization (id or name) and parameters, with ``occurrence`` (its n-th
matching request only), ``times`` (its first n hits only) and ``probability``. Faults are tried in
the order they were added; the first that applies decides, and a request gets at most one.

The probability is drawn from the run's seed but not from its random source: the n-th request a
fault matches draws from ``Random("<seed>/<fault name>/<n>")`` (``drawn``), so a seeded run gives
the same faults to the same requests, a test can compute which hits to expect, and adding a fault
never shifts the ids, keys and mnemonics the seeded source hands out to everything else.

The decision is made by the transport (simulator/server/wsgi.py) once a request is complete, before any
worker runs it: ``reset`` and ``timeout`` never reach the application, ``latency`` before the work
waits on the I/O loop, and the others are carried out around the application's answer. This module
only decides; what each kind does to the connection is the transport's.
"""

from __future__ import annotations

import math
import random
import threading
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from simulator.errors import ApiError
from simulator.handler_support.matching import contains
from simulator.operations import operation_names
from simulator.operations.activity_types import kind_of
from simulator.wire import Json

KINDS = ("latency", "unavailable", "lostAnswer", "reset", "timeout", "slow")
# answered by the application (pipeline.carry_fault), so every transport carries them; the other kinds act on the
# connection, which only the waitress transport does (simulator/server/wsgi.py; ARCHITECTURE.md, "Transports")
APPLICATION_KINDS = ("unavailable",)
INTERFACES = ("api", "authProxy")  # the main interface's /public/v1/..., the auth proxy's /v1/...
MAX_DELAY_MS = 60_000  # a latency, or a slow answer's whole time, is at most a minute
MAX_TIMEOUT_SECONDS = 600  # a held connection is closed after this long at most
DEFAULT_TIMEOUT_SECONDS = 60
KEPT_HITS = 100  # the requests each fault hit, newest kept for the inspector and the listing
OPTION_KEYS = {
    "latency": {"ms", "minMs", "maxMs", "medianMs", "sigma", "distribution", "when"},
    "unavailable": {"code", "message"},
    "lostAnswer": set(),
    "reset": set(),
    "timeout": {"seconds"},
    "slow": {"seconds", "pieces"},
}
COMMON_KEYS = {"name", "kind", "match", "probability", "times"}


class FaultError(ValueError):
    """A fault that cannot be added (the control API answers it 400, a scenario names its line)."""


@dataclass
class Hit:
    """What one request gets: the fault's kind and what the transport needs to carry it out."""

    name: str
    kind: str
    delay_s: float = 0.0  # latency: how long; slow: the whole dribble; timeout: the bound
    when: str = "before"  # latency: before the work, or after it
    pieces: int = 1  # slow: in how many pieces the answer goes out
    code: int = 13  # unavailable: the gRPC code (13 internal, 14 unavailable)
    message: str = ""

    def describe(self) -> Json:
        """The fault as the journal and the inspector show it on the request."""
        found: Json = {"name": self.name, "kind": self.kind}
        if self.kind == "latency":
            found.update(ms=round(self.delay_s * 1000), when=self.when)
        elif self.kind in ("slow", "timeout"):
            found["seconds"] = self.delay_s
        elif self.kind == "unavailable":
            found["code"] = self.code
        return found


class ServiceUnavailable(ApiError):
    """The service's own answer for an internal (13, HTTP 500) or unavailable (14, HTTP 503) error."""

    def __init__(self, hit: Hit) -> None:
        super().__init__(hit.message, error_code="INTERNAL")
        self.grpc_code = hit.code
        self.status = 503 if hit.code == 14 else 500


@dataclass
class Fault:
    spec: Json
    matched: int = 0  # requests its match selected (occurrence and probability count these)
    hits: int = 0  # requests it was applied to
    recent: deque[Json] = field(default_factory=lambda: deque(maxlen=KEPT_HITS))

    @property
    def name(self) -> str:
        return str(self.spec["name"])

    def listing(self) -> Json:
        return {**self.spec, "matched": self.matched, "hits": self.hits, "requests": list(self.recent)}


def drawn(seed: int, name: str, n: int, probability: float) -> bool:
    """Whether the n-th request fault ``name`` matches is hit, under ``seed`` (what ``pick`` draws)."""
    return stream(seed, name, n).random() < probability


def stream(seed: int, name: str, n: int) -> random.Random:
    return random.Random(f"{seed}/{name}/{n}")


def checked(spec: Json, taken: set[str], number: int, strict_names: bool = True) -> Json:
    """The fault with its defaults and its operations named as the catalogue names them, or FaultError saying
    what is wrong (the schema checks the types). ``strict_names=False`` (a scenario file's fault, which warns
    instead: simulator/scenario/flow_checks.py) keeps a name that names no operation as it was."""
    found = dict(spec)
    kind = found.get("kind")
    if kind not in KINDS:
        raise FaultError(f"fault kind must be one of {', '.join(KINDS)}, got {kind!r}")
    extra = set(found) - COMMON_KEYS - OPTION_KEYS[kind]
    if extra:
        raise FaultError(f"a {kind} fault does not take {', '.join(sorted(extra))}")
    found.setdefault("name", f"fault-{number}")
    if found["name"] in taken:
        raise FaultError(f"a fault named {found['name']!r} exists already: remove it first, or pick another name")
    match = found["match"] = dict(found.get("match") or {})
    if match.get("interface", "api") not in INTERFACES:
        raise FaultError(f"match.interface must be one of {', '.join(INTERFACES)}")
    if "operation" in match:
        match["operation"] = named_operations(match["operation"], match.get("interface", "api"), strict_names)
    if kind == "latency":
        check_latency(found)
    if kind == "unavailable" and found.get("code", 13) not in (13, 14):
        raise FaultError("an unavailable fault answers gRPC code 13 (internal, HTTP 500) or 14 (unavailable, HTTP 503)")
    if kind == "timeout" and not 0 < found.get("seconds", DEFAULT_TIMEOUT_SECONDS) <= MAX_TIMEOUT_SECONDS:
        raise FaultError(f"a timeout holds the connection for more than 0 and at most {MAX_TIMEOUT_SECONDS} seconds")
    if kind == "slow" and not 0 < found.get("seconds", 1) * 1000 <= MAX_DELAY_MS:
        raise FaultError(f"a slow answer takes more than 0 and at most {MAX_DELAY_MS // 1000} seconds")
    return found


def named_operations(value: str | list[str], interface: str, strict: bool) -> str | list[str]:
    """``match.operation`` with each client method name (get_wallets) its operation's (list_wallets); a name
    of no operation of the interface is refused naming the closest (kept as it is when not ``strict``)."""
    kinds = operation_names.INTERFACE_KINDS[interface]
    names = [value] if isinstance(value, str) else list(value)
    resolved = [operation_names.resolve(name, kinds) for name in names]
    unknown = [r.problem for r in resolved if r.operation is None]
    if unknown and strict:
        raise FaultError(f"match.operation: {'; '.join(unknown)}")
    found = [r.operation or r.name for r in resolved]
    return found[0] if isinstance(value, str) else found


def check_latency(spec: Json) -> None:
    how = spec.get("distribution", "fixed")
    needs = {"fixed": {"ms"}, "uniform": {"minMs", "maxMs"}, "lognormal": {"medianMs"}}[how]
    missing = needs - set(spec)
    if missing:
        raise FaultError(f"a {how} latency needs {', '.join(sorted(missing))}")
    largest = {"fixed": spec.get("ms", 0), "uniform": spec.get("maxMs", 0), "lognormal": spec.get("medianMs", 0)}
    if largest[how] > MAX_DELAY_MS or spec.get("minMs", 0) > spec.get("maxMs", MAX_DELAY_MS):
        raise FaultError(f"latency is at most {MAX_DELAY_MS} ms, and minMs at most maxMs")


@dataclass(frozen=True)
class Request:
    """What a fault matches on, as the transport read it."""

    interface: str  # api or authProxy
    operation: str  # create_wallet, get_whoami, otp_init
    body: Json
    organization_name: str | None = None  # the organization's name, when the simulator knows it


def applies(match: Json, request: Request) -> bool:
    if match.get("interface", "api") != request.interface:
        return False
    wanted_ops = match.get("operation")
    if wanted_ops is not None and request.operation not in (
        [wanted_ops] if isinstance(wanted_ops, str) else wanted_ops
    ):
        return False
    types = match.get("type")
    if types is not None:
        activity_type = str(request.body.get("type", ""))
        wanted = [types] if isinstance(types, str) else types
        if activity_type not in wanted and kind_of(activity_type) not in wanted:
            return False
    org_id = request.body.get("organizationId")
    if "organization" in match and match["organization"] not in (org_id, request.organization_name):
        return False
    params = request.body.get("parameters", request.body)
    return contains(params, match.get("parameters", {}))


class Faults:
    """The active faults of one simulator, thread-safe; ``armed`` is False when there is none, so the
    transport reads no body for them. ``carried``: the kinds the simulator's transport (``server``) can
    carry out; adding another is refused, naming the transport that can."""

    def __init__(self, seed: int, carried: tuple[str, ...] = KINDS, server: str = "waitress") -> None:
        self.seed = seed
        self.carried, self.server = carried, server
        self._lock = threading.Lock()
        self._faults: list[Fault] = []
        self._numbered = 0
        self.armed = False

    def add(self, spec: Json, strict_names: bool = True) -> Json:
        """The fault, started (``checked``: a scenario file's is added with ``strict_names=False``)."""
        with self._lock:
            self._numbered += 1
            found = checked(spec, {f.name for f in self._faults}, self._numbered, strict_names)
            if found["kind"] not in self.carried:
                raise FaultError(
                    f"a {found['kind']} fault acts on the connection, which the {self.server} transport does not "
                    f"do (it carries {', '.join(self.carried)} faults only): serve with --server waitress (the "
                    "default) for it"
                )
            self._faults.append(Fault(found))
            self.armed = True
            return dict(found)

    def remove(self, name: str) -> bool:
        with self._lock:
            kept = [f for f in self._faults if f.name != name]
            removed = len(kept) != len(self._faults)
            self._faults = kept
            self.armed = bool(kept)
            return removed

    def replace(self, specs: list[Json]) -> None:
        """Exactly these faults, their counts at zero (a reset to the scenarios' faults)."""
        with self._lock:
            self._faults = [Fault(dict(s)) for s in specs]
            self._numbered = len(specs)
            self.armed = bool(specs)

    def listing(self) -> list[Json]:
        with self._lock:
            return [f.listing() for f in self._faults]

    def pick(self, request: Request, now_ms: int) -> Hit | None:
        """The fault this request gets, counted, or None."""
        with self._lock:
            for fault in self._faults:
                spec = fault.spec
                if not applies(spec["match"], request):
                    continue
                fault.matched += 1
                wanted = spec["match"].get("occurrence")
                if wanted is not None and fault.matched != wanted:
                    continue
                if "times" in spec and fault.hits >= spec["times"]:
                    continue
                draws = stream(self.seed, fault.name, fault.matched)
                if "probability" in spec and not draws.random() < spec["probability"]:
                    continue
                fault.hits += 1
                hit = make_hit(spec, draws)
                fault.recent.append(
                    {
                        "timeMs": now_ms,
                        "interface": request.interface,
                        "operation": request.operation,
                        "organizationId": request.body.get("organizationId"),
                        "type": request.body.get("type"),
                        "fault": hit.describe(),
                    }
                )
                return hit
        return None


def make_hit(spec: Json, draws: random.Random) -> Hit:
    kind, name = spec["kind"], spec["name"]
    if kind == "latency":
        return Hit(name, kind, latency_ms(spec, draws) / 1000, when=spec.get("when", "before"))
    if kind == "slow":
        return Hit(name, kind, float(spec.get("seconds", 1)), pieces=int(spec.get("pieces", 10)))
    if kind == "timeout":
        return Hit(name, kind, float(spec.get("seconds", DEFAULT_TIMEOUT_SECONDS)))
    if kind == "unavailable":
        code = int(spec.get("code", 13))
        incident = uuid.UUID(int=draws.getrandbits(128), version=4)
        default = f"internal server error ({incident})" if code == 13 else "service unavailable"
        return Hit(name, kind, code=code, message=str(spec.get("message", default)))
    return Hit(name, kind)


def latency_ms(spec: Json, draws: random.Random) -> float:
    how = spec.get("distribution", "fixed")
    if how == "uniform":
        return float(draws.uniform(spec["minMs"], spec["maxMs"]))
    if how == "lognormal":
        drawn_ms = draws.lognormvariate(math.log(max(spec["medianMs"], 1)), float(spec.get("sigma", 0.5)))
        return float(min(drawn_ms, MAX_DELAY_MS))
    return float(spec["ms"])


def request_of(interface: str, path: str, raw: bytes, org_name: Callable[[str], str | None]) -> Request | None:
    """The request a fault can match, from the transport's path and body; None for anything else
    (the control API, the inspector, pages)."""
    parts = path.strip("/").split("/")
    if interface == "api" and len(parts) == 4 and parts[:2] == ["public", "v1"] and parts[2] in ("submit", "query"):
        operation = parts[3]
    elif interface == "authProxy" and len(parts) == 2 and parts[0] == "v1":
        operation = parts[1]
    else:
        return None
    body = parsed(raw)
    org_id = body.get("organizationId")
    return Request(interface, operation, body, org_name(org_id) if isinstance(org_id, str) else None)


def parsed(raw: bytes) -> Json:
    import json

    try:
        found: Any = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}
