"""The simulator's own work per request in CPU instructions, counted by valgrind: the same figure on a
quiet machine and on a busy one.

    python bench/instructions.py [--against /path/to/other/checkout] [--requests 100]
                                 [--data-dir [--served | --compaction ACTIVITIES]]

On a shared machine, CPU-time figures of the same request move by 2x from one run to the next (the
neighbours share the core's caches); an instruction count does not move at all, so a change of a few
percent is visible and a before/after comparison needs one run of each tree. For each operation, in
process (the WSGI application called directly, as bench/floors.py does): the instructions of the whole
request, of the Flask echo for the same body at its own route, and of the stamp's P-256 check alone;
own = whole - echo - stamp, the work the simulator adds. ``--against`` counts another checkout the same
way (its ``simulator``, this bench's workload) and prints this tree's own work over it. Needs
``valgrind`` (Debian: ``apt-get install valgrind``); each tree takes two to three minutes under it.

``--data-dir`` counts instead what ``serve --data-dir``'s change tracker and writer add to a request
(sign_raw_payload and create_wallet, in process, the default scenario): the same requests in a process that
keeps a data directory (durability ``no``: the fsync is the disk's, not the simulator's work) and in one that
does not, the difference per request (create_wallet: at most 79 requests, the organization's wallets left).
``--data-dir --compaction 3000`` counts one compaction instead (the log folded into a new base, as
serve does once the log has grown as large as the base): of a state of 3,000 signatures, 1,500 of them made since
the last compaction, so the figure over 1,500 is what compactions add to each request of a long run (the short runs
of the rows above and below never reach one).
``--data-dir --served`` counts whole requests served over HTTP instead, every thread of the server's process
(bench/server.py: waitress, Flask, the simulator, and the writer with the default durability), sent by the node
load generator on one connection, with and without the data directory: the cost of ``serve --data-dir`` as a
share of the instructions a request takes, the figure the throughput rows of bench/data_dir.py measure with the
machine's noise (needs node and valgrind's callgrind_control).

Instructions are not microseconds: Python's interpreter runs about 3.5 instructions a nanosecond here
and OpenSSL's P-256 check about 12, so the figures compare a row with itself, before and after, not
one row's cost with another's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OPERATIONS = ("whoami", "get_activity", "sign_raw_payload", "sign_transaction")
SECTIONS = ("whole", "echo", "stamp")

# Run inside valgrind in the tree measured: each section of requests lies between a call of zlib.crc32
# (valgrind zeroes its counters there) and one of zlib.adler32 (it writes them out), so the counts are
# the sections' alone, not the start-up's. The first section after the warm-up is thrown away: it pays
# a full collection of the heap the imports made.
PROBE = """
import json, sys, zlib
sys.path[:0] = [{tree!r}, {bench!r}]
import simulator  # the measured tree's, first: the bench modules put their own tree on sys.path as they load
from floors import at_echo_route
from hotspots import call
from server import echo_app
from workload import Workload, scenario_file
from simulator import Config, Simulator, create_app
from simulator.auth import stamps

requests = {requests}
app = create_app(Simulator(Config(seed=1, scenarios=(scenario_file(),))))
echo = echo_app()
work = Workload()
work.learn(json.loads(call(app, work.setup_requests())[1]))


def counted(action, items):
    zlib.crc32(b"start")
    for item in items:
        action(item)
    zlib.adler32(b"stop")


for op in ("whoami",) + {operations!r}:
    for request in work.batch(op, 30):
        call(app, request)
    batch = work.batch(op, requests)
    at_echo = at_echo_route(batch)
    stamp = stamps.read_stamp(batch[0].headers)
    for request in at_echo[:10]:
        call(echo, request)
    counted(lambda r: call(app, r), batch)
    counted(lambda r: call(echo, r), at_echo)
    counted(lambda r: stamps.verify_api_key_stamp(stamp, batch[0].body), batch)
