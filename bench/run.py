"""Benchmark: the simulator against a bare echo on the same server (and against Prism), in one run.

    python bench/run.py [--requests 300] [--rounds 3] [--server waitress|granian|werkzeug] [--no-prism]
    python bench/run.py --quick        # the served-at-the-limit table alone, in about a minute

First the served-at-the-limit table (bench/served.py): the node load generator (bench/nodeload.js,
real P-256 stamps made in node) against the simulator, the echo and Prism. Then, for continuity
with earlier runs, the Python load generator's tables (bench/load.py): for create_wallet, sign_raw_payload, sign_transaction, get_activity and whoami, at 1 and 8
keep-alive connections: requests/s and p50/p99 latency of the simulator, of a Flask echo of the
same stamped bodies on the same server, and of Prism mocking the public swagger; the ratios
with their targets beside them. Then start-up (against a bare Flask app), reset, snapshot restore,
memory per activity and retention, reads as an organization grows, the API's latency during a
large state export, and webhook delivery latency.

Figures drift with machine load; the ratios are measured side by side (rounds interleaved,
medians), so compare those. Timing targets live here, never in the test suite.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import extras
import floors
import load
import prism
import scale
import served
from nodeclient import available as node_available
from workload import OPERATIONS, Workload, scenario_file

ROOT = Path(__file__).resolve().parent.parent
CONNECTIONS = (1, 8)
ECHO_TARGETS = {"create_wallet": 0.5, "whoami": 0.8, "get_activity": 0.8}  # simulator / echo requests per second
PRISM_TARGET = 4.0  # simulator / Prism requests per second, every operation


@dataclass
class Row:
    operation: str
    sim: load.Result
    echo: load.Result
    prism: load.Result | None


def median_result(results: list[load.Result]) -> load.Result:
    return load.Result(
        rps=statistics.median(r.rps for r in results),
        p50_ms=statistics.median(r.p50_ms for r in results),
        p99_ms=statistics.median(r.p99_ms for r in results),
        reconnects=sum(r.reconnects for r in results),
    )


def start_server(kind: str) -> tuple[subprocess.Popen[str], int]:
    command = [sys.executable, str(ROOT / "bench" / "server.py"), str(scenario_file()), "--server", kind]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert server.stdout is not None
    return server, int(server.stdout.readline().strip().rsplit(":", 1)[1])


def prepare(port: int, work: Workload) -> str | None:
    """Create the signing wallet; returns why sign_transaction is skipped, if it is."""
    status, body = load.Connection(port).exchange(work.setup_requests().wire(f"127.0.0.1:{port}"))
    if status != 200:
        raise SystemExit(f"setup create_wallet answered {status}: {body[:300]!r}")
    work.learn(json.loads(body))
    status, body = load.Connection(port).exchange(work.sign_transaction().wire(f"127.0.0.1:{port}"))
    if status == 200:
        return None
    message = json.loads(body).get("message", "") if body.startswith(b"{") else body[:120].decode("latin-1")
    return f"sign_transaction skipped: the simulator answers {status} ({message[:100]})"


def measure(port: int, prism_port: int | None, work: Workload, op: str, conns: int, args: argparse.Namespace) -> Row:
    sims, echoes = [], []
    for _ in range(args.rounds):
        batch = work.batch(op, args.requests)
        echoes.append(load.run(port, batch, conns, path_override="/echo/"))
        sims.append(load.run(port, batch, conns))
    theirs = load.run(prism_port, work.batch(op, args.requests), conns) if prism_port else None
    return Row(op, median_result(sims), median_result(echoes), theirs)


def warm_up(port: int, prism_port: int | None, work: Workload, operations: list[str]) -> None:
    """Schemas compiled, code paths warm, Prism's JIT too: the first requests are not measured."""
    for op in operations:
        batch = work.batch(op, 50)
        load.run(port, batch, 2, path_override="/echo/")
        load.run(port, batch, 2)
        if prism_port:
            load.run(prism_port, work.batch(op, 300), 2)


def verdict(value: float, target: float | None) -> str:
    if target is None:
        return ""
    return f">= {target:.1f}x {'met' if value >= target else 'MISSED'}"


