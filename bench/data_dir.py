"""What ``serve --data-dir`` costs: throughput with and without it, start-up with 10,000 activities on disk,
disk bytes per activity.

    PYTHONPATH=$PWD python bench/data_dir.py [--slices 8] [--seconds 1] [--node-requests 300] [--rounds 3]
                                             [--durability everysec|always|no]

Throughput: create_wallet and sign_raw_payload at 1 and 8 connections, in memory and with ``--data-dir`` (the
default durability ``everysec``). For each row both servers run side by side, fresh, and take turns: ``--slices``
turns each, the order alternating turn by turn, so that the two meet the same machine load. On a shared machine a
server's rate moves by 2x from one minute to the next, more than the cost measured: runs made one after the other
(as this bench did until 2026-11-27) mostly measured that drift. A row's cost is over each server's whole run (a
data-dir run long enough to reach a compaction has it in its figure); beside it, the median of the turns' paired
costs. Two load generators: Python clients in this process (``serve`` in a process of its own, one thread a
connection, turns of ``--seconds``; the client takes as much CPU as the server), and the node load generator
(bench/nodeload.js, real P-256 stamps made before the clock starts, so that the server is what is measured;
bench/server.py, turns of ``--node-requests``; also the server process's CPU time a request).
CPU per request: the same requests made in process (no HTTP), the thread's CPU time of each (``time.thread_time``),
two simulators in this process taking turns request by request, one of them followed by the change tracker and
writer ``serve --data-dir`` runs after a request; medians.
A record among waiting activities: the CPU time of the record after a request with none and with ``--waiting``
activities waiting for votes (a record once compared every waiting one: 15 ms each with 460).
Start-up: a directory holding 10,000 sign_raw_payload activities (made in process, kept through the same writer
``serve`` uses), from launching ``serve`` to its ready line, against the same with no directory, ``--rounds``
starts of each, interleaved; every ``serve`` starts from compiled bytecode, as an installed one does.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import versus
from nodeclient import Figure, NodeLoad
from nodeclient import available as node_available
from workload import KEY, scenario_file

from simulator import Config, Simulator
from simulator.datadir import files
from simulator.datadir.directory import DEFAULT_DURABILITY, DataDir, Writer
from simulator.testing import ApiKeyStamper, SimulatorClient

HERE = Path(__file__).resolve().parent  # bench/, on sys.path as the script's folder
ROOT = HERE.parent
PYTHON_ORGS = 59  # the bench scenario's bench-0..58 (workload.ORGS: node makes its wallets in the others)

ETH = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}


@functools.cache
def serve_env() -> dict[str, str]:
    """An installed simulator starts from compiled bytecode (pip compiles it at install). Run from a checkout
    where PYTHONDONTWRITEBYTECODE is set, every start would compile the sources again (0.2-0.3 s of each start
    here): the starts measured use a bytecode cache of their own, outside the checkout, made on first use and
    removed at the end of ``main``."""
    kept = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return kept | {"PYTHONPYCACHEPREFIX": tempfile.mkdtemp(prefix="bench-bytecode-")}


def serve(*args: str) -> tuple[subprocess.Popen[str], dict[str, Any], float]:
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0", "--seed", "1", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=serve_env(),
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, json.loads(line), time.perf_counter() - started


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(timeout=30)


def written(port: int) -> dict[str, int]:
    """The data-dir bench server's changes acknowledged and records written so far (bench/server.py)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/bench/writer/", timeout=10) as answer:
        counts: dict[str, int] = json.loads(answer.read())
        return counts


