"""What ``serve --data-dir`` costs: throughput with and without it, start-up with 10,000 activities on disk,
disk bytes per activity.

    PYTHONPATH=$PWD python bench/data_dir.py [--seconds 3] [--rounds 3] [--durability everysec|always|no]
                                             [--node-requests 300]

Throughput: create_wallet and sign_raw_payload at 1 and 8 connections, each against a fresh ``serve`` (in
memory, and ``--data-dir`` with the default durability ``everysec``), for ``--seconds`` each, over ``--rounds``
rounds that alternate which of the two runs first; each row gives the median of the rounds and every round.
CPU per request: the same requests made in process (no HTTP), the thread's CPU time of each (``time.thread_time``)
with and without the change tracker and writer ``serve --data-dir`` runs after it, medians over the rounds.
Start-up: a directory holding 10,000 sign_raw_payload activities (made in process, kept through the same writer
``serve`` uses), from launching ``serve`` to its ready line, against the same with no directory, ``--rounds``
starts of each, interleaved; every ``serve`` starts from compiled bytecode, as an installed one does.
"""

from __future__ import annotations

import argparse
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
from pathlib import Path
from typing import Any

import versus
from nodeclient import Figure, NodeLoad
from nodeclient import available as node_available
from workload import scenario_file

from simulator import Config, Simulator
from simulator.datadir import files
from simulator.datadir.changes import ChangeTracker
from simulator.datadir.directory import DEFAULT_DURABILITY, DataDir, Writer
from simulator.testing import ApiKeyStamper, SimulatorClient

HERE = Path(__file__).resolve().parent  # bench/, on sys.path as the script's folder

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


def node_rows(rounds: int, requests: int, durability: str = DEFAULT_DURABILITY) -> None:
    """The same cost over keep-alive connections from the node load generator (bench/nodeload.js: real P-256
    stamps made before the clock starts, so the client is not what is measured), the server being
    bench/server.py with and without ``--data-dir`` (started by versus.start: no request log in either); also each
    server process's CPU time per request."""
    if node_available() is not None:
        print(f"node rows skipped: {node_available()}")
        return
    for op in ("create_wallet", "sign_raw_payload"):
        for connections in (1, 8):
            figures: dict[str, list[Figure]] = {"memory": [], "data-dir": []}
            for round_ in range(rounds):
                for mode in ("memory", "data-dir") if round_ % 2 == 0 else ("data-dir", "memory"):
                    with tempfile.TemporaryDirectory() as tmp:
                        extra = (
                            ("--data-dir", str(Path(tmp) / "data"), "--data-durability", durability)
                            if mode == "data-dir"
                            else ()
                        )
                        server, port = versus.start(HERE.parent, scenario_file(), "waitress", *extra)
                        node = NodeLoad()
                        try:
                            node.setup(port)
                            node.build("warm", op, 30)
                            node.run("warm", port, connections)
                            node.build("measured", op, requests)
                            figures[mode].append(node.run("measured", port, connections, pid=server.pid))
                        finally:
                            node.close()
                            server.terminate()
                            server.wait(timeout=30)
            memory = statistics.median(f.rps for f in figures["memory"])
            kept = statistics.median(f.rps for f in figures["data-dir"])
            each = ", ".join(f"{1 - d.rps / m.rps:.0%}" for m, d in zip(figures["memory"], figures["data-dir"]))
            cpu_memory = statistics.median(f.server_cpu_us for f in figures["memory"])
            cpu_kept = statistics.median(f.server_cpu_us for f in figures["data-dir"])
            print(
                f"{op:<17} {connections} conn (node): memory {memory:7.1f}/s  data-dir {kept:7.1f}/s  "
                f"cost {1 - kept / memory:6.1%} (target <= 15%; median of {rounds}; rounds: {each}); "
                f"server CPU {cpu_memory:.0f} -> {cpu_kept:.0f} us a request",
                flush=True,
            )


def client_for(ready: dict[str, Any]) -> SimulatorClient:
    return SimulatorClient(ready["url"], ApiKeyStamper(ready["apiPrivateKey"]), ready["organizationId"])