def print_rows(conns: int, rows: list[Row]) -> None:
    print(f"\n{conns} keep-alive connection{'s' if conns > 1 else ''}")
    print(
        f"{'operation':<18}{'req/s':>7}{'p50 ms':>8}{'p99 ms':>8}{'echo req/s':>11}{'x echo':>8}  {'target':<14}"
        f"{'prism req/s':>12}{'x prism':>9}  target"
    )
    for row in rows:
        ratio = row.sim.rps / row.echo.rps
        line = (
            f"{row.operation:<18}{row.sim.rps:>7.0f}{row.sim.p50_ms:>8.2f}{row.sim.p99_ms:>8.2f}"
            f"{row.echo.rps:>11.0f}{ratio:>8.2f}  {verdict(ratio, ECHO_TARGETS.get(row.operation)):<14}"
        )
        if row.prism is not None:
            versus = row.sim.rps / row.prism.rps
            line += f"{row.prism.rps:>12.0f}{versus:>9.1f}  {verdict(versus, PRISM_TARGET)}"
        print(line)


def throughput(args: argparse.Namespace) -> dict[str, floors.Http]:
    """Prints the tables; returns each operation's requests/s at one connection."""
    at_one: dict[str, floors.Http] = {}
    work = Workload()
    server, port = start_server(args.server)
    theirs, prism_port = None, None
    try:
        skipped = prepare(port, work)
        if not args.no_prism and (why := prism.available()) is None:
            theirs, prism_port = prism.start()
        elif not args.no_prism:
            print(f"Prism not measured: {why}")
        if (no_node := node_available()) is None:
            prism_pid = theirs.pid if theirs is not None else None
            lines = served.measure(port, prism_port, args.node_requests, args.node_rounds, server.pid, prism_pid)
            served.report(lines, args.server, args.node_requests, args.node_rounds, floors.floor())
        else:
            print(f"served-at-the-limit table not measured: {no_node}")
        if args.quick:
            return at_one
        print("\nthe Python load generator (bench/load.py), kept for continuity with earlier runs")
        operations = [op for op in OPERATIONS if not (skipped and op == "sign_transaction")]
        warm_up(port, prism_port, work, operations)
        print(f"{args.server} server, {args.requests} requests x {args.rounds} rounds per figure (medians)")
        for conns in CONNECTIONS:
            rows = [measure(port, prism_port, work, op, conns, args) for op in operations]
            print_rows(conns, rows)
            if conns == 1:
                at_one = {
                    r.operation: floors.Http(r.sim.rps, r.echo.rps, r.prism.rps if r.prism else None) for r in rows
                }
        if skipped:
            print(skipped)
    finally:
        for process in (server, theirs):
            if process is not None:
                process.terminate()
                process.wait()
        assert server.stdout is not None
        server.stdout.close()
    return at_one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=300, help="requests per figure")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved echo/simulator rounds per figure")
    parser.add_argument(
        "--server",
        choices=("waitress", "granian", "werkzeug"),
        default="waitress",
        help="the transport the bench server uses (waitress: serve's; granian: for comparison; werkzeug: the old one)",
    )
    parser.add_argument("--node-requests", type=int, default=400, help="requests per figure, node load generator")
    parser.add_argument("--node-rounds", type=int, default=3, help="interleaved rounds per figure, node load generator")
    parser.add_argument("--quick", action="store_true", help="the served-at-the-limit table alone, fewer requests")
    parser.add_argument("--no-prism", action="store_true", help="skip Prism even where node is present")
    parser.add_argument("--export-activities", type=int, default=60_000, help="activities in the exported state")
    parser.add_argument("--only-throughput", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.node_requests, args.node_rounds = min(args.node_requests, 300), min(args.node_rounds, 2)
        throughput(args)
        print()
        floors.report_own(floors.own_work())
        return
    if args.requests * (args.rounds + 1) * len(CONNECTIONS) + 400 > 5800:
        raise SystemExit("at most 5,800 create_wallet requests per run (organization wallet limits)")
    at_one = throughput(args)
    print()
    floors.report(floors.measure(), at_one)
    if args.only_throughput:
        return
    print()
    extras.startup()
    extras.reset_and_restore()
    extras.memory_per_activity()
    scale.retention()
    scale.flat_reads()
    extras.export_latency(args.server, args.export_activities)
    extras.webhook_latency()


if __name__ == "__main__":
    main()
