"""Where each operation's time goes, and the floor under each target.

    python bench/floors.py            # in process only
    python bench/floors.py --cpu      # the same in this thread's CPU time (a loaded machine's waits left out)
    python bench/floors.py --own      # the own work alone, CPU time, three runs, beside issue 41's targets
    (bench/run.py prints the same table with the HTTP figures of its 1-connection run beside it)

Per request, in process (the WSGI application called directly, one thread, no sockets), medians:
the whole request; what Flask and werkzeug cost for the same body (the echo app); the stamp's
P-256 signature check alone (cryptography / OpenSSL); the BIP-39 seed of a new wallet alone
(2,048 rounds of PBKDF2-HMAC-SHA512, which the mnemonic pool runs ahead on its own thread while
it can keep up); and what is left, the simulator's own work. The ceiling is the ratio to the echo
an operation would reach over HTTP if the simulator's own work cost nothing and nothing but the
two checks remained: the floor that no change to the simulator can pass.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import phases
from hotspots import call
from load import Request
from server import echo_app
from workload import OPERATIONS, Workload, scenario_file

from simulator import Config, Simulator, create_app
from simulator.auth import stamps
from simulator.crypto import hd

MNEMONIC = "abandon " * 11 + "about"
# wall time by default; ``--cpu``: the thread's CPU time, which leaves out the time the thread waited for
# a core (on a machine other work loads, wall-time figures drift 2x from minute to minute; CPU time far less)
clock: Callable[[], float] = time.perf_counter
# issue 41: the simulator's own work per request (beyond Flask, the stamp and the seed), in CPU µs
OWN_TARGETS_US = {"whoami": 65.0, "get_activity": 65.0, "sign_raw_payload": 160.0, "sign_transaction": 205.0}


@dataclass
class Http:
    """Requests per second over HTTP at one connection, from bench/run.py's table."""

    sim: float
    echo: float
    prism: float | None


@dataclass
class Split:
    operation: str
    total_us: float
    flask_us: float
    stamp_us: float
    seed_us: float
    stamp_served_us: float = 0.0  # the stamp check with caches as a served request finds them

    @property
    def own_us(self) -> float:
        return max(self.total_us - self.flask_us - self.stamp_us - self.seed_us, 0.0)

    def ceiling(self, echo_http_us: float) -> float:
        return echo_http_us / (echo_http_us + max(self.stamp_us, self.stamp_served_us) + self.seed_us)

    def prism_ceiling(self, http: Http) -> float | None:
        """The ratio to Prism at that ceiling (Prism checks no stamp and makes no key)."""
        return http.echo * self.ceiling(1e6 / http.echo) / http.prism if http.prism else None


def per_call_us(action: Callable[[], object], times: int) -> float:
    samples = []
    for _ in range(3):
        start = clock()
        for _ in range(times):
            action()
        samples.append((clock() - start) / times * 1e6)
    return statistics.median(samples)


def timed_batch_us(app: object, batch: list[Request]) -> float:
    """Median over three thirds of ``batch`` (each request is sent once: bodies are unique)."""
    third = len(batch) // 3
    samples = []
    for part in (batch[:third], batch[third : 2 * third], batch[2 * third :]):
        start = clock()
        for request in part:
            call(app, request)
        samples.append((clock() - start) / len(part) * 1e6)
    return statistics.median(samples)


def at_echo_route(batch: list[Request]) -> list[Request]:
    """The same requests at the echo's own route, as bench/served.py sends them (its ``/echo/`` mount). Until
    this was fixed the echo was called on the operation's path and answered 404: werkzeug's NotFound and its
    error page cost 60-70 µs more than the echo's 200, so the own work issue 41 was filed with (whoami 126 µs,
    get_activity 137, sign_raw_payload 315, sign_transaction 411) reads low by that much."""
    return [dataclasses.replace(request, path="/") for request in batch]


def stamp_check_us(request: Request) -> float:
    stamp = stamps.read_stamp(request.headers)
    return per_call_us(lambda: stamps.verify_api_key_stamp(stamp, request.body), 300)


def served_stamp_check_us(request: Request, traffic_bytes: int = 4 << 20) -> float:
    """The same check after ``traffic_bytes`` of other memory traffic, as between two served requests
    (the socket, waitress's loop, the other threads): OpenSSL's P-256 tables are no longer in cache."""
    stamp = stamps.read_stamp(request.headers)
    other = bytearray(traffic_bytes)
    samples = []
    for _ in range(200):
        other[::64] = b"\x01" * len(other[::64])
        start = clock()
        stamps.verify_api_key_stamp(stamp, request.body)
        samples.append((clock() - start) * 1e6)
    return statistics.median(samples)


@dataclass
class Floor:
    """What a simulator that only checks stamps and makes seeds pays per request, beside its transport."""

    stamp_us: float  # the P-256 check as a served request finds its caches
    seed_us: float  # one BIP-39 seed: create_wallet only

    def ceiling_rps(self, operation: str, echo_rps: float) -> float:
        """Requests/s of that simulator on the transport whose echo answers ``echo_rps``."""
        seed = self.seed_us if operation == "create_wallet" else 0.0
        return 1e6 / (1e6 / echo_rps + self.stamp_us + seed)


