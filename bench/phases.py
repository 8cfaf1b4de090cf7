"""Where an operation's own work goes, phase by phase: what bench/floors.py prints under a missed target.

    python bench/phases.py sign_raw_payload [--requests 300]

PHASES maps the simulator's functions to the phases of a request (and says why each phase stays); the
meter wraps each mapped function for the time of one measurement, so that a request's time is split
among the phases by the innermost mapped function running: a phase's figure is the time in its functions
less the time in the mapped functions they call. Time outside every phase is Flask's and werkzeug's; two
phases are not the simulator's own work and are measured only to be set aside: the stamp's P-256 check
(the floor, bench/floors.py) and what the echo does too (the body read, the Response made). The last row,
Flask beyond the echo's, is what is left of the own work: Flask's time for this request over the echo's.

Wrapping rather than cProfile: only the mapped functions pay the meter (two ``perf_counter`` reads each,
about 1 µs a call, measured and subtracted from the phase it charges and from the one it is called from),
so the figures stay close to the unmetered request; a profiler pays on every call, and inflates the phases
of many small calls over those of a few large ones. Wall time (the thread's CPU clock costs 0.7 µs a read
here); the slowest tenth of the requests (a core lost to another process) is left out. On a busy machine
the figures move together by up to 2x from run to run; the shares hold. Instruction counts of the whole
request are bench/instructions.py's.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib
import json
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hotspots import call
from load import Request
from server import echo_app
from workload import Workload, scenario_file

from simulator import Config, Simulator, create_app

FLASK = "flask"  # outside every phase: Flask and werkzeug, and what the echo does too
STAMP = "stamp"  # the P-256 check: the floor, not own work
CALIBRATION = "calibration"  # the meter measuring itself


@dataclass(frozen=True)
class Phase:
    name: str
    why: str  # one line: which behaviour or check it is, and what relies on it
    targets: tuple[str, ...]  # "module:function", "module:Class.method" (a property: its getter and setter)


# The request's phases, in the order a request meets them. Each ``why`` names the behaviour and the test or
# earlier target that holds it; the figures beside them are measured, never written here.
PHASES = (
    Phase(
        "record and log line",
        "one record per request, read by the request log line, the journal and the inspector; the reason phrase",
        (
            "simulator.http.log_entry:RequestLogEntry.begin",
            "simulator.http.logs:_answered",
            "simulator.http.status_line:with_usual_reason",
        ),
    ),
    Phase(
        "size and origin checks",
        "413 over --max-body-bytes on every route; a browser origin not allowed refused 403 (tests/http)",
        ("simulator.web.app:admit",),
    ),
    Phase(
        "CORS headers",
        "Vary: Origin on every public answer, allow-origin for an allowed browser (tests/http/test_cors*)",
        ("simulator.web.cors:add_cors_headers",),
    ),
    Phase(
        "view: headers read",
        "the pipeline looks headers up in any case, and the peer's address for IP allowlists (ip_allowlist)",
        ("simulator.web.app:submit", "simulator.web.app:query", "simulator.web.app:headers"),
    ),
    Phase(
        "answer encoded",
        "the answer's JSON byte for byte the standard encoder's, keys in order (orjson where equal)",
        ("simulator.web.app:json_response",),
    ),
    Phase(
        "stamp header decoded",
        "base64url JSON with the depth bound, SIGNATURE_INVALID on anything malformed (tests/auth)",
        ("simulator.auth.stamps:read_stamp",),
    ),
    Phase(
        "body parsed, validated",
        "nulls dropped, the public schema checked (fastjsonschema), int64 as strings, timestampMs window",
        (
            "simulator.http.request_body:parse_body",
            "simulator.operations.validation:Schemas.validate",
            "simulator.pipeline:check_liveness",
        ),
    ),
    Phase(
        "credential looked up",
        "the stamp's key found (credential index), its expiry, the organization's IP allowlist",
        ("simulator.pipeline:authenticate",),
    ),
    Phase(
        "pipeline stages",
        "operation looked up, clock read, store lock, idempotency by fingerprint, rate limits, contexts",
        ("simulator.pipeline:run_activity", "simulator.pipeline:run_query"),
    ),
    Phase(
        "policy evaluation",
        "quorum and policies decide every activity; the evaluation kept for get_policy_evaluations",
        ("simulator.consensus.engine:decide", "simulator.handler_support.envelope:record_evaluation"),
    ),
    Phase(
        "activity envelope",
        "scripted rules, refusals' undo marks, the activity's ids and intent, retention's bookkeeping",
        (
            "simulator.pipeline:start_activity",
            "simulator.handler_support.envelope:new_activity",
            "simulator.consensus.lifecycle:begin",
            "simulator.state.store:Store.add_activity",
        ),
    ),
    Phase(
        "requester's vote",
        "the submission is the requester's approval, signed text and voter's view (votes in every answer)",
        ("simulator.handler_support.envelope:make_vote",),
    ),
    Phase(
        "result kept, compacted",
        "result kept as compact JSON, intent read back from the request once final (<= 2 KiB per activity)",
        ("simulator.state.activity:Activity.result", "simulator.state.activity:Activity.compact"),
    ),
    Phase(
        "handler",
        "the operation itself",
        ("simulator.operations.catalogue:Operation.handler_function",),  # wraps the handler it returns
    ),
    Phase(
        "answer built",
        "the wire activity: intent, result, votes, canApprove/canReject as the caller sees them",
        ("simulator.state.activity:Activity.to_api",),
    ),
    Phase(
        "journal entry",
        "every main-interface call kept with its outcome (journal assertions, the inspector, --record)",
        ("simulator.pipeline:finish",),
    ),
    Phase(STAMP, "the P-256 check: the floor", ("simulator.auth.stamps:verify_api_key_stamp",)),
    Phase(
        FLASK,
        "the echo does it too",
        ("werkzeug.wrappers.request:Request.get_data", "werkzeug.wrappers.response:Response.__init__"),
    ),
)
HANDLERS_WHY = {  # the handler phase's reason, by operation
    "whoami": "the organization and user the stamp's key belongs to",
    "get_activity": "the activity found by id and the poll counted toward a scripted wait (its answer: below)",
    "sign_raw_payload": "the signature itself (coincurve secp256k1), the signer found by address",
    "sign_transaction": "the transaction parsed, hashed (Keccak) and signed (coincurve secp256k1)",
}
REST = "Flask beyond the echo's"
REST_WHY = "Flask matching one of the app's {routes} routes (the echo's: {echo_routes}) and calling its hooks"
OWN_PHASES = tuple(p.name for p in PHASES if p.name not in (FLASK, STAMP))


@dataclass
class Breakdown:
    """One operation's own work per request, by phase (µs), from one metered pass."""

    operation: str
    requests: int
    phases: dict[str, float]  # own phases, then REST
    calls: dict[str, float] = field(default_factory=dict)  # mapped calls per request, by phase
    routes: tuple[int, int] = (0, 0)  # the URL rules Flask matches the path against: the app's, the echo's

    @property
    def own_us(self) -> float:
        return sum(self.phases.values())

    def why(self, phase: str) -> str:
        if phase == REST:
            return REST_WHY.format(routes=self.routes[0], echo_routes=self.routes[1])
        if phase == "handler":
            return HANDLERS_WHY.get(self.operation, "the operation itself")
        return next(p.why for p in PHASES if p.name == phase)