"""


def count(tree: Path, requests: int) -> dict[str, dict[str, int]]:
    """Instructions per request of each operation's sections, in ``tree``."""
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_text(
            PROBE.format(bench=str(HERE), tree=str(tree), requests=requests, operations=OPERATIONS), encoding="utf-8"
        )
        out = Path(tmp) / "counts"
        callgrind(tree, probe, out, zero_before="crc32", dump_before="adler32")
        totals = [summary(Path(f"{out}.{n}")) for n in range(1, 3 * (len(OPERATIONS) + 1) + 1)]
    totals = totals[len(SECTIONS) :]  # the thrown-away first operation
    return {
        op: {name: totals[3 * i + j] // requests for j, name in enumerate(SECTIONS)} for i, op in enumerate(OPERATIONS)
    }


# The start of both probes below: the measured tree's simulator in process (the default scenario), a wallet to
# sign with, and open_writer() for a data directory kept as serve keeps it (durability ``no``: the fsync is the
# disk's work, not the simulator's).
WRITER_SETUP = """
import gc, sys, tempfile, zlib
sys.path[:0] = [{tree!r}, {bench!r}]
import simulator  # the measured tree's, first: the bench modules put their own tree on sys.path as they load
from pathlib import Path
import data_dir as bench
try:
    from simulator.datadir.tracker import ChangeTracker
except ImportError:  # a tree from before the change tracker had a module of its own
    from simulator.datadir.changes import ChangeTracker
from simulator.datadir.directory import DataDir, Writer

sim, submit = bench.in_process()
sim.mnemonics.ahead = 0  # no seeds made ahead by the pool's thread, whose timing would move the counts
made = submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {{"walletName": "w", "accounts": [bench.ETH]}})
address = made["activity"]["result"]["createWalletResult"]["addresses"][0]


def open_writer():
    data_dir = DataDir(Path(tempfile.mkdtemp()) / "data", "no")
    data_dir.open()
    writer = Writer(data_dir, ChangeTracker(sim))
    writer.write_whole()
    return writer
"""
# Run inside valgrind: ``requests`` of one operation, each followed by the writer's look and record when kept,
# between an adler32 (counters zeroed) and a deflateInit2_ (written out): the writer calls crc32, not these.
DATA_DIR_PROBE = (
    WRITER_SETUP
    + """
writer = open_writer() if {kept!r} else None


def one(n):
    if {op!r} == "create_wallet":
        submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {{"walletName": f"w{{n}}", "accounts": [bench.ETH]}})
    else:
        submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", bench.signature_of(n, address))
    if writer is not None:
        writer.changed()


for n in range(20):
    one(n)
gc.collect()
gc.disable()  # a collection's cost depends on what else the process holds, not on the request
zlib.adler32(b"start")
for n in range(20, 20 + {requests}):
    one(n)
zlib.compressobj()
gc.enable()
if writer is not None:
    writer.close()
"""
)
# Run inside valgrind: one compaction (the log folded into a new base), of a state of ``activities`` signatures half
# of which came after the last compaction: the log reaches the base's size, and a compaction runs, when the requests
# since the last one have written about as much as the base holds. Between an adler32 and a deflateInit2_.
COMPACTION_PROBE = (
    WRITER_SETUP
    + """
from simulator.datadir import directory

directory.COMPACT_AT_LEAST_BYTES = 1 << 40  # only the compactions made here
writer = open_writer()


def signatures(first, count):
    for n in range(first, first + count):
        submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", bench.signature_of(n, address))
        writer.changed()


def compaction():
    whole_now = getattr(writer, "whole_now", None)  # older trees: the document alone
    data_dir = writer.data_dir
    data_dir.compact(*whole_now()) if whole_now else data_dir.compact(writer.tracker.full())


half = {activities} // 2
signatures(0, half)
compaction()
signatures(half, half)
gc.collect()
gc.disable()
zlib.adler32(b"start")
compaction()
zlib.compressobj()
gc.enable()
writer.close()
"""
)
DATA_DIR_OPERATIONS = ("sign_raw_payload", "create_wallet")
WALLETS_LEFT = 79  # an organization holds 100 wallets: one made first, 20 in the warm-up


def count_data_dir(tree: Path, requests: int) -> dict[str, int]:
    """The writer's instructions per request of each operation, in ``tree``: kept minus not kept."""
    figures: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for op in DATA_DIR_OPERATIONS:
            made = min(requests, WALLETS_LEFT) if op == "create_wallet" else requests
            totals = []
            for kept in (True, False):
                probe = Path(tmp) / "probe.py"
                probe.write_text(
                    DATA_DIR_PROBE.format(bench=str(HERE), tree=str(tree), requests=made, op=op, kept=kept),
                    encoding="utf-8",
                )
                out = Path(tmp) / f"counts-{op}-{kept}"
                callgrind(tree, probe, out, zero_before="adler32", dump_before="deflateInit2_")
                totals.append(summary(Path(f"{out}.1")))
            figures[op] = (totals[0] - totals[1]) // made
    return figures


def count_compaction(tree: Path, activities: int) -> int:
    """The instructions of one compaction in ``tree`` (``COMPACTION_PROBE``)."""
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_text(
            COMPACTION_PROBE.format(bench=str(HERE), tree=str(tree), activities=activities), encoding="utf-8"
        )
        out = Path(tmp) / "compaction"
        callgrind(tree, probe, out, zero_before="adler32", dump_before="deflateInit2_")
        return summary(Path(f"{out}.1"))


def count_served(tree: Path, op: str, requests: int, kept: bool) -> int:
    """Instructions per request of ``op`` served over HTTP: ``tree``'s bench/server.py under callgrind (waitress,
    every thread of the process: the transport, Flask, the simulator and, ``kept``, the data directory's writer
    with the default durability), ``requests`` sent on one keep-alive connection by the node load generator
    (stamps made before), the counters zeroed before them and written out after (callgrind_control)."""
    sys.path.insert(0, str(HERE))
    from nodeclient import NodeLoad
    from workload import scenario_file

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "served"
        extra = ["--data-dir", str(Path(tmp) / "data")] if kept else []
        server = subprocess.Popen(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                str(tree / "bench" / "server.py"),
                str(scenario_file()),
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree), "BENCH_LOG": "0"},
        )
        assert server.stdout is not None
        node = NodeLoad()
        try:
            port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
            node.setup(port)
            node.build("warm", op, 30)
            node.run("warm", port, 1)
            node.build("measured", op, requests)
            subprocess.run(["callgrind_control", "--zero", str(server.pid)], check=True, capture_output=True)
            node.run("measured", port, 1)
            subprocess.run(["callgrind_control", "--dump", str(server.pid)], check=True, capture_output=True)
        finally:
            node.close()
            server.terminate()
            server.wait(timeout=120)
        return summary(Path(f"{out}.1")) // requests


