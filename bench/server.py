"""The benchmark's server: the simulator, a bare Flask echo at /echo/ and the ceiling at /ceiling/ (bench/ceiling.py)
on one server, in its own process.

    python bench/server.py SCENARIO [--server waitress|granian|werkzeug] [--activities N] [--data-dir DIR]
                                    [--data-durability always|everysec|no]

``waitress`` is the transport ``serve`` and SimulatorServer use (simulator/server/wsgi.py, default
settings); ``granian`` is ``serve --server granian``'s (simulator/server/granian_server.py: a Rust HTTP server
driven in this process, ``Config.threads`` application threads; the bench once ran granian's own
multi-process server, whose worker, forked while this process had threads, could hang on a lock); ``werkzeug`` is the threaded
development server they used before, kept here so a run can show the difference. ``--activities N`` first fills the state with N signing
activities (authentication off, to build them quickly) for the state-export measurement. ``--data-dir DIR``
keeps the simulator's state there as ``serve --data-dir`` does (``--data-durability``, everysec by default), for
bench/data_dir.py.
Prints the URL on stdout when ready; run by bench/run.py so the load generator has its own GIL.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, request
from werkzeug.middleware.dispatcher import DispatcherMiddleware

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ceiling import ceiling_app
from workload import Workload

from simulator import Config, Simulator, create_app

try:  # the folders since 0.4; bench/instructions.py --against loads this module beside older trees too
    from simulator.http import logs
    from simulator.server.wsgi import PortServer, worker_pool
except ImportError:
    from simulator.wsgi import PortServer, worker_pool  # type: ignore[no-redef]

    from simulator import logs  # type: ignore[no-redef,attr-defined]

if TYPE_CHECKING:
    from simulator.datadir.directory import Writer


def stream_app(sim: Simulator) -> Flask:
    """The export as ``Simulator.export_state_chunks`` streams it (what /_simulator/state should serve)."""
    streamed = Flask("stream")

    @streamed.get("/")
    def state() -> Response:
        return Response(sim.export_state_chunks(), mimetype="application/json")

    return streamed


def writer_app(writer: Writer) -> Flask:
    """How many changes the data-dir server acknowledged and how many records it wrote for them (group commit)."""
    counts = Flask("writer")

    @counts.get("/")
    def written() -> Response:
        return Response(json.dumps({"changes": writer.changes, "records": writer.records}), mimetype="application/json")

    return counts


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


class Timed:
    """Wall and CPU time of each call of ``app`` (``BENCH_TIMING=1``), read at /bench/timing/.

    A served request whose application takes longer by the wall clock than by the thread's CPU
    clock waited (for the GIL, or for a core): what no in-process profile shows."""

    def __init__(self, app: Any, name: str, times: dict[str, list[tuple[float, float]]]) -> None:
        self.app, self.times = app, times.setdefault(name, [])

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return self.app(environ, start_response)
        finally:
            self.times.append((time.perf_counter() - wall, time.thread_time() - cpu))


SEEDS: list[int] = []  # BIP-39 seeds computed since the last read (BENCH_TIMING=1)


def count_seeds() -> None:
    """Count the mnemonic pool's PBKDF2 runs: each wallet should cost one, never two."""
    from simulator.model import mnemonic_pool

    plain = mnemonic_pool.compute

    def counted(key: str, index: int, words: int) -> tuple[str, bytes]:
        SEEDS.append(SEEDS.pop() + 1 if SEEDS else 1)
        return plain(key, index, words)

    mnemonic_pool.compute = counted


class Profiled:
    """Each call of ``app`` under one cProfile profile (``BENCH_PROFILE=1``, one connection at a
    time), its statistics at /bench/profile/: the served request's functions, to set beside
    ``bench/hotspots.py``'s in-process ones."""

    def __init__(self, app: Any) -> None:
        import cProfile

        self.app, self.profile, self.calls = app, cProfile.Profile(), 0

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        self.calls += 1
        self.profile.enable()
        try:
            return self.app(environ, start_response)
        finally:
            self.profile.disable()

    def report(self) -> Flask:
        shown = Flask("profile")

        @shown.get("/")
        def stats() -> Response:
            import io
            import pstats

            out = io.StringIO()
            out.write(f"{self.calls} calls\n")
            pstats.Stats(self.profile, stream=out).sort_stats("tottime").print_stats(30)
            pstats.Stats(self.profile, stream=out).sort_stats("cumulative").print_stats(30)
            return Response(out.getvalue(), mimetype="text/plain")

        return shown


