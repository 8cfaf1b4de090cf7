"""Serving a simulator over HTTP on loopback, in a background thread or in the foreground."""

from __future__ import annotations

import logging
import threading
from typing import Any

from werkzeug.serving import BaseWSGIServer, make_server

from simulator.app import create_app
from simulator.config import Config
from simulator.core import Simulator
from simulator.proxy.routes import create_proxy_app

log = logging.getLogger("simulator")


class SimulatorServer:
    """A threaded werkzeug server around one Simulator; ``port=0`` picks a free port.

    >>> with SimulatorServer() as server:
    ...     server.url          # doctest: +SKIP
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
        self.simulator = simulator or Simulator(config)
        self.app = create_app(self.simulator)
        self._server: BaseWSGIServer = make_server(host, port, self.app, threaded=True)
        self._proxy: BaseWSGIServer = make_server(host, proxy_port, create_proxy_app(self.simulator), threaded=True)
        self._threads: list[threading.Thread] = []

    @property
    def host(self) -> str:
        return str(self._server.server_address[0])

    @property
    def port(self) -> int:
        return int(self._server.server_port)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def proxy_url(self) -> str:
        """The auth proxy's address (/v1/...)."""
        return f"http://{self.host}:{self._proxy.server_port}"

    def url_for(self, path: str) -> str:
        return self.url + "/" + path.lstrip("/")

    def start(self) -> SimulatorServer:
        for server in (self._server, self._proxy):
            # A short poll interval makes stop() take milliseconds instead of half a second.
            thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": 0.01},
                name=f"simulator-{server.server_port}",
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)
        return self

    def serve_forever(self) -> None:
        """Serve in the foreground (the proxy in a thread) until interrupted."""
        thread = threading.Thread(target=self._proxy.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        self._threads.append(thread)
        self._server.serve_forever(poll_interval=0.05)

    def stop(self) -> None:
        left = self.simulator.close()
        if left:
            log.warning("%d webhook deliveries were still pending at shutdown", len(left))
        for server in (self._server, self._proxy):
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)

    def __enter__(self) -> SimulatorServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