def callgrind(tree: Path, probe: Path, out: Path, zero_before: str, dump_before: str) -> None:
    """Run ``probe`` with ``tree``'s simulator under callgrind: counters zeroed at each call of the C function
    ``zero_before``, written out to ``out.N`` at each call of ``dump_before`` (the probe's section markers)."""
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            f"--zero-before={zero_before}",
            f"--dump-before={dump_before}",
            sys.executable,
            str(probe),
        ],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def summary(path: Path) -> int:
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError(f"{path}: no summary line")


def own(figures: dict[str, int]) -> int:
    return figures["whole"] - figures["echo"] - figures["stamp"]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--against", type=Path, help="another checkout, counted the same way (the 'before')")
    options.add_argument("--requests", type=int, default=100)
    options.add_argument("--data-dir", action="store_true", help="count what serve --data-dir's writer adds instead")
    options.add_argument(
        "--served", action="store_true", help="with --data-dir: whole served requests with and without it (node)"
    )
    options.add_argument(
        "--compaction",
        type=int,
        metavar="ACTIVITIES",
        help="with --data-dir: one compaction of a state of ACTIVITIES signatures, half since the last compaction",
    )
    args = options.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("bench/instructions.py needs valgrind (apt-get install valgrind)")
    if args.data_dir and args.compaction:
        half = args.compaction // 2
        mine = count_compaction(HERE.parent, args.compaction)
        print(f"one compaction (valgrind), in process: {args.compaction:,} activities, {half:,} since the last one")
        print(f"{'tree':<10}{'instructions':>16}{'per request since the last':>28}")
        print(f"{'this':<10}{mine:>16,}{mine // half:>28,}")
        if args.against:
            before = count_compaction(args.against.resolve(), args.compaction)
            print(f"{'before':<10}{before:>16,}{before // half:>28,}   after/before {mine / before:.2f}")
        return
    if args.data_dir and args.served:
        print("instructions per request (valgrind), served over HTTP (waitress, one connection): the whole process")
        print(f"{'operation':<18}{'in memory':>12}{'data-dir':>12}{'cost':>8}   (target: at most 15%)")
        for op in DATA_DIR_OPERATIONS:
            made = min(args.requests, WALLETS_LEFT) if op == "create_wallet" else args.requests
            memory, kept = (count_served(HERE.parent, op, made, kept) for kept in (False, True))
            print(f"{op:<18}{memory:>12,}{kept:>12,}{kept / memory - 1:>8.1%}", flush=True)
        return
    if args.data_dir:
        mine = count_data_dir(HERE.parent, args.requests)
        before = count_data_dir(args.against.resolve(), args.requests) if args.against else None
        print("instructions per request (valgrind), in process: what serve --data-dir's tracker and writer add")
        print(f"{'operation':<18}{'writer':>10}" + (f"{'before':>12}{'after/before':>14}" if before else ""))
        for op, figure in mine.items():
            line = f"{op:<18}{figure:>10,}"
            if before:
                line += f"{before[op]:>12,}{figure / before[op]:>14.2f}"
            print(line)
        return
    this = count(HERE.parent, args.requests)
    other = count(args.against.resolve(), args.requests) if args.against else None
    print("instructions per request (valgrind), in process: whole request, Flask echo, stamp check, own work")
    head = f"{'operation':<18}{'whole':>10}{'echo':>9}{'stamp':>9}{'own':>10}"
    print(head + (f"{'own before':>12}{'after/before':>14}" if other else ""))
    for op in OPERATIONS:
        figures = this[op]
        line = f"{op:<18}{figures['whole']:>10,}{figures['echo']:>9,}{figures['stamp']:>9,}{own(figures):>10,}"
        if other:
            line += f"{own(other[op]):>12,}{own(figures) / own(other[op]):>14.2f}"
        print(line)


if __name__ == "__main__":
    main()