def node_rows(
    slices: int,
    requests: int,
    durability: str = DEFAULT_DURABILITY,
    ops: tuple[str, ...] = ("create_wallet", "sign_raw_payload"),
    connections_of: tuple[int, ...] = (1, 8),
) -> None:
    """The same cost over keep-alive connections from the node load generator (bench/nodeload.js: real P-256
    stamps made before the clock starts, so the client is not what is measured), the server being
    bench/server.py with and without ``--data-dir`` (started by versus.start: no request log in either).

    Both servers run side by side, fresh for each row, and take turns: ``slices`` batches of ``requests`` each,
    the order alternating slice by slice, so that the two modes meet the same machine load (on a shared machine a
    server's rate moves by 2x from one minute to the next, more than the cost measured; runs made one after the
    other, as the rows above are, mostly measure that drift). A row's cost is over the whole run of each mode
    (requests over the time they took: a long run's compaction, which the data-dir server reaches after about
    1,700 signatures, is in it); beside it the median of the slices' paired costs, each server's CPU time per
    request over the whole run, and the records the data-dir server wrote for the changes it acknowledged (a record
    covers several when requests finish together: the group commit)."""
    if node_available() is not None:
        print(f"node rows skipped: {node_available()}")
        return
    modes = ("memory", "data-dir")
    for op in ops:
        for connections in connections_of:
            with tempfile.TemporaryDirectory() as tmp:
                extra = {
                    "memory": (),
                    "data-dir": ("--data-dir", str(Path(tmp) / "data"), "--data-durability", durability),
                }
                servers = {mode: versus.start(HERE.parent, scenario_file(), "waitress", *extra[mode]) for mode in modes}
                loads = {mode: NodeLoad() for mode in modes}
                figures: dict[str, list[Figure]] = {mode: [] for mode in modes}
                try:
                    for mode in modes:
                        loads[mode].setup(servers[mode][1])
                        loads[mode].build("warm", op, 30)
                        loads[mode].run("warm", servers[mode][1], connections)
                    before = written(servers["data-dir"][1])
                    for slice_ in range(slices):
                        for mode in modes if slice_ % 2 == 0 else modes[::-1]:
                            server, port = servers[mode]
                            loads[mode].build("slice", op, requests)
                            figures[mode].append(loads[mode].run("slice", port, connections, pid=server.pid))
                    after = written(servers["data-dir"][1])
                finally:
                    for load in loads.values():
                        load.close()
                    for server, _port in servers.values():
                        server.terminate()
                        server.wait(timeout=30)
            # every slice is ``requests`` long: the whole run's rate is the slices' harmonic mean
            rate = {mode: len(f) / sum(1 / x.rps for x in f) for mode, f in figures.items()}
            cpu = {mode: statistics.mean(x.server_cpu_us for x in f) for mode, f in figures.items()}
            paired = [1 - d.rps / m.rps for m, d in zip(figures["memory"], figures["data-dir"])]
            print(
                f"{op:<17} {connections} conn (node): memory {rate['memory']:7.1f}/s  data-dir {rate['data-dir']:7.1f}/s"
                f"  cost {1 - rate['data-dir'] / rate['memory']:6.1%} (target <= 15%; {slices} slices of {requests}, "
                f"side by side; slices' median {statistics.median(paired):.1%}, quartiles "
                f"{' to '.join(f'{q:.0%}' for q in statistics.quantiles(paired, n=4)[::2])}); "
                f"server CPU {cpu['memory']:.0f} -> {cpu['data-dir']:.0f} us a request; "
                f"{after['records'] - before['records']} records for {after['changes'] - before['changes']} changes",
                flush=True,
            )


def client_for(ready: dict[str, Any], organization: str | None = None) -> SimulatorClient:
    """A client of ``serve``'s default organization, or of one of the bench scenario's (``KEY``'s)."""
    if organization is None:
        return SimulatorClient(ready["url"], ApiKeyStamper(ready["apiPrivateKey"]), ready["organizationId"])
    return SimulatorClient(ready["url"], ApiKeyStamper(KEY), organization)