def timing_app(times: dict[str, list[tuple[float, float]]]) -> Flask:
    report = Flask("timing")

    @report.get("/")
    def medians() -> Response:
        out: dict[str, Any] = {"seeds_computed": SEEDS.pop() if SEEDS else 0}
        for name, pairs in times.items():
            if pairs:
                out[name] = {
                    "count": len(pairs),
                    "wall_us": statistics.median(w for w, _ in pairs) * 1e6,
                    "cpu_us": statistics.median(c for _, c in pairs) * 1e6,
                }
            pairs.clear()
        return Response(json.dumps(out), mimetype="application/json")

    return report


def bench_app(
    scenario: Path, activities: int, data_dir: Path | None = None, durability: str = Config.data_durability
) -> tuple[Config, DispatcherMiddleware]:
    config = Config(
        seed=1,
        scenarios=(scenario,),
        auth="off" if activities else "verify",
        max_activities=max(activities + 1000, Config.max_activities or 0),
        threads=int(os.environ.get("BENCH_THREADS", Config.threads)),  # for experiments: Config.threads by default
        data_dir=data_dir,
        data_durability=durability,
    )
    sim = Simulator(config)
    if activities:
        fill(sim, activities)
    app: Any = create_app(sim)  # refuses over-cap bodies itself (413 in the one error shape)
    mounts: dict[str, Any] = {"/bench/state-stream": stream_app(sim)}
    if (
        data_dir is not None
    ):  # as serve --data-dir keeps it (simulator/server/simulator_server.py): the directory, its writer, the gate
        # imported here: bench/instructions.py --against loads this module beside a tree from before the data dir
        from simulator.datadir.gate import WriteGate
        from simulator.server import data_dir_writer, open_data_dir

        opened, loaded = open_data_dir(sim)
        assert opened is not None
        writer = data_dir_writer(sim, opened, loaded)
        app = WriteGate(app, writer)
        mounts["/bench/writer"] = writer_app(writer)
    echo: Any = echo_app()
    if os.environ.get("BENCH_TIMING"):
        times: dict[str, list[tuple[float, float]]] = {}
        app, echo = Timed(app, "simulator", times), Timed(echo, "echo", times)
        mounts["/bench/timing"] = timing_app(times)
        count_seeds()
    if os.environ.get("BENCH_PROFILE"):
        app = Profiled(app)
        mounts["/bench/profile"] = app.report()
    return config, DispatcherMiddleware(app, {"/echo": echo, "/ceiling": ceiling_app(), **mounts})


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("scenario", type=Path)
    options.add_argument("--server", choices=("waitress", "granian", "werkzeug"), default="waitress")
    options.add_argument("--activities", type=int, default=0)
    options.add_argument(
        "--data-dir", type=Path, default=None, help="kept as serve --data-dir keeps it (bench/data_dir.py)"
    )
    options.add_argument("--data-durability", choices=("always", "everysec", "no"), default=Config.data_durability)
    args = options.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one log line per request would be measured too
    if (
        os.environ.get("BENCH_LOG", "1") != "0"
    ):  # serve's request log, written where nobody reads it (BENCH_LOG=0: none)
        logs.configure("text", open(os.devnull, "w"), background=True)  # noqa: SIM115 - open for the process's life
    if interval := os.environ.get("BENCH_SWITCH_INTERVAL"):  # for experiments: the GIL's switch interval, s
        sys.setswitchinterval(float(interval))
    config, both = bench_app(args.scenario, args.activities, args.data_dir, args.data_durability)
    if (
        args.server == "granian"
    ):  # as serve --server granian runs it: in this process (simulator/server/granian_server.py)
        try:
            from simulator.server.granian_server import GranianPort
        except ImportError:  # a tree from before simulator/server/
            from simulator.granian_server import GranianPort  # type: ignore[no-redef]

        port = GranianPort(both, "127.0.0.1", 0, config)
        print(f"http://127.0.0.1:{port.port}", flush=True)
        port.serve_forever()
        return
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
