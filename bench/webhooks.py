"""Webhook benchmark: delivery latency from activity completion to receipt, and API latency
with a fast receiver against a slow one (the API must not wait for receivers).

    python bench/webhooks.py [--activities 200]
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator import Config, SimulatorServer
from simulator.testing import ApiKeyStamper, SimulatorClient


def receiver(delay: float, arrivals: dict[str, float]) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            arrivals[json.loads(body)["id"]] = time.perf_counter()
            time.sleep(delay)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run(count: int, delay: float) -> tuple[list[float], list[float]]:
    """``count`` activities (feature updates: no per-organization limit) against a receiver."""
    arrivals: dict[str, float] = {}
    hook = receiver(delay, arrivals)
    with SimulatorServer(config=Config(seed=1)) as server:
        creds = server.simulator.default_credentials()
        org = server.simulator.store.org(creds["organizationId"])
        org.features["FEATURE_NAME_WEBHOOK"] = f"http://127.0.0.1:{hook.server_port}/hooks"
        client = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
        done, api = {}, []
        for i in range(count):
            start = time.perf_counter()
            activity = client.submit(
                "set_organization_feature",
                "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
                {"name": "FEATURE_NAME_EMAIL_AUTH", "value": str(i)},
            ).body["activity"]
            done[activity["id"]] = time.perf_counter()
            api.append((done[activity["id"]] - start) * 1000)
        server.simulator.webhooks.drain(timeout=count * delay + 10)
    hook.shutdown()
    latency = [(arrivals[k] - done[k]) * 1000 for k in done if k in arrivals]
    return latency, api


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--activities", type=int, default=200)
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    fast_latency, fast_api = run(args.activities, 0.0)
    slow_latency, slow_api = run(min(args.activities, 50), 0.2)
    print(
        f"delivery latency, completion to receipt (fast receiver, {len(fast_latency)} deliveries): "
        f"p50 {statistics.median(fast_latency):.1f} ms, p99 {pct(fast_latency, 0.99):.1f} ms"
    )
    print(
        f"API latency with a fast receiver: p50 {statistics.median(fast_api):.1f} ms; with a receiver that takes "
        f"200 ms per delivery: p50 {statistics.median(slow_api):.1f} ms (ratio "
        f"{statistics.median(slow_api) / statistics.median(fast_api):.2f})"
    )


if __name__ == "__main__":
    main()