def throughput(ready: dict[str, Any], op: str, connections: int, seconds: float) -> float:
    setup = client_for(ready)
    made = setup.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "bench", "accounts": [ETH]})
    address = made.body["activity"]["result"]["createWalletResult"]["addresses"][0]
    done = [0] * connections
    started = time.perf_counter()
    deadline = started + seconds
    ended = [deadline] * connections  # create_wallet stops early at the organization's 100 wallets

    def work(i: int) -> None:
        client = client_for(ready)
        n = 0
        while time.perf_counter() < deadline:
            n += 1
            if op == "create_wallet":
                answer = client.submit(
                    "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": f"w{i}-{n}", "accounts": [ETH]}
                )
            else:
                parameters = {
                    "signWith": address,
                    "payload": n.to_bytes(32, "big").hex(),
                    "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                    "hashFunction": "HASH_FUNCTION_NO_OP",
                }
                answer = client.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters)
            if answer.status != 200 and "limit of 100 wallets" in str(answer.body):
                ended[i] = time.perf_counter()
                return
            assert answer.status == 200, answer.body
            done[i] += 1

    threads = [threading.Thread(target=work, args=(i,)) for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (max(ended) - started)


def in_process() -> tuple[Simulator, Any]:
    """A simulator and ``submit(op, kind, parameters)`` making a stamped request to it, without HTTP."""
    sim = Simulator(Config(seed=1, timestamp_window_ms=None))
    creds = sim.default_credentials()
    stamper = ApiKeyStamper(creds["apiPrivateKey"])

    def submit(op: str, kind: str, parameters: dict[str, Any]) -> Any:
        body = {"type": kind, "timestampMs": "0", "organizationId": creds["organizationId"], "parameters": parameters}
        raw = json.dumps(body).encode()
        name, value = stamper.stamp(raw)
        return sim.submit(op, raw, {"Content-Type": "application/json", name: value})

    return sim, submit


def signature_of(n: int, address: str) -> dict[str, Any]:
    return {
        "signWith": address,
        "payload": n.to_bytes(32, "big").hex(),
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
    }


def cpu_per_request(op: str, kept: bool, durability: str, requests: int = 99) -> float:
    """The median CPU time (s) of one request made in process, with (``kept``) the tracker's record and its
    write after it as ``serve --data-dir`` does, or without; create_wallet up to the organization's 100 wallets."""
    sim, submit = in_process()
    made = submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH]})
    address = made["activity"]["result"]["createWalletResult"]["addresses"][0]
    with tempfile.TemporaryDirectory() as tmp:
        writer = None
        if kept:
            data_dir = DataDir(Path(tmp) / "data", durability)
            data_dir.open()
            writer = Writer(data_dir, ChangeTracker(sim))
            writer.write_whole()
        spent = []
        try:
            for n in range(requests):
                started = time.thread_time()
                if op == "create_wallet":
                    submit(op, "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": f"w{n}", "accounts": [ETH]})
                else:
                    submit(op, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", signature_of(n, address))
                if writer is not None:
                    writer.changed()
                spent.append(time.thread_time() - started)
        finally:
            if writer is not None:
                writer.close()
    return statistics.median(spent)


def directory_with(activities: int, path: Path) -> int:
    """``path`` holding ``activities`` signatures, kept as serve keeps them; returns the activities held."""
    sim, submit = in_process()
    made = submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH]})
    address = made["activity"]["result"]["createWalletResult"]["addresses"][0]
    for n in range(activities - 1):
        submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", signature_of(n, address))
    data_dir = DataDir(path)
    data_dir.open()
    Writer(data_dir, ChangeTracker(sim)).write_whole()
    data_dir.close()
    return len(sim.store.activities)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each figure, the two modes alternating")
    parser.add_argument("--activities", type=int, default=10_000)
    parser.add_argument("--durability", choices=("always", "everysec", "no"), default="everysec")
    parser.add_argument("--node-requests", type=int, default=300, help="requests a node row sends (0: no node rows)")
    args = parser.parse_args()
    rounds = max(1, args.rounds)
    modes = ("memory", "data-dir")
    for op in ("create_wallet", "sign_raw_payload"):
        for connections in (1, 8):
            figures: dict[str, list[float]] = {mode: [] for mode in modes}
            for round_ in range(rounds):
                for mode in modes if round_ % 2 == 0 else modes[::-1]:  # alternating which runs first
                    with tempfile.TemporaryDirectory() as tmp:
                        extra = (
                            ("--data-dir", str(Path(tmp) / "data"), "--data-durability", args.durability)
                            if mode == "data-dir"
                            else ()
                        )
                        proc, ready, _ = serve(*extra)
                        try:
                            figures[mode].append(throughput(ready, op, connections, args.seconds))
                        finally:
                            stop(proc)
            memory, kept = statistics.median(figures["memory"]), statistics.median(figures["data-dir"])
            each = ", ".join(f"{1 - d / m:.0%}" for m, d in zip(figures["memory"], figures["data-dir"]))
            print(
                f"{op:<17} {connections} conn: memory {memory:7.1f}/s  data-dir {kept:7.1f}/s  "
                f"cost {1 - kept / memory:6.1%} (target <= 15%; median of {rounds}; rounds: {each})",
                flush=True,
            )
    if args.node_requests:
        node_rows(rounds, args.node_requests, args.durability)
    for op in ("create_wallet", "sign_raw_payload"):
        cpu: dict[bool, list[float]] = {False: [], True: []}
        for round_ in range(rounds):
            for kept_mode in (False, True) if round_ % 2 == 0 else (True, False):
                cpu[kept_mode].append(cpu_per_request(op, kept_mode, args.durability))
        plain, kept_cpu = statistics.median(cpu[False]), statistics.median(cpu[True])
        print(
            f"{op:<17} CPU per request in process: memory {plain * 1e6:6.0f} us  data-dir {kept_cpu * 1e6:6.0f} us  "
            f"cost {kept_cpu / plain - 1:6.1%} (median of {rounds}; rounds: "
            + ", ".join(f"{p * 1e6:.0f}/{k * 1e6:.0f} us" for p, k in zip(cpu[False], cpu[True]))
            + ")",
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
