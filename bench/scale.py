"""The benchmark's state-size figures: reads as an organization grows, retention and resident memory.

Reads go through the WSGI application in process (no sockets: the figure is the simulator's own
work), in a small organization (20 activities, 10 one-account wallets) and a large one (10,000
activities, 100 ten-account wallets) of a store that also holds 1,000 more wallets.
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any

from hotspots import call
from load import Request
from workload import ETH, Workload, scenario_file

from simulator import Config, Simulator, create_app

FLAT_TARGET = 2.0  # a paginated read in the large organization / the same in the small one
SMALL, LARGE = "bench-1", "bench-2"


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def fill_org(sim: Simulator, work: Workload, org: str, activities: int, wallets: int, accounts: int) -> None:
    for w in range(wallets):
        specs = [{**ETH, "path": f"m/44'/60'/0'/0/{i}"} for i in range(accounts)]
        body = work.activity_body("ACTIVITY_TYPE_CREATE_WALLET", org, {"walletName": f"{org}-w{w}", "accounts": specs})
        sim.submit("create_wallet", *stamped(work, body))
    signer = next(iter(sim.store.orgs[org].wallets.values())).accounts[0].address
    for n in range(activities - wallets):
        parameters = {
            "signWith": signer,
            "payload": n.to_bytes(32, "big").hex(),
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        }
        body = work.activity_body("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org, parameters)
        sim.submit("sign_raw_payload", *stamped(work, body))


def stamped(work: Workload, body: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    request = work.stamped("", body)
    return request.body, request.headers


def reads(work: Workload, sim: Simulator, org: str) -> dict[str, Request]:
    ordered = sim.store.orgs[org].activities.ordered()
    middle = ordered[len(ordered) // 2].activity_id
    query = "/public/v1/query/"
    return {
        "list_activities": work.stamped(query + "list_activities", {"organizationId": org}),
        "list_activities after a cursor": work.stamped(
            query + "list_activities", {"organizationId": org, "paginationOptions": {"after": middle}}
        ),
        "get_activity": work.stamped(query + "get_activity", {"organizationId": org, "activityId": middle}),
        "list_wallet_accounts": work.stamped(
            query + "list_wallet_accounts", {"organizationId": org, "paginationOptions": {"limit": "10"}}
        ),
        "whoami": work.stamped(query + "whoami", {"organizationId": org}),
    }


def per_request_us(app: Any, request: Request, times: int = 300) -> float:
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        status, body = call(app, request)
        samples.append((time.perf_counter() - start) * 1e6)
        if status != 200:
            raise RuntimeError(f"{request.path} answered {status}: {body[:200]!r}")
    return statistics.median(samples)


def flat_reads() -> None:
    sim = Simulator(Config(seed=1, scenarios=(scenario_file(),), auth="off", timestamp_window_ms=None))
    work = Workload()
    started = time.perf_counter()
    fill_org(sim, work, SMALL, activities=20, wallets=10, accounts=1)
    fill_org(sim, work, LARGE, activities=10_000, wallets=100, accounts=10)
    for n in range(10):
        fill_org(sim, work, f"bench-{3 + n}", activities=100, wallets=100, accounts=1)
    built = time.perf_counter() - started
    app = create_app(sim)
    small, large = reads(work, sim, SMALL), reads(work, sim, LARGE)
    print(f"reads by organization size (in process, median µs; state built in {built:.0f} s):")
    for name in small:
        few, many = per_request_us(app, small[name]), per_request_us(app, large[name])
        verdict = "met" if many / few <= FLAT_TARGET else "MISSED"
        print(
            f"  {name:<32}{few:>8.0f} µs small {many:>8.0f} µs large  x{many / few:.2f}"
            f"  (target <= {FLAT_TARGET:.1f}x {verdict})"
        )


def retention(count: int = 12_000, limit: int = 5_000) -> None:
    """Activities kept and resident memory with a retention limit, and what a reset gives back."""
    gc.collect()
    before = rss_bytes()
    sim = Simulator(Config(seed=1, scenarios=(scenario_file(),), auth="off", max_activities=limit))
    work = Workload()
    setup = work.setup_requests()
    work.learn(sim.submit("create_wallet", setup.body, setup.headers))
    for request in work.batch("sign_raw_payload", count):
        sim.submit("sign_raw_payload", request.body, request.headers)
    sim.journal.clear()
    gc.collect()
    kept, grown = len(sim.store.activities), rss_bytes() - before
    sim.reset()
    gc.collect()
    held = rss_bytes() - before
    print(
        f"retention (max_activities={limit:,}): after {count:,} sign_raw_payload requests {kept:,} activities kept; "
        f"resident memory +{grown / 2**20:.0f} MiB for the run (journal emptied), +{held / 2**20:.0f} MiB after reset"
    )
