"""What the pytest plugin runs a suite against when it runs it for parity (the JS helper does the same).

- ``Upstream``: the real service (or any upstream) through a ``ParityRecorder``: the plugin's ``simulator``
  when ``--simulator-upstream`` or ``$WALLET_SIMULATOR_UPSTREAM`` is set. It has the server's ``url`` and
  ``proxy_url``; anything of the simulator itself (its state, clock, journal, faults) skips the test that asks.
- ``Recorded``: the session's simulator with a recorder in front (``$WALLET_SIMULATOR_PARITY_OUT`` without an
  upstream): the simulated run of the same suite, to compare with ``parity diff``; it skips what the upstream
  run skips, so both recordings hold the same tests' exchanges.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NoReturn

from simulator.parity import ORGANIZATION_ENV, PRIVATE_KEY_ENV, PUBLIC_KEY_ENV
from simulator.parity.recorder import ParityRecorder

DEFAULT_OUT = "parity-upstream.jsonl"
USER_ENV = "TURNKEY_USER_ID"


class SimulatorOnly(AttributeError):
    """A test asked a parity run for something only the simulator has (an AttributeError: ``hasattr`` and
    ``getattr(..., default)`` keep working)."""


class ParityRun:
    """A recorder in front of an upstream, in the shape of a started ``SimulatorServer`` where it can be: its
    ``url`` and ``proxy_url``; asked for anything of a simulator's own, it raises ``SimulatorOnly``."""

    def __init__(self, upstream: str, out: Path, proxy_upstream: str | None = None) -> None:
        self.recorder = ParityRecorder(upstream, out, proxy_upstream=proxy_upstream).start()
        self.upstream = self.recorder.upstream

    @property
    def url(self) -> str:
        return self.recorder.url

    @property
    def proxy_url(self) -> str:
        return self.recorder.proxy_url

    def url_for(self, path: str) -> str:
        return self.url + "/" + path.lstrip("/")

    def parity_credentials(self) -> dict[str, Any]:
        raise NotImplementedError

    def stop(self) -> None:
        self.recorder.stop()

    def __getattr__(self, name: str) -> NoReturn:
        if name.startswith("_"):  # copy, pickle and introspection ask for these: no test's business
            raise AttributeError(name)
        raise SimulatorOnly(f"{name} is the simulator's: this test runs against {self.upstream} for parity")


class Upstream(ParityRun):
    """The real service (or any upstream): credentials from the user's environment."""

    def parity_credentials(self) -> dict[str, Any]:
        return upstream_credentials(self.upstream)


class Recorded(ParityRun):
    """The session's simulator behind a recorder: the simulated run of a parity pair. It is what the upstream
    run is (no reset between tests, nothing of the simulator's own), so both record the same exchanges."""

    def __init__(self, server: Any, out: Path) -> None:
        super().__init__(server.url, out, proxy_upstream=server.proxy_url)
        self._server = server

    def parity_credentials(self) -> dict[str, Any]:
        return dict(self._server.simulator.default_credentials())


def upstream_credentials(upstream: str) -> dict[str, Any]:
    """The user's own organization and API key, from Turnkey's usual variables; the user id from
    ``$TURNKEY_USER_ID``, else None. Raises LookupError naming what is missing."""
    names = {"organizationId": ORGANIZATION_ENV, "apiPublicKey": PUBLIC_KEY_ENV, "apiPrivateKey": PRIVATE_KEY_ENV}
    found = {key: os.environ.get(env, "").strip() for key, env in names.items()}
    missing = [names[key] for key, value in found.items() if not value]
    if missing:
        raise LookupError(
            f"running against the upstream {upstream} needs your organization and API key: set {', '.join(missing)}"
        )
    return {**found, "userId": os.environ.get(USER_ENV) or None}
