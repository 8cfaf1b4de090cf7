"""The benchmark's server: the simulator and a bare Flask echo at /echo/ on one server, in its own process.

    python bench/server.py SCENARIO [--server waitress|werkzeug] [--activities N]

``waitress`` is the transport ``serve`` and SimulatorServer use (simulator/wsgi.py, default
settings); ``werkzeug`` is the threaded development server they used before, kept here so a
run can show the difference. ``--activities N`` first fills the state with N signing
activities (authentication off, to build them quickly) for the state-export measurement.
Prints the URL on stdout when ready; run by bench/run.py so the load generator has its own GIL.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from flask import Flask, Response, request
from werkzeug.middleware.dispatcher import DispatcherMiddleware

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workload import Workload

from simulator import Config, Simulator, create_app
from simulator.wsgi import PortServer, worker_pool


def stream_app(sim: Simulator) -> Flask:
    """The export as ``Simulator.export_state_chunks`` streams it (what /_simulator/state should serve)."""
    streamed = Flask("stream")

    @streamed.get("/")
    def state() -> Response:
        return Response(sim.export_state_chunks(), mimetype="application/json")

    return streamed


def echo_app() -> Flask:
    echo = Flask("echo")

    @echo.post("/")
    def answer() -> Response:
        return Response(request.get_data(), mimetype="application/json")

    return echo


def fill(sim: Simulator, count: int) -> None:
    """``count`` completed sign_raw_payload activities, through the ordinary pipeline."""
    work = Workload()
    setup = work.setup_requests()
    work.learn(sim.submit("create_wallet", setup.body, setup.headers))
    for _ in range(count):
        signing = work.sign_raw_payload()
        sim.submit("sign_raw_payload", signing.body, signing.headers)


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("scenario", type=Path)
    options.add_argument("--server", choices=("waitress", "werkzeug"), default="waitress")
    options.add_argument("--activities", type=int, default=0)
    args = options.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one log line per request would be measured too
    config = Config(
        seed=1,
        scenarios=(args.scenario,),
        auth="off" if args.activities else "verify",
        max_activities=max(args.activities + 1000, Config.max_activities or 0),
    )
    sim = Simulator(config)
    if args.activities:
        fill(sim, args.activities)
    app = create_app(sim)  # refuses over-cap bodies itself (413 in the one error shape)
    both = DispatcherMiddleware(app, {"/echo": echo_app(), "/bench/state-stream": stream_app(sim)})
    if args.server == "werkzeug":
        from werkzeug.serving import make_server

        old = make_server("127.0.0.1", 0, both, threaded=True)
        print(f"http://127.0.0.1:{old.server_port}", flush=True)
        old.serve_forever(poll_interval=0.05)
    server = PortServer(both, "127.0.0.1", 0, config, worker_pool(config))
    print(f"http://127.0.0.1:{server.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
