"""What ``serve --data-dir`` costs: throughput with and without it, start-up with 10,000 activities on disk,
disk bytes per activity.

    PYTHONPATH=$PWD python bench/data_dir.py [--seconds 3] [--durability everysec|always|no]

Throughput: create_wallet and sign_raw_payload at 1 and 8 connections, each against a fresh ``serve`` (in
memory, then ``--data-dir`` with the default durability ``everysec``), for ``--seconds`` each. Start-up: a
directory holding 10,000 sign_raw_payload activities (made in process, kept through the same writer
``serve`` uses), from launching ``serve`` to its ready line, against the same with no directory.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from simulator import Config, Simulator
from simulator.datadir import files
from simulator.datadir.changes import ChangeTracker
from simulator.datadir.directory import DataDir, Writer
from simulator.testing import ApiKeyStamper, SimulatorClient

ETH = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}


def serve(*args: str) -> tuple[subprocess.Popen[str], dict[str, Any], float]:
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0", "--seed", "1", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, json.loads(line), time.perf_counter() - started


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(timeout=30)


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


def directory_with(activities: int, path: Path) -> int:
    """``path`` holding ``activities`` signatures, kept as serve keeps them; returns the activities held."""
    sim = Simulator(Config(seed=1, timestamp_window_ms=None))
    creds = sim.default_credentials()
    stamper = ApiKeyStamper(creds["apiPrivateKey"])

    def submit(op: str, kind: str, parameters: dict[str, Any]) -> Any:
        body = {"type": kind, "timestampMs": "0", "organizationId": creds["organizationId"], "parameters": parameters}
        raw = json.dumps(body).encode()
        name, value = stamper.stamp(raw)
        return sim.submit(op, raw, {"Content-Type": "application/json", name: value})

    made = submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH]})
    address = made["activity"]["result"]["createWalletResult"]["addresses"][0]
    for n in range(activities - 1):
        parameters = {
            "signWith": address,
            "payload": n.to_bytes(32, "big").hex(),
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        }
        submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters)
    data_dir = DataDir(path)
    data_dir.open()
    Writer(data_dir, ChangeTracker(sim)).write_whole()
    data_dir.close()
    return len(sim.store.activities)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--activities", type=int, default=10_000)
    parser.add_argument("--durability", choices=("always", "everysec", "no"), default="everysec")
    args = parser.parse_args()
    rows = []
    for op in ("create_wallet", "sign_raw_payload"):
        for connections in (1, 8):
            figures = []
            for mode in ("memory", "data-dir"):
                with tempfile.TemporaryDirectory() as tmp:
                    extra = (
                        ("--data-dir", str(Path(tmp) / "data"), "--data-durability", args.durability)
                        if mode == "data-dir"
                        else ()
                    )
                    proc, ready, _ = serve(*extra)
                    try:
                        figures.append(throughput(ready, op, connections, args.seconds))
                    finally:
                        stop(proc)
            cost = 1 - figures[1] / figures[0]
            rows.append((op, connections, *figures, cost))
            print(
                f"{op:<17} {connections} conn: memory {figures[0]:7.1f}/s  data-dir {figures[1]:7.1f}/s  "
                f"cost {cost:6.1%} (target <= 15%)",
                flush=True,
            )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data"
        held = directory_with(args.activities, path)
        size = files.size_of(path)
        proc, _ready, empty_start = serve()
        stop(proc)
        proc, _ready, kept_start = serve("--data-dir", str(path))
        stop(proc)
        print(
            f"start-up: no data dir {empty_start:.2f} s; with {held} activities on disk {kept_start:.2f} s "
            f"(target < 1 s over the plain start: {kept_start - empty_start:+.2f} s)"
        )
        print(f"disk: {size} bytes for {held} activities = {size / held:.0f} bytes per activity")


if __name__ == "__main__":
    main()
