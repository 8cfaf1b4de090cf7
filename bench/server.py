"""The benchmark's server: the simulator and a bare Flask echo on one werkzeug server.

Run by bench/run.py as a separate process so that the load generator does not share its GIL.
Prints the URL on stdout when ready.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from flask import Flask, Response, request
from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.serving import make_server

from simulator import Config, Simulator, create_app


def echo_app() -> Flask:
    echo = Flask("echo")

    @echo.post("/")
    def answer() -> Response:
        return Response(request.get_data(), mimetype="application/json")

    return echo


def main() -> None:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one log line per request would be measured too
    scenario = Path(sys.argv[1])
    app = create_app(Simulator(Config(seed=1, scenarios=(scenario,))))
    both = DispatcherMiddleware(app, {"/echo": echo_app()})
    server = make_server("127.0.0.1", 0, both, threaded=True)
    print(f"http://127.0.0.1:{server.server_port}", flush=True)
    server.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()