class Meter:
    """Splits one thread's time among the phases: the innermost mapped function running is charged."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()
        self.stack = [FLASK]
        self.last = time.perf_counter()
        self.spent: dict[str, float] = dict.fromkeys((*OWN_PHASES, STAMP, FLASK, CALIBRATION), 0.0)
        self.calls: dict[str, int] = dict.fromkeys(self.spent, 0)  # metered calls of each phase's functions
        self.inner: dict[str, int] = dict.fromkeys(self.spent, 0)  # metered calls made from within each phase

    def start(self) -> None:
        for phase in self.spent:
            self.spent[phase], self.calls[phase], self.inner[phase] = 0.0, 0, 0
        self.stack[:] = [FLASK]  # in place: the wrappers hold this list
        self.last = time.perf_counter()

    def wrap(self, function: Callable[..., Any], phase: str) -> Callable[..., Any]:
        spent, calls, inner, stack, thread = self.spent, self.calls, self.inner, self.stack, self.thread

        @functools.wraps(function)
        def metered(*args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() != thread:  # another thread (the mnemonic pool): not this request's
                return function(*args, **kwargs)
            now = time.perf_counter()
            spent[stack[-1]] += now - self.last
            inner[stack[-1]] += 1
            stack.append(phase)
            calls[phase] += 1
            self.last = now
            try:
                return function(*args, **kwargs)
            finally:
                now = time.perf_counter()
                spent[stack.pop()] += now - self.last
                self.last = now

        return metered

    def wrap_handlers(self, run: Callable[..., Any], phase: str) -> Callable[..., Any]:
        """``Operation.run`` returns the handler; the handler is what is charged."""

        @functools.wraps(run)
        def metered_run(operation: Any) -> Any:
            return self.wrap(run(operation), phase)

        return metered_run


def resolve(target: str) -> tuple[Any, str]:
    """(owner, attribute) of "module:name" or "module:Class.name"."""
    module, _, dotted = target.partition(":")
    try:
        owner: Any = importlib.import_module(module)
    except ModuleNotFoundError:  # a tree from before the folders (bench/instructions.py --against): simulator.<module>
        owner = importlib.import_module("simulator." + module.rpartition(".")[2])
    *path, name = dotted.split(".")
    for part in path:
        owner = getattr(owner, part)
    if name not in vars(owner):
        raise AttributeError(f"{target}: no such function (bench/phases.py's PHASES went stale)")
    return owner, name


@contextmanager
def metered(meter: Meter, app: Any) -> Iterator[None]:
    """Every target of PHASES wrapped while the block runs, wherever the simulator holds it: its defining module
    or class, the modules that imported it by name, and ``app``'s hooks and views."""
    undo: list[Callable[[], None]] = []
    replaced: dict[int, Any] = {}  # id of an original function -> its wrapper
    for phase in PHASES:
        for target in phase.targets:
            owner, name = resolve(target)
            original = vars(owner)[name]
            if target == "simulator.operations.catalogue:Operation.handler_function":
                wrapper: Any = meter.wrap_handlers(original, phase.name)
            elif isinstance(original, classmethod):
                wrapper = classmethod(meter.wrap(original.__func__, phase.name))
            elif isinstance(original, property):
                getter = original.fget and meter.wrap(original.fget, phase.name)
                wrapper = property(getter, original.fset and meter.wrap(original.fset, phase.name))
            else:
                wrapper = meter.wrap(original, phase.name)
                replaced[id(original)] = wrapper
            setattr(owner, name, wrapper)
            undo.append(functools.partial(setattr, owner, name, original))
    for module in [m for n, m in sys.modules.items() if n.startswith("simulator") and m is not None]:
        for name, value in list(vars(module).items()):
            if id(value) in replaced and callable(value):
                setattr(module, name, replaced[id(value)])
                undo.append(functools.partial(setattr, module, name, value))
    lists = [*app.before_request_funcs.values(), *app.after_request_funcs.values()]
    saved = [list(hooks) for hooks in lists]
    views = dict(app.view_functions)
    for hooks in lists:
        hooks[:] = [replaced.get(id(f), f) for f in hooks]
    app.view_functions.update({k: replaced.get(id(f), f) for k, f in views.items()})
    runnable = getattr(app, "_runnable", {})
    runnable.clear()  # SyncFlask's per-function cache: it would hand out the unwrapped hooks
    try:
        yield
    finally:
        for hooks, kept in zip(lists, saved, strict=True):
            hooks[:] = kept
        app.view_functions.update(views)
        runnable.clear()
        for step in reversed(undo):
            step()


