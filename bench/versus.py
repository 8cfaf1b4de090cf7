"""Two checkouts side by side in one run: the served-at-the-limit table for each, rounds interleaved.

    python bench/versus.py /path/to/other/checkout [--requests 300] [--rounds 3] [--ops whoami,create_wallet]
                           [--server waitress|granian]

Each tree's bench/server.py (which imports that tree's ``simulator``) serves the simulator and
the echo; one node load generator per tree sends the same kind of freshly stamped requests to
both, alternating tree by tree and round by round, so that a before/after comparison is made
under the same machine load (on a shared machine, runs minutes apart differ by more than most
changes do). Printed: each tree's simulator and echo requests/s, sim/echo, and this tree's
simulator over the other's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nodeclient import Figure, NodeLoad
from served import CONNECTIONS, OPERATIONS
from workload import scenario_file

HERE = Path(__file__).resolve().parent.parent


def start(tree: Path, scenario: Path, transport: str = "waitress", *extra: str) -> tuple[subprocess.Popen[str], int]:
    """``tree``'s bench/server.py (``extra``: more of its options, as ``--data-dir DIR``) and its port."""
    server = subprocess.Popen(
        [sys.executable, str(tree / "bench" / "server.py"), str(scenario), "--server", transport, *extra],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tree,
        env={
            **os.environ,
            "BENCH_LOG": "0",
        },  # the same work in both trees: a tree from before the request log wrote none
    )
    assert server.stdout is not None
    return server, int(server.stdout.readline().strip().rsplit(":", 1)[1])


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("other", type=Path, help="the other checkout (the 'before')")
    options.add_argument("--requests", type=int, default=300)
    options.add_argument("--rounds", type=int, default=3)
    options.add_argument("--ops", default=",".join(OPERATIONS))
    options.add_argument(
        "--server", choices=("waitress", "granian"), default="waitress", help="the transport both trees are served on"
    )
    args = options.parse_args()
    operations = args.ops.split(",")
    scenario = scenario_file()
    trees = {"this": HERE, "other": args.other.resolve()}
    servers = {name: start(tree, scenario, args.server) for name, tree in trees.items()}
    loads = {name: NodeLoad() for name in trees}
    try:
        for name, (_, port) in servers.items():
            loads[name].setup(port)
            for op in operations:
                loads[name].build("warm", op, 100)
                loads[name].run("warm", port, 2, "/echo/")
                loads[name].run("warm", port, 2)
        print(
            f"this tree ({HERE}) against {trees['other']}, on {args.server}: "
            f"{args.requests} requests x {args.rounds} rounds"
        )
        print(
            f"{'req/s':<26}{'this sim':>9}{'echo':>7}{'x echo':>8}{'other sim':>10}{'echo':>7}{'x echo':>8}{'this/other':>11}"
        )
        for conns in CONNECTIONS:
            for op in operations:
                figures: dict[str, dict[str, list[Figure]]] = {n: {"sim": [], "echo": []} for n in trees}
                for round_ in range(args.rounds):
                    order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
                    for name in order:
                        load, port = loads[name], servers[name][1]
                        load.build("batch", op, args.requests)
                        figures[name]["echo"].append(load.run("batch", port, conns, "/echo/"))
                        figures[name]["sim"].append(load.run("batch", port, conns))
                rps = {n: {k: statistics.median(f.rps for f in v) for k, v in d.items()} for n, d in figures.items()}
                this, other = rps["this"], rps["other"]
                label = f"{op}, {conns} conn{'s' if conns > 1 else ''}"
                print(
                    f"{label:<26}{this['sim']:>9.0f}{this['echo']:>7.0f}{this['sim'] / this['echo']:>8.2f}"
                    f"{other['sim']:>10.0f}{other['echo']:>7.0f}{other['sim'] / other['echo']:>8.2f}"
                    f"{this['sim'] / other['sim']:>11.2f}"
                )
    finally:
        for load in loads.values():
            load.close()
        for server, _ in servers.values():
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
