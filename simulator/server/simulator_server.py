"""Serving a simulator over HTTP on loopback, in background threads or in the foreground.

Both ports (the main interface with the control API under /_simulator, and the auth proxy)
are served by waitress through :mod:`simulator.server.wsgi`: HTTP/1.1 keep-alive, one shared pool of
``Config.threads`` workers, read timeouts, ``Config.max_connections`` per port and the body cap;
or, with ``Config.server = "granian"``, by granian through :mod:`simulator.server.granian_server`, in this
process too, so both ports still share the one Simulator.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulator.auth_proxy.routes import create_proxy_app
from simulator.config import Config
from simulator.core import Simulator
from simulator.datadir import files
from simulator.datadir.directory import DataDir, Writer
from simulator.datadir.gate import WriteGate
from simulator.datadir.tracker import ChangeTracker
from simulator.local_hosts import is_loopback_name
from simulator.server.host_check import HostCheck
from simulator.server.wsgi import PortServer, check_transport_settings, worker_pool
from simulator.web.app import create_app

if TYPE_CHECKING:
    from simulator.server.granian_server import GranianPort

log = logging.getLogger("simulator")
STOP_GRACE_SECONDS = 5.0  # how long stop() lets answers under way finish


def guard_control_api(sim: Simulator, host: str) -> str | None:
    """Listening beyond loopback with the control API on and no token: make one (returned, and printed by
    serve in the ready line as ``controlToken``), so that the port never starts with an open control API.
    Not from the seeded source: a token anyone could recompute from the seed would protect nothing."""
    config = sim.config
    if not config.control or config.control_token is not None or is_loopback_name(host.strip("[]").lower()):
        return None
    token = secrets.token_urlsafe(32)
    sim.config = dataclasses.replace(config, control_token=token)
    log.warning(
        "listening on %s, beyond loopback: the control API (/_simulator) requires a token, generated for this run "
        "(the ready line's controlToken); pass --control-token to choose it, or --no-control",
        host,
    )
    return token


def warn_about_every_origin(sim: Simulator) -> None:
    if "*" in sim.config.cors_origins or "*" in sim.store.cors_origins:
        log.warning(
            "CORS allows every origin ('*'): any website open in this machine's browser can call the main interface "
            "and the auth proxy with the default credentials; list the app's origins with --cors-origin instead"
        )


def open_data_dir(sim: Simulator) -> tuple[DataDir | None, bool]:
    """Config.data_dir: lock and load it (DataDirError, changing nothing, when it cannot be used); whether
    it held a state."""
    if sim.config.data_dir is None:
        return None, False
    data_dir = DataDir(sim.config.data_dir, sim.config.data_durability)
    with files.collection_paused():
        loaded = data_dir.open()
        try:
            if loaded.document is not None:
                sim.import_kept_state(loaded.document)
                log.info("data directory %s: state loaded (%d bytes)", data_dir.path, data_dir.size())
                warn_about_another_seed(sim, data_dir.path)
        except BaseException:
            data_dir.close()
            raise
    data_dir.unfreeze_at_close = True  # loaded: collection_paused froze it
    return data_dir, loaded.document is not None


def warn_about_another_seed(sim: Simulator, path: Path) -> None:
    """A directory goes on with the seed it was made with (its ids and keys continue that stream): a different
    --seed asked for is ignored, and said so."""
    asked, kept = sim.config.seed, sim.source.seed
    if asked is not None and asked != kept:
        log.warning(
            "data directory %s was made with seed %s and goes on with it: the seed asked for (%s) is ignored; "
            "to start from seed %s, use another --data-dir (or none)",
            path,
            kept,
            asked,
            asked,
        )


def data_dir_writer(sim: Simulator, data_dir: DataDir, loaded: bool) -> Writer:
    """The writer of ``data_dir`` (opened by ``open_data_dir``, which says whether it ``loaded`` a state)."""
    tracker = ChangeTracker(sim)  # each record holds what changed since the one before
    writer = Writer(data_dir, tracker)
    if loaded:
        tracker.prime()  # the state just loaded is what the directory holds
    else:
        writer.write_whole()  # an empty directory holds the state (and its seed) from the start
    return writer


class SimulatorServer:
    """The simulator's HTTP server on loopback; ``port=0`` picks a free port.

    >>> with SimulatorServer() as server:
    ...     server.url          # doctest: +SKIP

    The attributes below ``simulator`` delegate to it, so that a test holding the pytest
    ``simulator`` fixture writes ``simulator.journal`` (``simulator.simulator.journal`` still works).
    """

    def __init__(
        self,
        simulator: Simulator | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        proxy_port: int = 0,
        config: Config | None = None,
    ) -> None:
        if (simulator.config if simulator else config or Config()).server == "granian":
            from simulator.server.granian_server import granian_module, warn_what_is_not_carried

            granian_module()  # GranianMissing, naming the install, before anything is loaded or opened
            warn_what_is_not_carried()
        self.simulator = simulator or Simulator(config)
        self.generated_control_token = guard_control_api(self.simulator, host)
        settings = self.simulator.config
        check_transport_settings(settings)
        warn_about_every_origin(self.simulator)
        self.app = create_app(self.simulator)
        proxy_app = create_proxy_app(self.simulator)
        self.data_dir, loaded = open_data_dir(self.simulator)
        served: tuple[Any, Any] = (self.app, proxy_app)
        self._writer: Writer | None = None
        if self.data_dir is not None:
            writer = self._writer = data_dir_writer(self.simulator, self.data_dir, loaded)
            served = (WriteGate(self.app, writer), WriteGate(proxy_app, writer))
        self._pool = worker_pool(settings) if settings.server == "waitress" else None  # granian runs its own
        opened: list[Any] = []
        try:
            gate = self.simulator.fault_gate
            for app, wanted, interface in ((served[0], port, "api"), (served[1], proxy_port, "authProxy")):
                # every port, every request: a Host this simulator does not answer is refused first (DNS rebinding)
                checked = HostCheck(app, host, self.simulator.allowed_hosts)
                opened.append(self._port(checked, host, wanted, gate, interface))
        except OSError:
            self._shut(opened, grace=0)
            if self.data_dir is not None:
                self.data_dir.close()
            raise
        self._main: PortServer | GranianPort = opened[0]
        self._proxy: PortServer | GranianPort = opened[1]
        self._threads: list[threading.Thread] = []

    def _port(self, app: Any, host: str, port: int, gate: Any, interface: str) -> Any:
        """One listening port on the configured transport (both expose PortServer's serve and stop calls)."""
        if self._pool is None:
            from simulator.server.granian_server import GranianPort

            return GranianPort(app, host, port, self.simulator.config, gate, interface)
        return PortServer(app, host, port, self.simulator.config, self._pool, gate, interface)

    @property
    def host(self) -> str:
        return self._main.host

    @property
    def port(self) -> int:
        return self._main.port

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def proxy_url(self) -> str:
        """The auth proxy's address (/v1/...)."""
        return f"http://{self.host}:{self._proxy.port}"

    def url_for(self, path: str) -> str:
        return self.url + "/" + path.lstrip("/")

    def start(self) -> SimulatorServer:
        for server in (self._main, self._proxy):
            self._serve_in_thread(server)
        return self

    def serve_forever(self) -> None:
        """Serve in the foreground (the proxy in a thread) until interrupted or stopped."""
        self._serve_in_thread(self._proxy)
        self._main.serve_forever()

    def _serve_in_thread(self, server: Any) -> None:
        thread = threading.Thread(target=server.serve_forever, name=f"simulator-{server.port}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self) -> None:
        """Stop accepting, let answers under way finish, close every connection, stop the workers."""
        left = self.simulator.close()
        if left:
            log.warning("%d webhook deliveries were still pending at shutdown", len(left))
        self._shut([self._main, self._proxy], STOP_GRACE_SECONDS)
        for thread in self._threads:
            thread.join(timeout=STOP_GRACE_SECONDS)
        if self._writer is not None:
            self._writer.close()  # changes made in process since the last request, then the base
        elif self.data_dir is not None:
            self.data_dir.close()

    def _shut(self, servers: list[Any], grace: float) -> None:
        if self._pool is None:  # granian: both ports stop accepting at once, then their answers finish together
            for port in servers:
                port.stop_accepting()
        for server in servers:
            server.stop_serving(grace)
        if self._pool is not None:  # before the connections close: workers wake the loop through them
            self._pool.shutdown(timeout=grace)
        for server in servers:
            server.close_connections()

    def __enter__(self) -> SimulatorServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # the Simulator's test-facing surface, delegated ----------------------------------------
    # the three that change the state answer nothing (whatever the Simulator's do); the rest: FROM_SIMULATOR
    def reset(self) -> None:
        self.simulator.reset()

    def restore(self, snapshot: object) -> None:
        self.simulator.restore(snapshot)

    def use_scenarios(self, paths: tuple[Path, ...] | list[Path]) -> None:
        self.simulator.use_scenarios(paths)

    def __getattr__(self, name: str) -> Any:
        """The names of ``FROM_SIMULATOR`` are the Simulator's own (``server.journal`` is
        ``server.simulator.journal``; ``server.fault(...)`` is ``Simulator.fault``): one path, not a method each."""
        if name in FROM_SIMULATOR:
            return getattr(self.simulator, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *FROM_SIMULATOR})


# What a test holding the pytest ``simulator`` fixture (a SimulatorServer) reads and calls on the Simulator.
FROM_SIMULATOR = frozenset(
    {
        "journal",
        "clock",
        "webhooks",
        "store",
        "config",
        "credentials",
        "snapshot",
        "approve",
        "reject",
        "explain",
        "outbox",
        "otp_code",
        "wait_for_otp",
        "default_credentials",
        "fault",
        "add_fault",
        "remove_fault",
        "clear_faults",
        "fault_listing",
    }
)
