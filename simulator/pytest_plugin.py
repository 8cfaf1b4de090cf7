"""pytest fixtures for suites that test code against the simulator (registered via pytest11).

============================  ========  ==========================================================
fixture                       scope     yields
============================  ========  ==========================================================
``simulator_server``          session   a started :class:`~simulator.server.SimulatorServer` on a
                                        free loopback port (default scenario, random seed)
``simulator``                 function  the same server, reset to its loaded scenario first
``simulator_credentials``     function  the default user's ids and API key pair (a dict with
                                        organizationId, userId, apiPublicKey, apiPrivateKey, ...)
``simulator_client``          function  a :class:`~simulator.testing.SimulatorClient` stamping
                                        with the default API key
``turnkey_client``            function  the official ``turnkey_http.TurnkeyClient`` pointed at
                                        the simulator with the default key (needs turnkey-http)
============================  ========  ==========================================================
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from simulator.server import SimulatorServer
from simulator.testing import ApiKeyStamper, SimulatorClient


@pytest.fixture(scope="session")
def simulator_server() -> Iterator[SimulatorServer]:
    """One simulator for the whole test session, stopped at its end."""
    with SimulatorServer() as server:
        yield server


@pytest.fixture
def simulator(simulator_server: SimulatorServer) -> Iterator[SimulatorServer]:
    """The session's simulator, reset to its scenario; fails the test if the server crashed."""
    simulator_server.simulator.reset()
    simulator_server.simulator.crashes.clear()
    yield simulator_server
    crashes = list(simulator_server.simulator.crashes)
    if crashes:
        pytest.fail("the simulator failed internally:\n" + "\n".join(c["traceback"] for c in crashes))


@pytest.fixture
def simulator_credentials(simulator: SimulatorServer) -> dict[str, Any]:
    return dict(simulator.simulator.default_credentials())


@pytest.fixture
def simulator_client(simulator: SimulatorServer, simulator_credentials: dict[str, Any]) -> SimulatorClient:
    stamper = ApiKeyStamper(simulator_credentials["apiPrivateKey"])
    return SimulatorClient(simulator.url, stamper, simulator_credentials["organizationId"])


@pytest.fixture
def turnkey_client(simulator: SimulatorServer, simulator_credentials: dict[str, Any]) -> Any:
    http = pytest.importorskip("turnkey_http")
    stamper_mod = pytest.importorskip("turnkey_api_key_stamper")
    config = stamper_mod.ApiKeyStamperConfig(
        api_public_key=simulator_credentials["apiPublicKey"],
        api_private_key=simulator_credentials["apiPrivateKey"],
    )
    return http.TurnkeyClient(
        base_url=simulator.url,
        stamper=stamper_mod.ApiKeyStamper(config),
        organization_id=simulator_credentials["organizationId"],
        polling_interval_ms=50,
    )