def throughput(ready: dict[str, Any], op: str, connections: int, seconds: float, state: dict[str, Any]) -> float:
    """Requests a second over ``seconds`` from ``connections`` Python clients, each a thread. ``serve`` runs the
    bench scenario (``workload.ORGS`` organizations of ``KEY``): connection ``i`` makes its wallets in bench-i,
    bench-(i + connections), ... (an organization holds 100), where ``state`` (one per server, kept across the
    slices) says how far each has gone; signatures are made with one wallet of bench-0."""
    if "signer" not in state:
        made = client_for(ready, "bench-0").submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "bench-signer", "accounts": [ETH]}
        )
        state["signer"] = made.body["activity"]["result"]["createWalletResult"]["addresses"][0]
        state["made"] = [0] * connections
        state["signed"] = 0
    address, made_by = state["signer"], state["made"]
    done = [0] * connections
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()

    def work(i: int) -> None:
        clients: dict[str, SimulatorClient] = {}
        while time.perf_counter() < deadline:
            if op == "create_wallet":
                # bench-0 holds the signer: the first organization of connection 0 is full one wallet earlier
                organization = f"bench-{i + connections * ((made_by[i] + 1) // 100)}"
                if int(organization.split("-")[1]) >= PYTHON_ORGS:
                    raise SystemExit(f"the bench scenario's organizations are full: {PYTHON_ORGS * 100} wallets")
                client = clients.setdefault(organization, client_for(ready, organization))
                answer = client.submit(
                    "create_wallet",
                    "ACTIVITY_TYPE_CREATE_WALLET",
                    {"walletName": f"w{i}-{made_by[i]}", "accounts": [ETH]},
                )
                made_by[i] += 1
            else:
                client = clients.setdefault("bench-0", client_for(ready, "bench-0"))
                state["signed"] += 1  # a payload of its own each (the GIL makes the count exact enough)
                parameters = signature_of(state["signed"] * connections + i, address)
                answer = client.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters)
            assert answer.status == 200, answer.body
            done[i] += 1

    threads = [threading.Thread(target=work, args=(i,)) for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (time.perf_counter() - started)


def python_rows(slices: int, seconds: float, durability: str) -> None:
    """Throughput from Python clients (``throughput``), the two ``serve`` processes side by side, fresh for each
    row, taking ``slices`` turns of ``seconds`` each, the order alternating (as ``node_rows``)."""
    modes = ("memory", "data-dir")
    for op in ("create_wallet", "sign_raw_payload"):
        for connections in (1, 8):
            with tempfile.TemporaryDirectory() as tmp:
                extra = {
                    "memory": (),
                    "data-dir": ("--data-dir", str(Path(tmp) / "data"), "--data-durability", durability),
                }
                scenario = str(scenario_file())
                servers = {mode: serve("--scenario", scenario, *extra[mode]) for mode in modes}
                states: dict[str, dict[str, Any]] = {mode: {} for mode in modes}
                figures: dict[str, list[float]] = {mode: [] for mode in modes}
                try:
                    for slice_ in range(slices):
                        for mode in modes if slice_ % 2 == 0 else modes[::-1]:
                            ready = servers[mode][1]
                            figures[mode].append(throughput(ready, op, connections, seconds, states[mode]))
                finally:
                    for proc, _ready, _took in servers.values():
                        stop(proc)
            rate = {mode: statistics.mean(f) for mode, f in figures.items()}  # slices of equal time: the run's rate
            paired = [1 - d / m for m, d in zip(figures["memory"], figures["data-dir"])]
            print(
                f"{op:<17} {connections} conn: memory {rate['memory']:7.1f}/s  data-dir {rate['data-dir']:7.1f}/s  "
                f"cost {1 - rate['data-dir'] / rate['memory']:6.1%} (target <= 15%; {slices} slices of {seconds:g} s, "
                f"side by side; slices' median {statistics.median(paired):.1%})",
                flush=True,
            )


def in_process(*scenarios: Path) -> tuple[Simulator, Any]:
    """A simulator (of ``scenarios``) and ``submit(op, kind, parameters)`` making a stamped request to it as its
    first credential, without HTTP."""
    sim = Simulator(Config(seed=1, timestamp_window_ms=None, scenarios=scenarios))
    creds = sim.default_credentials()
    stamper = ApiKeyStamper(creds["apiPrivateKey"])

    def submit(op: str, kind: str, parameters: dict[str, Any]) -> Any:
        body = {"type": kind, "timestampMs": "0", "organizationId": creds["organizationId"], "parameters": parameters}
        raw = json.dumps(body).encode()
        name, value = stamper.stamp(raw)
        return sim.submit(op, raw, {"Content-Type": "application/json", name: value})

    return sim, submit


def new_signer(submit: Any) -> str:
    """A wallet made through ``submit`` (``in_process``'s): its Ethereum address, to sign with."""
    made = submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH]})
    address: str = made["activity"]["result"]["createWalletResult"]["addresses"][0]
    return address


@contextlib.contextmanager
def kept_by_writer(sim: Simulator, durability: str, path: Path | None = None) -> Iterator[Writer]:
    """``sim`` kept in a new data directory (``path``, else a temporary one) by the writer serve makes
    (``simulator.server.data_dir_writer``: the whole state first), closed at the end."""
    # imported here: bench/instructions.py --data-dir --against loads this module beside a tree from before it
    from simulator.server import data_dir_writer

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = DataDir(path or Path(tmp) / "data", durability)
        data_dir.open()
        writer = data_dir_writer(sim, data_dir, loaded=False)
        try:
            yield writer
        finally:
            writer.close()


def signature_of(n: int, address: str) -> dict[str, Any]:
    return {
        "signWith": address,
        "payload": n.to_bytes(32, "big").hex(),
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
    }