def floor() -> Floor:
    """The two checks alone, in this process (a few hundred milliseconds)."""
    request = Workload().whoami()
    return Floor(served_stamp_check_us(request), per_call_us(lambda: hd.mnemonic_to_seed(MNEMONIC), 20))


def measure(requests: int = 600) -> list[Split]:
    app = create_app(Simulator(Config(seed=1, scenarios=(scenario_file(),))))
    echo = echo_app()
    work = Workload()
    work.learn(json.loads(call(app, work.setup_requests())[1]))
    seed_us = per_call_us(lambda: hd.mnemonic_to_seed(MNEMONIC), 30)
    splits = []
    for op in OPERATIONS:
        for request in work.batch(op, 50):  # schemas compiled, caches warm
            call(app, request)
        batch = work.batch(op, requests)
        total = timed_batch_us(app, batch)
        flask = timed_batch_us(echo, at_echo_route(batch))
        seed = seed_us if op == "create_wallet" else 0.0
        splits.append(Split(op, total, flask, stamp_check_us(batch[0]), seed, served_stamp_check_us(batch[0])))
    return splits


def report(splits: list[Split], http: dict[str, Http] | None = None) -> None:
    """``http``: each operation's requests per second at one connection (bench/run.py)."""
    print("where the time goes (in process, one thread, µs per request, medians)")
    head = f"{'operation':<18}{'total':>7}{'flask':>7}{'stamp':>7}{'seed':>7}{'own':>7}{'served stamp':>13}"
    print(head + ("   HTTP µs: sim   echo  x echo  ceiling  x prism  ceiling" if http else ""))
    for s in splits:
        line = (
            f"{s.operation:<18}{s.total_us:>7.0f}{s.flask_us:>7.0f}{s.stamp_us:>7.0f}{s.seed_us:>7.0f}{s.own_us:>7.0f}"
            f"{s.stamp_served_us:>13.0f}"
        )
        if http and s.operation in http:
            h = http[s.operation]
            echo_us = 1e6 / h.echo
            line += f"   {1e6 / h.sim:>11.0f}{echo_us:>7.0f}{h.sim / h.echo:>8.2f}{s.ceiling(echo_us):>9.2f}"
            if h.prism and (prism_ceiling := s.prism_ceiling(h)) is not None:
                line += f"{h.sim / h.prism:>9.1f}{prism_ceiling:>9.1f}"
        print(line)
    print(
        "  flask: the echo app on the same body; stamp: the P-256 check alone; seed: one BIP-39 seed (PBKDF2,\n"
        "  2,048 rounds), paid per wallet at sustained rates; own: the rest. served stamp: the stamp check after 4 MiB\n"
        "  of other memory traffic, as between two served requests (OpenSSL's P-256 tables fall out of cache; the\n"
        "  echo's own time is the same served as in process). ceiling: echo / (echo + served stamp + seed)\n"
        "  over HTTP at one connection, the best ratio a simulator that checks stamps and makes real seeds can reach\n"
        "  on this transport (and, last column, that rate against Prism's)."
    )


def own_work(runs: int = 3, requests: int = 400) -> list[tuple[str, list[float]]]:
    """Each operation's own work in this thread's CPU time, ``runs`` separate measurements."""
    global clock
    before, clock = clock, time.thread_time
    try:
        measured = [measure(requests) for _ in range(runs)]
    finally:
        clock = before
    return [(op, [next(s.own_us for s in run if s.operation == op) for run in measured]) for op in OPERATIONS]


def report_own(figures: list[tuple[str, list[float]]], explain: bool = True) -> None:
    """The own-work figures beside issue 41's targets (medians of the runs; each run in brackets); then, with
    ``explain``, where the own work of each operation that missed goes, measured now (bench/phases.py)."""
    print("the simulator's own work (in process, thread CPU µs per request beyond Flask, stamp and seed):")
    print(f"{'operation':<18}{'own':>7}{'target':>8}  verdict   runs")
    missed = {}
    for op, values in figures:
        own = statistics.median(values)
        target = OWN_TARGETS_US.get(op)
        verdict = "" if target is None else ("met" if own <= target else "MISSED")
        runs = " ".join(f"{v:.0f}" for v in values)
        print(f"{op:<18}{own:>7.0f}{f'{target:.0f}' if target is not None else '-':>8}  {verdict:<8}  [{runs}]")
        if verdict == "MISSED":
            missed[op] = own
    if explain and missed:
        print("each phase of a missed row, with the behaviour that keeps it (bench/phases.py says how it is measured):")
        for breakdown in phases.measure_each(list(missed)):
            phases.report(breakdown, missed[breakdown.operation])


if __name__ == "__main__":
    if "--own" in sys.argv[1:]:
        report_own(own_work())
        raise SystemExit
    if "--cpu" in sys.argv[1:]:
        clock = time.thread_time
    report(measure())
