"""The benchmark's other figures: start-up, reset, snapshot restore, memory per activity, the
API's latency while a large state is exported, and webhook delivery latency."""

from __future__ import annotations

import gc
import http.client
import json
import statistics
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import load
from workload import ETH, Workload, scenario_file

from simulator.testing import ApiKeyStamper

ROOT = Path(__file__).resolve().parent.parent
MEMORY_TARGET = 2048  # bytes per retained activity (the "Hardening" issue)


def timed(action: Callable[[], object], times: int) -> float:
    """Median milliseconds of ``action``."""
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def first_whoami(url: str, credentials: dict[str, str]) -> None:
    raw = json.dumps({"organizationId": credentials["organizationId"]}).encode()
    name, value = ApiKeyStamper(credentials["apiPrivateKey"]).stamp(raw)
    conn = http.client.HTTPConnection("127.0.0.1", int(url.rsplit(":", 1)[1]), timeout=30)
    conn.request("POST", "/public/v1/query/whoami", raw, {"Content-Type": "application/json", name: value})
    reply = conn.getresponse()
    reply.read()
    conn.close()
    if reply.status != 200:
        raise RuntimeError(f"whoami answered {reply.status}")


def startup() -> None:
    cold = []
    for _ in range(3):
        start = time.perf_counter()
        command = [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0"]
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdout is not None
        ready = json.loads(proc.stdout.readline())
        first_whoami(ready["url"], ready)
        cold.append((time.perf_counter() - start) * 1000)
        proc.terminate()
        proc.wait()
        proc.stdout.close()
    from simulator import SimulatorServer

    def warm() -> None:
        with SimulatorServer() as server:
            first_whoami(server.url, server.default_credentials())

    print(
        f"start-up to first answer: new process {statistics.median(cold):.0f} ms (median of 3, interpreter and "
        f"imports included); in a running process {timed(warm, 5):.1f} ms (median of 5: Simulator with the "
        "default scenario, both ports, first whoami, stop)"
    )


def reset_and_restore() -> None:
    from simulator import Simulator
    from simulator.activities import wallets
    from simulator.activities.context import Context
    from simulator.state.store import Organization

    sim = Simulator()
    reset_ms = timed(sim.reset, 2000)

    def fixture_work() -> None:  # what the pytest ``simulator`` fixture does before each test
        sim.use_scenarios(())
        sim.crashes.clear()

    per_test = timed(fixture_work, 2000)
    big = Simulator()
    now = big.clock.now_ms()
    for n in range(10):  # an organization holds at most 100 wallets
        org = big.store.add_org(Organization(f"bench-org-{n}", f"bench {n}", now))
        ctx = Context(big.store, big.source, now, org)
        for i in range(100):
            wallets.new_wallet(ctx, f"w{i}", [ETH])
    snapshot = big.snapshot()
    print(
        f"reset to the default state: {reset_ms * 1000:.0f} µs; pytest fixture per test: {per_test * 1000:.0f} µs; "
        f"snapshot restore of a 1,000-wallet state: {timed(lambda: big.restore(snapshot), 20):.1f} ms"
    )


def memory_per_activity(count: int = 3000) -> None:
    """Bytes a completed sign_raw_payload activity keeps alive, with and without its journal entry."""
    from simulator import Config, Simulator

    sim = Simulator(Config(seed=1, scenarios=(scenario_file(),), auth="off"))
    work = Workload()
    setup = work.setup_requests()
    work.learn(sim.submit("create_wallet", setup.body, setup.headers))
    batch = work.batch("sign_raw_payload", count)
    sim.journal.clear()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for request in batch:
        sim.submit("sign_raw_payload", request.body, request.headers)
    gc.collect()
    with_journal = (tracemalloc.get_traced_memory()[0] - before) / count
    sim.journal.clear()
    gc.collect()
    store_only = (tracemalloc.get_traced_memory()[0] - before) / count
    tracemalloc.stop()
    verdict = "met" if store_only <= MEMORY_TARGET else "MISSED"
    print(
        f"memory per retained activity (sign_raw_payload, {count}): {store_only:.0f} B in the state "
        f"(target <= {MEMORY_TARGET} B: {verdict}); {with_journal:.0f} B with its journal entry "
        "(the journal keeps the last 2,000 requests)"
    )


def export_latency(kind: str, activities: int) -> None:
    """whoami latency on one connection, idle and while GET /_simulator/state runs in a loop."""
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "server.py"), str(scenario_file()), "--server", kind]
        + ["--activities", str(activities)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    try:
        port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
        probes = Workload().batch("whoami", 300)
        idle = load.run(port, probes, 1)
        exports: list[tuple[float, int]] = []
        stop = threading.Event()
        exporter = threading.Thread(target=export_loop, args=(port, stop, exports))
        exporter.start()
        time.sleep(0.2)
        busy = load.run(port, Workload().batch("whoami", 300), 1)
        stop.set()
        exporter.join()
    finally:
        server.terminate()
        server.wait()
        server.stdout.close()
    seconds, size = statistics.median(e[0] for e in exports), exports[0][1]
    print(
        f"GET /_simulator/state with {activities:,} activities: {seconds * 1000:.0f} ms, {size / 2**20:.0f} MiB "
        f"(median of {len(exports)}); whoami meanwhile: p50 {busy.p50_ms:.1f} ms, p99 {busy.p99_ms:.1f} ms "
        f"(idle: p50 {idle.p50_ms:.2f} ms, p99 {idle.p99_ms:.2f} ms)"
    )


def export_loop(port: int, stop: threading.Event, exports: list[tuple[float, int]]) -> None:
    while not stop.is_set() or not exports:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        start = time.perf_counter()
        conn.request("GET", "/_simulator/state")
        body = conn.getresponse().read()
        exports.append((time.perf_counter() - start, len(body)))
        conn.close()


def webhook_latency(activities: int = 100) -> None:
    import webhooks

    latency, api = webhooks.run(activities, 0.0)
    print(
        f"webhook delivery, completion to receipt ({len(latency)} deliveries, fast receiver): "
        f"p50 {statistics.median(latency):.1f} ms, p99 {webhooks.pct(latency, 0.99):.1f} ms; "
        f"API p50 meanwhile {statistics.median(api):.1f} ms"
    )
