"""Serving a simulator over HTTP on loopback, in a background thread or in the foreground."""

from __future__ import annotations

import threading
from typing import Any

from werkzeug.serving import BaseWSGIServer, make_server

from simulator.app import create_app
from simulator.config import Config
from simulator.core import Simulator


class SimulatorServer:
    """A threaded werkzeug server around one Simulator; ``port=0`` picks a free port.

    >>> with SimulatorServer() as server:
    ...     server.url          # doctest: +SKIP
    """

    def __init__(self, simulator: Simulator | None = None, *, host: str = "127.0.0.1", port: int = 0,
                 config: Config | None = None) -> None:
        self.simulator = simulator or Simulator(config)
        self.app = create_app(self.simulator)
        self._server: BaseWSGIServer = make_server(host, port, self.app, threaded=True)
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return str(self._server.server_address[0])

    @property
    def port(self) -> int:
        return int(self._server.server_port)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def url_for(self, path: str) -> str:
        return self.url + "/" + path.lstrip("/")

    def start(self) -> SimulatorServer:
        # A short poll interval makes stop() take milliseconds instead of half a second.
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01},
                                        name=f"simulator-{self.port}", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._server.serve_forever(poll_interval=0.05)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> SimulatorServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