def cpu_per_request(op: str, durability: str, requests: int = 99) -> tuple[float, float]:
    """The median CPU time (s) of one request made in process without and with the tracker's record and its write
    after it, as ``serve --data-dir`` does: two simulators in this process taking turns request by request, so that
    both meet the same machine load; create_wallet up to the organization's 100 wallets."""
    made = [in_process(), in_process()]
    addresses = [new_signer(submit) for _sim, submit in made]
    spent: tuple[list[float], list[float]] = ([], [])
    with kept_by_writer(made[1][0], durability) as writer:
        for n in range(requests):
            for kept in (False, True) if n % 2 == 0 else (True, False):
                submit, address = made[kept][1], addresses[kept]
                started = time.thread_time()
                if op == "create_wallet":
                    submit(op, "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": f"w{n}", "accounts": [ETH]})
                else:
                    submit(op, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", signature_of(n, address))
                if kept:
                    writer.changed()
                spent[kept].append(time.thread_time() - started)
    return statistics.median(spent[False]), statistics.median(spent[True])


def record_with_waiting(waiting: int, durability: str, requests: int = 60) -> float:
    """The median CPU time (s) of the tracker's record and its write after a request, with ``waiting`` activities
    already waiting for votes (the two-of-three quorum scenario: every activity waits), in process."""
    sim, submit = in_process(ROOT / "scenarios" / "two_of_three_quorum.yaml")

    def wallet(n: int) -> None:
        submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": f"q{n}", "accounts": [ETH]})

    for n in range(waiting):
        wallet(n)
    spent = []
    with kept_by_writer(sim, durability) as writer:
        for n in range(waiting, waiting + requests):
            wallet(n)
            started = time.thread_time()
            writer.changed()
            spent.append(time.thread_time() - started)
    return statistics.median(spent)


def directory_with(activities: int, path: Path) -> int:
    """``path`` holding ``activities`` signatures, kept as serve keeps them; returns the activities held."""
    sim, submit = in_process()
    address = new_signer(submit)
    for n in range(activities - 1):
        submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", signature_of(n, address))
    with kept_by_writer(sim, DEFAULT_DURABILITY, path):
        pass  # the whole state written as the base; closing the writer leaves it there
    return len(sim.store.activities)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="a Python-client slice's length (0: no such rows)")
    parser.add_argument("--slices", type=int, default=8, help="turns each server of a throughput row takes")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved starts of each kind")
    parser.add_argument("--activities", type=int, default=10_000)
    parser.add_argument("--waiting", type=int, default=500, help="activities waiting for votes (0: no such row)")
    parser.add_argument("--durability", choices=("always", "everysec", "no"), default="everysec")
    parser.add_argument(
        "--node-requests", type=int, default=300, help="requests of a node row's slice (0: no node rows)"
    )
    args = parser.parse_args()
    rounds = max(1, args.rounds)
    if args.seconds:
        python_rows(max(2, args.slices), args.seconds, args.durability)
    if args.node_requests:
        node_rows(max(2, args.slices), args.node_requests, args.durability)
    for op in ("create_wallet", "sign_raw_payload"):
        plain, kept = cpu_per_request(op, args.durability)
        print(
            f"{op:<17} CPU per request in process: memory {plain * 1e6:6.0f} us  data-dir {kept * 1e6:6.0f} us  "
            f"cost {kept / plain - 1:6.1%} (medians of 99 each, the two taking turns)",
            flush=True,
        )
    if args.waiting:
        alone, among = record_with_waiting(0, args.durability), record_with_waiting(args.waiting, args.durability)
        print(
            f"a record's CPU, activities waiting for votes: none {alone * 1e6:.0f} us, {args.waiting} "
            f"{among * 1e6:.0f} us (medians of 60 create_wallet records)",
            flush=True,
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data"
        held = directory_with(args.activities, path)
        size = files.size_of(path)
        starts: dict[str, list[float]] = {"plain": [], "kept": []}
        stop(serve()[0])  # the bytecode cache warmed (serve_env)
        for round_ in range(rounds):
            for mode in ("plain", "kept") if round_ % 2 == 0 else ("kept", "plain"):
                proc, _ready, took = serve() if mode == "plain" else serve("--data-dir", str(path))
                stop(proc)
                starts[mode].append(took)
        empty_start, kept_start = statistics.median(starts["plain"]), statistics.median(starts["kept"])
        print(
            f"start-up: no data dir {empty_start:.2f} s; with {held} activities on disk {kept_start:.2f} s "
            f"(target < 1 s; over the plain start: {kept_start - empty_start:+.2f} s; medians of {rounds}: "
            f"{', '.join(f'{t:.2f}' for t in starts['plain'])} / {', '.join(f'{t:.2f}' for t in starts['kept'])} s)"
        )
        print(f"disk: {size} bytes for {held} activities = {size / held:.0f} bytes per activity")
    shutil.rmtree(serve_env()["PYTHONPYCACHEPREFIX"], ignore_errors=True)


if __name__ == "__main__":
    main()
