"""Benchmark: the simulator against a bare Flask echo on the same server, in one run.

    python bench/run.py [--requests 600] [--clients 4] [--rounds 3]

Prints requests/s and p50/p99 latency of create_wallet and whoami (real P-256 stamps, schema
validation on, one Ethereum account derived per wallet) next to an echo of the same bodies,
with the ratios; then start-up to first answer and reset time. Figures drift with machine
load, so compare the ratios, which are measured side by side (rounds interleaved, medians).
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simulator.testing import ApiKeyStamper  # noqa: E402

KEY = "b0" * 32
ORGS = 60  # each organization holds at most 100 wallets
ETH = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}


def scenario_file() -> Path:
    lines = ["organizations:"]
    for i in range(ORGS):
        lines += [f"  - id: bench-{i}", "    users:", f'      - apiKeys: [{{privateKey: "{KEY}"}}]']
    path = Path(tempfile.mkdtemp()) / "bench.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def bodies(kind: str, count: int, offset: int) -> list[tuple[str, bytes, dict[str, str]]]:
    stamper, out = ApiKeyStamper(KEY), []
    now = int(time.time() * 1000)
    for i in range(offset, offset + count):
        org = f"bench-{i // 100}"
        if kind == "create_wallet":
            body = {
                "parameters": {"walletName": f"w{i}", "accounts": [ETH]},
                "organizationId": org,
                "timestampMs": str(now + i),
                "type": "ACTIVITY_TYPE_CREATE_WALLET",
            }
            path = "/public/v1/submit/create_wallet"
        else:
            body, path = {"organizationId": org}, "/public/v1/query/whoami"
        raw = json.dumps(body).encode()
        name, value = stamper.stamp(raw)
        out.append((path, raw, {"Content-Type": "application/json", name: value}))
    return out


def post(port: int, path: str, raw: bytes, headers: dict[str, str]) -> float:
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", path, body=raw, headers=headers)
    reply = conn.getresponse()
    reply.read()
    conn.close()
    if reply.status != 200:
        raise SystemExit(f"{path} answered {reply.status}")
    return time.perf_counter() - start


def load(port: int, requests: list[tuple[str, bytes, dict[str, str]]], clients: int, echo: bool) -> dict[str, float]:
    def one(item: tuple[str, bytes, dict[str, str]]) -> float:
        path, raw, headers = item
        return post(port, "/echo/" if echo else path, raw, headers)

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        latencies = sorted(pool.map(one, requests))
    elapsed = time.perf_counter() - start
    return {
        "rps": len(latencies) / elapsed,
        "p50": latencies[len(latencies) // 2] * 1000,
        "p99": latencies[int(len(latencies) * 0.99) - 1] * 1000,
    }


def throughput(port: int, args: argparse.Namespace) -> None:
    offset = 0
    print(f"{'operation':<16}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'echo req/s':>12}{'echo p50':>10}{'ratio':>8}")
    for kind in ("create_wallet", "whoami"):
        sim_runs, echo_runs = [], []
        for _ in range(args.rounds):
            batch = bodies(kind, args.requests, offset)
            offset += args.requests if kind == "create_wallet" else 0
            echo_runs.append(load(port, batch, args.clients, echo=True))
            sim_runs.append(load(port, batch, args.clients, echo=False))
        sim = {k: statistics.median(r[k] for r in sim_runs) for k in ("rps", "p50", "p99")}
        echo = {k: statistics.median(r[k] for r in echo_runs) for k in ("rps", "p50", "p99")}
        print(
            f"{kind:<16}{sim['rps']:>9.0f}{sim['p50']:>9.2f}{sim['p99']:>9.2f}{echo['rps']:>12.0f}"
            f"{echo['p50']:>10.2f}{sim['rps'] / echo['rps']:>8.2f}"
        )


def startup() -> None:
    cold = []
    for _ in range(3):
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        ready = json.loads(proc.stdout.readline())
        port = int(ready["url"].rsplit(":", 1)[1])
        raw = json.dumps({"organizationId": ready["organizationId"]}).encode()
        name, value = ApiKeyStamper(ready["apiPrivateKey"]).stamp(raw)
        post(port, "/public/v1/query/whoami", raw, {"Content-Type": "application/json", name: value})
        cold.append((time.perf_counter() - start) * 1000)
        proc.terminate()
        proc.wait()
        proc.stdout.close()
    import logging

    from simulator import SimulatorServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    warm = []
    for _ in range(5):
        start = time.perf_counter()
        with SimulatorServer() as server:
            creds = server.simulator.default_credentials()
            raw = json.dumps({"organizationId": creds["organizationId"]}).encode()
            name, value = ApiKeyStamper(creds["apiPrivateKey"]).stamp(raw)
            post(server.port, "/public/v1/query/whoami", raw, {"Content-Type": "application/json", name: value})
            warm.append((time.perf_counter() - start) * 1000)
    print(
        f"start-up to first answer: new process {statistics.median(cold):.0f} ms (median of 3, "
        f"includes the Python interpreter and imports); in a running process {statistics.median(warm):.1f} ms "
        "(median of 5: Simulator with the default scenario + server + first whoami)"
    )


def reset_time() -> None:
    from simulator import Simulator

    sim = Simulator()
    samples = []
    for _ in range(2000):
        start = time.perf_counter()
        sim.reset()
        samples.append((time.perf_counter() - start) * 1_000_000)
    samples.sort()
    print(f"reset with the default state: p50 {samples[1000]:.0f} µs, p99 {samples[1980]:.0f} µs (2000 resets)")


def wallet_costs() -> None:
    """Where create_wallet's time goes, in process: BIP-39's PBKDF2 is most of it."""
    from simulator.crypto import addresses, hd

    words = hd.generate_mnemonic(bytes(range(16)))
    seed_ms = timed(lambda: hd.mnemonic_to_seed(words), 200)
    seed = hd.mnemonic_to_seed(words)

    def ten_accounts() -> None:
        for i in range(10):
            key = hd.derive(hd.mnemonic_to_seed(words) if i == 0 else seed, "CURVE_SECP256K1", f"m/44'/60'/{i}'/0/0")
            addresses.address_for("ADDRESS_FORMAT_ETHEREUM", "CURVE_SECP256K1", key.public_key)

    print(
        f"BIP-39 seed (PBKDF2-HMAC-SHA512, 2048 rounds, GIL released): {seed_ms:.2f} ms per wallet; "
        f"a 10-account Ethereum wallet from its mnemonic: {timed(ten_accounts, 50):.2f} ms"
    )


def timed(action, times: int) -> float:
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def fixture_and_snapshots() -> None:
    """The pytest fixture's per-test work, and restoring a 1,000-wallet state."""
    from simulator import Simulator
    from simulator.activities import wallets
    from simulator.activities.context import Context
    from simulator.state.store import Organization

    sim = Simulator()
    per_test = timed(lambda: (sim.use_scenarios(()), sim.crashes.clear()), 2000)
    big = Simulator()
    now = big.clock.now_ms()
    start = time.perf_counter()
    for n in range(10):  # an organization holds at most 100 wallets
        org = big.store.add_org(Organization(f"bench-org-{n}", f"bench {n}", now))
        ctx = Context(big.store, big.source, now, org)
        for i in range(100):
            wallets.new_wallet(ctx, f"w{i}", [ETH])
    built = time.perf_counter() - start
    snapshot = big.snapshot()
    restore = timed(lambda: big.restore(snapshot), 20)
    print(
        f"pytest fixture per test (reset to the default state): {per_test * 1000:.0f} µs; 1,000-wallet state "
        f"(built in {built:.1f} s): snapshot restore {restore:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=600, help="requests per round and operation")
    parser.add_argument("--clients", type=int, default=4, help="concurrent client threads")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.requests * args.rounds > ORGS * 100:
        raise SystemExit(f"at most {ORGS * 100 // args.rounds} requests per round (wallet limits)")
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "server.py"), str(scenario_file())],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
        print(
            f"one werkzeug server (threaded), {args.clients} clients, {args.requests} requests x {args.rounds} rounds"
        )
        throughput(port, args)
    finally:
        server.terminate()
        server.wait()
        server.stdout.close()
    startup()
    reset_time()
    wallet_costs()
    fixture_and_snapshots()


if __name__ == "__main__":
    main()