@dataclass(frozen=True)
class MeterCost:
    """What one metered call adds, in seconds: to the phase it charges, and to the phase it is called from."""

    inside: float
    outside: float


def meter_cost(calls: int = 2000) -> MeterCost:
    """The meter's own cost, from a no-op metered ``calls`` times against the same loop calling it plain
    (medians of five rounds): subtracted per call from the phases, so that they read as unmetered."""
    meter = Meter()
    nothing = meter.wrap(lambda: None, CALIBRATION)
    plain: Callable[[], None] = lambda: None  # noqa: E731
    inside, outside = [], []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            plain()
        bare = time.perf_counter() - start
        meter.start()
        for _ in range(calls):
            nothing()
        meter.spent[FLASK] += time.perf_counter() - meter.last
        inside.append(meter.spent[CALIBRATION] / calls)
        outside.append((meter.spent[FLASK] - bare) / calls)
    return MeterCost(max(statistics.median(inside), 0.0), max(statistics.median(outside), 0.0))


def kept(samples: list[float]) -> list[int]:
    """Indices of the samples up to the 90th percentile (the rest lost a core to another process)."""
    cut = sorted(samples)[max(int(len(samples) * 0.9) - 1, 0)]
    return [i for i, s in enumerate(samples) if s <= cut]


