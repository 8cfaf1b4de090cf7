"""The issue-30 table: what the server answers at its limit, driven by the node load generator.

    python bench/run.py --quick          # this table alone, fewer requests (about a minute)
    python bench/run.py                  # this table first, then everything else

whoami, get_activity, create_wallet and sign_raw_payload at 1 and 8 keep-alive connections:
requests/s of the simulator, of the Flask echo on the same server (the same stamped bytes), and of
Prism mocking the public swagger (the same bytes again); the ratios with their targets beside
them. Rounds are interleaved (echo, simulator, Prism, then again) and medians reported.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from floors import Floor
from nodeclient import Figure, NodeLoad

OPERATIONS = ("whoami", "get_activity", "create_wallet", "sign_raw_payload")
CONNECTIONS = (1, 8)
ECHO_TARGETS = {"whoami": 0.8, "get_activity": 0.8, "create_wallet": 0.5}
PRISM_TARGET = 4.0
WALLET_BUDGET = 3900  # node's create_wallet organizations (bench-60..98) hold 100 wallets each


@dataclass
class Line:
    operation: str
    conns: int
    sim: Figure
    echo: Figure
    prism: Figure | None
    ceiling: Figure | None = None  # bench/ceiling.py: the stamp check and the seed alone, same transport


def median(figures: list[Figure]) -> Figure:
    return Figure(
        statistics.median(f.rps for f in figures),
        statistics.median(f.p50_ms for f in figures),
        statistics.median(f.p99_ms for f in figures),
        statistics.median(f.client_cpu_us for f in figures),
        statistics.median(f.server_cpu_us for f in figures),
    )


def measure(
    port: int, prism_port: int | None, requests: int, rounds: int, pid: int | None = None, prism_pid: int | None = None
) -> list[Line]:
    """``pid``, ``prism_pid``: the processes whose CPU time per request is noted beside each figure."""
    if requests * rounds * len(CONNECTIONS) + 200 > WALLET_BUDGET:
        raise SystemExit(f"at most {WALLET_BUDGET} node create_wallet requests per run: lower --requests or --rounds")
    node = NodeLoad()
    try:
        node.setup(port)
        for op in OPERATIONS:  # warm: schemas compiled, caches filled, Prism's JIT too
            node.build("warm", op, 100)
            node.run("warm", port, 2, "/echo/")
            node.run("warm", port, 2, "/ceiling/")
            node.run("warm", port, 2)
            if prism_port:
                node.run("warm", prism_port, 2)
        lines = []
        for conns in CONNECTIONS:
            for op in OPERATIONS:
                sims, echoes, theirs, ceilings = [], [], [], []
                for _ in range(rounds):
                    node.build("batch", op, requests)
                    echoes.append(node.run("batch", port, conns, "/echo/", pid))
                    ceilings.append(node.run("batch", port, conns, "/ceiling/", pid))
                    sims.append(node.run("batch", port, conns, None, pid))
                    if prism_port:
                        theirs.append(node.run("batch", prism_port, conns, None, prism_pid))
                lines.append(
                    Line(op, conns, median(sims), median(echoes), median(theirs) if theirs else None, median(ceilings))
                )
        return lines
    finally:
        node.close()


def verdict(value: float, target: float | None) -> str:
    if target is None:
        return "-"
    return f"{'met' if value >= target else 'MISSED'} (>= {target:g})"


def report(lines: list[Line], transport: str, requests: int, rounds: int, floor: Floor | None = None) -> None:
    """``floor``: the stamp check and seed alone, for the ceiling column (bench/floors.py)."""
    print(
        f"served at the limit: node load generator (bench/nodeload.js), {transport} server, "
        f"{requests} requests x {rounds} interleaved rounds per figure (medians)"
    )
    print(
        f"{'req/s':<26}{'simulator':>10}{'echo':>8}{'Prism':>8}{'sim/echo':>10}  {'target':<15}"
        f"{'sim/Prism':>10}  {'target':<15}{'ceiling':>8}{'sim/ceil':>9}{'sim p50 ms':>11}   CPU µs/request: {'client':>6}{'sim':>6}{'echo':>6}{'Prism':>6}"
    )
    for line in lines:
        ratio = line.sim.rps / line.echo.rps
        label = f"{line.operation}, {line.conns} conn{'s' if line.conns > 1 else ''}"
        prism_rps = f"{line.prism.rps:>8.0f}" if line.prism else f"{'-':>8}"
        versus = line.sim.rps / line.prism.rps if line.prism else None
        versus_text = f"{versus:>10.2f}" if versus is not None else f"{'-':>10}"
        ceiling = floor.ceiling_rps(line.operation, line.echo.rps) if floor else None
        ceiling_text = f"{ceiling:>8.0f}{line.sim.rps / ceiling:>9.2f}" if ceiling else f"{'-':>8}{'-':>9}"
        print(
            f"{label:<26}{line.sim.rps:>10.0f}{line.echo.rps:>8.0f}{prism_rps}{ratio:>10.2f}  "
            f"{verdict(ratio, ECHO_TARGETS.get(line.operation)):<15}{versus_text}  "
            f"{verdict(versus, PRISM_TARGET) if versus is not None else '-':<15}{ceiling_text}{line.sim.p50_ms:>11.2f}"
            f"{'':>19}{line.sim.client_cpu_us:>6.0f}{line.sim.server_cpu_us:>6.0f}{line.echo.server_cpu_us:>6.0f}"
            f"{line.prism.server_cpu_us if line.prism else 0:>6.0f}"
        )
    print("the ceiling (bench/ceiling.py: the stamp check and, for a wallet, the seed, nothing else; same transport):")
    print(f"{'req/s':<26}{'simulator':>10}{'ceiling':>9}{'sim/ceiling':>13}")
    for line in lines:
        if line.ceiling is not None:
            label = f"{line.operation}, {line.conns} conn{'s' if line.conns > 1 else ''}"
            print(f"{label:<26}{line.sim.rps:>10.0f}{line.ceiling.rps:>9.0f}{line.sim.rps / line.ceiling.rps:>13.2f}")
    by = {(line.operation, line.conns): line.sim.rps for line in lines}
    scaling = [f"{op} {by[(op, 8)] / by[(op, 1)]:.2f}" for op in OPERATIONS if (op, 1) in by and (op, 8) in by]
    print("simulator, 8 conns / 1 conn (target >= 1): " + ", ".join(scaling))
    print(
        "ceiling: the requests/s of a simulator that only checks the stamp (and, for create_wallet, makes the\n"
        "BIP-39 seed) on this transport: 1 / (1/echo + stamp + seed), the two measured alone in the bench process\n"
        "(bench/floors.py); sim/ceil is the distance left, one number per row. create_wallet's counts the seed in\n"
        "series, while the mnemonic pool makes seeds ahead on its own thread: its sim/ceil can pass 1.\n"
        "CPU µs/request: client is the node load generator's own CPU per request of the simulator's runs (it must\n"
        "cost less than what it measures); sim, echo and Prism are each server process's CPU per request\n"
        "(/proc, 10 ms ticks; the simulator's includes its worker's PBKDF2 ahead of the stream)."
    )
