"""Where one operation's time goes, under cProfile, in process: the WSGI application called
directly (no sockets), so that the figures are the simulator's own work per request.

    python bench/hotspots.py [whoami|get_activity|create_wallet|sign_raw_payload|sign_transaction] [--requests 2000]

For the transport's share under real load, attach py-spy to the bench server instead:
``py-spy record --pid <bench/server.py's pid> --format raw -o stacks.txt`` while bench/run.py runs.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from load import Request
from workload import OPERATIONS, Workload, scenario_file

from simulator import Config, Simulator, create_app


def environ_for(request: Request) -> dict[str, Any]:
    environ: dict[str, Any] = {
        "REQUEST_METHOD": request.method,
        "PATH_INFO": request.path,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "CONTENT_LENGTH": str(len(request.body)),
        "CONTENT_TYPE": request.headers["Content-Type"],
        "wsgi.input": io.BytesIO(request.body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
    }
    environ.update({"HTTP_" + k.upper().replace("-", "_"): v for k, v in request.headers.items()})
    return environ


def call(app: Any, request: Request) -> tuple[int, bytes]:
    status: list[str] = []
    body = b"".join(app(environ_for(request), lambda s, h, e=None: status.append(s)))
    return int(status[0].split()[0]), body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("operation", nargs="?", default="whoami", choices=OPERATIONS)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    app = create_app(Simulator(Config(seed=1, scenarios=(scenario_file(),))))
    work = Workload()
    setup = work.setup_requests()
    work.learn(json.loads(call(app, setup)[1]))
    batch = work.batch(args.operation, args.requests)
    for request in work.batch(args.operation, 50):
        call(app, request)
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    statuses = {call(app, request)[0] for request in batch}
    profiler.disable()
    elapsed = (time.perf_counter() - start) / len(batch) * 1000
    print(f"{args.operation}: {elapsed:.3f} ms per request under the profiler; statuses {sorted(statuses)}")
    for order in ("tottime", "cumulative"):
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats(order).print_stats(args.top)
        print(text.getvalue().split("\n\n", 1)[1] if "\n\n" in text.getvalue() else text.getvalue())


if __name__ == "__main__":
    main()