def measure(app: Any, work: Workload, operation: str, requests: int = 300) -> Breakdown:
    """``operation``'s own work by phase on ``app`` (warm, set up by the caller with ``work``). The echo's
    request is timed just before each of the simulator's (the same body at its own route), so that the two
    see the same machine and the last row, a difference, does not drift with the load."""
    echo = echo_app()
    batch = work.batch(operation, requests)
    cost = meter_cost()
    meter = Meter()
    echoes: list[float] = []
    rows: list[tuple[float, dict[str, float], dict[str, int], dict[str, int]]] = []

    def metered_call(target: Any, request: Request) -> None:
        meter.start()
        call(target, request)
        meter.spent[meter.stack[-1]] += time.perf_counter() - meter.last

    with metered(meter, app):
        for request in work.batch(operation, 20):  # the wrappers warm
            call(app, request)
            call(echo, dataclasses.replace(request, path="/"))
        for request in batch:
            metered_call(echo, dataclasses.replace(request, path="/"))  # the echo at its own route, as floors.py
            echoes.append(sum(meter.spent.values()) - sum(meter.calls.values()) * (cost.inside + cost.outside))
            metered_call(app, request)
            rows.append((sum(meter.spent.values()), dict(meter.spent), dict(meter.calls), dict(meter.inner)))
    echo_us = statistics.fmean(echoes[i] for i in kept(echoes)) * 1e6
    chosen = [rows[i] for i in kept([r[0] for r in rows])]

    def per_request(phase: str) -> tuple[float, float]:
        calls = statistics.fmean(r[2][phase] for r in chosen)
        inner = statistics.fmean(r[3][phase] for r in chosen)
        return (statistics.fmean(r[1][phase] for r in chosen) - calls * cost.inside - inner * cost.outside) * 1e6, calls

    figures = {phase: per_request(phase) for phase in (*OWN_PHASES, STAMP, FLASK)}
    phases = {name: max(figures[name][0], 0.0) for name in OWN_PHASES if figures[name][1]}
    phases[REST] = figures[FLASK][0] - echo_us
    calls = {name: figures[name][1] for name in OWN_PHASES}
    routes = (len(list(app.url_map.iter_rules())), len(list(echo.url_map.iter_rules())))
    return Breakdown(operation, len(chosen), phases, calls, routes)


def report(breakdown: Breakdown, own_us: float | None = None) -> None:
    """The breakdown, largest phase first, each with why it stays; ``own_us``: the table's figure beside it."""
    beside = f"; the table's own: {own_us:.0f} µs CPU" if own_us is not None else ""
    print(
        f"  where {breakdown.operation}'s own work goes ({breakdown.requests} requests metered, wall µs per request, "
        f"sum {breakdown.own_us:.0f}{beside}):"
    )
    for name, us in sorted(breakdown.phases.items(), key=lambda item: -item[1]):
        print(f"    {name:<24}{us:>6.0f}  {breakdown.why(name)}")


def measure_each(operations: list[str], requests: int = 300) -> list[Breakdown]:
    """Each operation's breakdown, on one simulator set up as bench/floors.py sets up its own."""
    app = create_app(Simulator(Config(seed=1, scenarios=(scenario_file(),))))
    work = Workload()
    work.learn(json.loads(call(app, work.setup_requests())[1]))
    found = []
    for operation in operations:
        for request in work.batch(operation, 50):  # schemas compiled, caches warm
            call(app, request)
        found.append(measure(app, work, operation, requests))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("operations", nargs="*", default=list(HANDLERS_WHY), choices=list(HANDLERS_WHY))
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    for breakdown in measure_each(args.operations, args.requests):
        report(breakdown)


if __name__ == "__main__":
    main()
