"""pytest fixtures for suites that test code against the simulator (registered via pytest11).

==============================  ========  ========================================================
fixture                         scope     yields
==============================  ========  ========================================================
``simulator_server``            session   a started :class:`~simulator.server.SimulatorServer` on
                                          free loopback ports (main and auth proxy; default
                                          scenario, random seed unless ``simulator_seed``);
                                          one per xdist worker
``simulator``                   function  the same server, reset to the test's scenario first
                                          (``@pytest.mark.simulator_scenario(...)``, else the
                                          default); the test fails if the simulator crashed
``simulator_credentials``       function  the default user's ids and API key pair (a dict with
                                          organizationId, userId, apiPublicKey, apiPrivateKey)
``simulator_client``            function  a :class:`~simulator.testing.SimulatorClient` stamping
                                          with the default API key, over HTTP
``simulator_app_client``        function  the same client in process (Flask test client: no
                                          sockets), for code that accepts a transport
``simulator_user``              function  ``simulator_user("Bob")``: a client stamping as a
                                          scenario user (by name or id) with its declared key
``simulator_control``           function  a :class:`~simulator.control.control_client.ControlClient` for the
                                          server's control API, carrying its token when one is set
``simulator_outbox``            function  the OTP outbox: ``.messages(contact)``, ``.code(contact)``,
                                          ``.wait_for(contact, timeout)`` (returns the code)
``webhook_receiver``            function  a pytest-httpserver receiver (path ``/hooks``) set as the default
                                          organization's FEATURE_NAME_WEBHOOK: ``.url``,
                                          ``.requests()``, ``.wait_for(count, timeout)``,
                                          ``.verify(request)`` (signature check)
``turnkey_client``              function  the official ``turnkey_http.TurnkeyClient`` pointed at
                                          the simulator with the default key, polling every 50 ms;
                                          fails saying what to install without turnkey-http
==============================  ========  ========================================================

Marker: ``@pytest.mark.simulator_scenario("two_of_three_quorum", "my_rules.yaml", ...)`` loads
those scenarios for the test: a shipped scenario by name, or a file (relative to the test file,
else to the working directory, or absolute). The older spelling ``"scenarios/<name>.yaml"`` names
the shipped file when no such file exists. Each set is built once per session and restored from a
snapshot for every test that names it.

Ini options: ``simulator_seed`` (the session server's seed, or ``--simulator-seed N``: the same ids, keys,
mnemonics and fault draws every session), ``simulator_control_token`` (the control API's token), ``simulator_data_dir`` (a
directory simulator_server keeps its state in: serve --data-dir), ``simulator_transport = granian``
(the transport simulator_server runs on: serve --server; waitress by default), ``simulator_inspector = true``
(serve the inspector page at ``simulator_server.url + "/_simulator/ui"``; off by default) and
``simulator_skip_without_turnkey_http = true`` (``turnkey_client`` skips, as it used to, instead of
failing when turnkey-http is not installed).

Parity (``wallet-simulator parity``): ``--simulator-upstream URL`` (or ``$WALLET_SIMULATOR_UPSTREAM``) runs the
same tests against that upstream (``https://api.turnkey.com``: your organization and API key from
``$TURNKEY_ORGANIZATION_ID``, ``$TURNKEY_API_PUBLIC_KEY``, ``$TURNKEY_API_PRIVATE_KEY``) through a recorder writing
every exchange to ``--simulator-parity-out FILE`` (``$WALLET_SIMULATOR_PARITY_OUT``, default
``parity-upstream.jsonl``); ``simulator``, ``simulator_client`` and ``turnkey_client`` then reach the upstream,
and a test that needs the simulator itself is skipped with the reason: one marked
``@pytest.mark.simulator_only("why")``, one loading scenarios, one using ``simulator_control``,
``simulator_outbox``, ``webhook_receiver``, ``simulator_app_client`` or ``simulator_user``, or one reading the
simulator's state (``simulator.journal``, ``simulator.simulator``, ...). Without an upstream,
``--simulator-parity-out FILE`` records the simulated run of the suite, for ``parity diff``.

Everything the fixtures need comes with the package (pytest-httpserver for ``webhook_receiver``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from simulator.config import Config
from simulator.control.control_client import TOKEN_ENV, ControlClient
from simulator.parity import OUT_ENV, PROXY_UPSTREAM_ENV, UPSTREAM_ENV
from simulator.scenario import ScenarioError, resolve_scenario
from simulator.server import SimulatorServer
from simulator.testing import ApiKeyStamper, InProcessClient, SimulatorClient

MARKER = "simulator_scenario"
SIMULATOR_ONLY = "simulator_only"
# fixtures only a simulator has: a test using one is skipped against an upstream, with what it needs
SIMULATOR_ONLY_FIXTURES = {
    "simulator_control": "the control API",
    "simulator_outbox": "the OTP outbox",
    "webhook_receiver": "a webhook receiver set through the control API",
    "simulator_app_client": "an in-process client",
    "simulator_user": "scenario users' API keys",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "simulator_control_token",
        f"token the simulator_server's control API requires (default: ${TOKEN_ENV}; unset: none)",
        default="",
    )
    parser.addini(
        "simulator_skip_without_turnkey_http",
        "skip tests using turnkey_client when turnkey-http is not installed, instead of failing them "
        "(the behaviour of 0.2.0 and earlier: a forgotten install then looks green)",
        type="bool",
        default=False,
    )
    parser.addini(
        "simulator_inspector",
        "serve the inspector page (/_simulator/ui) on simulator_server, to watch a test run in a browser "
        "(default: off)",
        type="bool",
        default=False,
    )
    parser.addini(
        "simulator_transport",
        "the HTTP transport simulator_server runs on: waitress (the default) or granian (serve --server; "
        "pip install 'wallet-simulator[granian]')",
        default="waitress",
    )
    parser.addini(
        "simulator_lenient_documented_rules",
        "do not enforce the documented rules added after 0.2.0 on simulator_server (serve "
        "--lenient-documented-rules): organization features refusing e-mail auth and OTP, imports for another "
        "user, sign_transaction with an ADDRESS_FORMAT_COMPRESSED account, Solana IDLs without types",
        type="bool",
        default=False,
    )
    parser.addini(
        "simulator_seed",
        "the seed of simulator_server's random source: ids, keys, mnemonics and which requests a fault's "
        "probability hits are the same in every session, as serve --seed makes them (default: a random seed)",
        default="",
    )
    parser.addoption(
        "--simulator-seed",
        type=int,
        default=None,
        help="the seed of simulator_server's random source (overrides the ini option simulator_seed)",
    )
    parser.addoption(
        "--simulator-upstream",
        default=None,
        metavar="URL",
        help=f"run the tests against this upstream (https://api.turnkey.com) through a parity recorder instead of "
        f"a simulator; tests needing the simulator are skipped (default: ${UPSTREAM_ENV})",
    )
    parser.addoption(
        "--simulator-parity-out",
        default=None,
        metavar="FILE",
        help=f"where the parity recorder writes the exchanges; without an upstream, record the simulated run there "
        f"(default: ${OUT_ENV}; with an upstream, else parity-upstream.jsonl)",
    )
    parser.addini(
        "simulator_strict_email",
        "refuse e-mail addresses whose domain cannot receive mail (.test, .example, ...) with the service's "
        "'could not reach email', as serve --strict-email does (default: accepted with a warning in the journal)",
        type="bool",
        default=False,
    )
    parser.addini(
        "simulator_data_dir",
        "keep simulator_server's state in this directory across sessions (serve --data-dir); the simulator "
        "fixture still resets it to the test's scenario (default: in memory)",
        default="",
    )


def data_dir(config: pytest.Config) -> Path | None:
    """The ini option ``simulator_data_dir``, relative to the ini file's folder."""
    text = str(config.getini("simulator_data_dir") or "").strip()
    return Path(config.rootpath, text) if text else None


def seed_of(config: pytest.Config) -> int | None:
    """``--simulator-seed``, else the ini option ``simulator_seed``; None: a random seed."""
    given = config.getoption("--simulator-seed")
    if given is not None:
        return int(given)
    text = str(config.getini("simulator_seed") or "").strip()
    try:
        return int(text) if text else None
    except ValueError:
        raise pytest.UsageError(f"simulator_seed must be an integer, got {text!r}") from None


def upstream_of(config: pytest.Config) -> str | None:
    """``--simulator-upstream``, else ``$WALLET_SIMULATOR_UPSTREAM``; None: the simulator."""
    return (config.getoption("--simulator-upstream") or os.environ.get(UPSTREAM_ENV, "")).strip() or None


def parity_out(config: pytest.Config) -> Path | None:
    """Where the recorder writes (one file per xdist worker); None: no recorder (the simulator, not recorded)."""
    given = (config.getoption("--simulator-parity-out") or os.environ.get(OUT_ENV, "")).strip()
    if not given and upstream_of(config) is None:
        return None
    from simulator.parity.suite import DEFAULT_OUT

    path = Path(given or DEFAULT_OUT)
    worker = getattr(config, "workerinput", {}).get("workerid")  # this session's, not a parent session's variable
    return path.with_name(f"{path.stem}.{worker}{path.suffix}") if worker else path


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """The seed, when one is set (a failing seeded run is repeated by running it again); the upstream, if any."""
    seed, upstream = seed_of(config), upstream_of(config)
    lines = [] if seed is None else [f"wallet-simulator seed: {seed}"]
    if upstream is not None:
        lines.append(f"wallet-simulator upstream: {upstream} (recorded to {parity_out(config)})")
    return lines or None


def control_token(config: pytest.Config) -> str | None:
    """The ini option ``simulator_control_token``, else the ``WALLET_SIMULATOR_CONTROL_TOKEN`` variable."""
    return str(config.getini("simulator_control_token") or "").strip() or os.environ.get(TOKEN_ENV) or None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(*scenarios): load these scenarios (shipped names or files) into the simulator for the test",
    )
    config.addinivalue_line(
        "markers",
        f"{SIMULATOR_ONLY}(reason): the test needs the simulator itself (control API, clock, faults): skipped when "
        "the suite runs against an upstream (--simulator-upstream)",
    )


def simulator_only_reason(item: pytest.Item) -> str | None:
    """Why ``item`` cannot run against an upstream, or None."""
    marker = item.get_closest_marker(SIMULATOR_ONLY)
    if marker is not None:
        return str(marker.args[0] if marker.args else marker.kwargs.get("reason", "marked simulator_only"))
    if item.get_closest_marker(MARKER) is not None:
        return "it loads scenarios"
    needs = [what for name, what in SIMULATOR_ONLY_FIXTURES.items() if name in getattr(item, "fixturenames", ())]
    return f"it uses {', '.join(needs)}" if needs else None


def parity_run(config: pytest.Config) -> str | None:
    """What this run is for parity (the upstream, or the simulated run's recording), or None: a plain run."""
    upstream = upstream_of(config)
    if upstream is not None:
        return f"this run is against {upstream}"
    out = parity_out(config)
    return None if out is None else f"this is the simulated parity run, recorded to {out}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    run = parity_run(config)
    if run is None:
        return
    for item in items:
        why = simulator_only_reason(item)
        if why is not None:
            item.add_marker(pytest.mark.skip(reason=f"simulator only ({why}): {run}"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A test that reached for the simulator's own state in a run against an upstream is skipped, saying so."""
    report = yield
    excinfo = call.excinfo
    if excinfo is None or parity_run(item.config) is None:
        return report
    from simulator.parity.suite import SimulatorOnly

    if excinfo.errisinstance(SimulatorOnly):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: simulator only: {excinfo.value}")
    return report


@pytest.fixture(scope="session")
def simulator_server(pytestconfig: pytest.Config) -> Iterator[SimulatorServer]:
    """One simulator for the whole test session, stopped at its end; with an upstream, the upstream through a
    recorder (``simulator.parity.suite.Upstream``); with ``--simulator-parity-out``, the simulator behind one."""
    upstream, out = upstream_of(pytestconfig), parity_out(pytestconfig)
    if upstream is not None and out is not None:
        from simulator.parity.suite import Upstream

        proxy = os.environ.get(PROXY_UPSTREAM_ENV) or None
        through = Upstream(upstream, out, proxy_upstream=proxy)
        try:
            yield through  # type: ignore[misc]  # the SimulatorServer's addresses; the rest skips the test
        finally:
            through.stop()
        return
    config = Config(
        seed=seed_of(pytestconfig),
        control_token=control_token(pytestconfig),
        inspector=bool(pytestconfig.getini("simulator_inspector")),
        data_dir=data_dir(pytestconfig),
        server=str(pytestconfig.getini("simulator_transport") or "waitress").strip(),
        strict_email=bool(pytestconfig.getini("simulator_strict_email")),
        lenient_documented_rules=bool(pytestconfig.getini("simulator_lenient_documented_rules")),
    )
    with SimulatorServer(config=config) as server:
        if out is None:
            yield server
            return
        from simulator.parity.suite import Recorded

        recorded = Recorded(server, out)
        try:
            yield recorded  # type: ignore[misc]  # the server, its addresses a recorder's
        finally:
            recorded.stop()


def against_upstream(server: Any) -> bool:
    """Whether the session's server is a parity run (``simulator.parity.suite``): the upstream or the simulated
    run's recorder, which reset nothing and serve nothing of a simulator's own."""
    return callable(getattr(type(server), "parity_credentials", None))  # not imported: plain runs never load it


@pytest.fixture
def simulator(simulator_server: SimulatorServer, request: pytest.FixtureRequest) -> Iterator[SimulatorServer]:
    """The session's simulator, reset to the test's scenario; fails the test if the server crashed. Against an
    upstream: the upstream, as it is (a real organization is not reset)."""
    if against_upstream(simulator_server):
        yield simulator_server
        return
    sim = simulator_server.simulator
    sim.use_scenarios(scenario_paths(request))
    sim.crashes.clear()
    yield simulator_server
    crashes = list(sim.crashes)
    if crashes:
        pytest.fail("the simulator failed internally:\n" + "\n".join(c["traceback"] for c in crashes))


def scenario_paths(request: pytest.FixtureRequest) -> tuple[Path, ...]:
    marker = request.node.get_closest_marker(MARKER)
    if marker is None:
        return ()
    base = Path(str(request.node.path)).parent
    try:
        return tuple(resolve_scenario(ref, base) for ref in marker.args)
    except ScenarioError as exc:
        pytest.fail(f"@pytest.mark.{MARKER}: {exc}", pytrace=False)


@pytest.fixture
def simulator_credentials(simulator: SimulatorServer) -> dict[str, Any]:
    if against_upstream(simulator):
        try:
            return simulator.parity_credentials()  # type: ignore[no-any-return]
        except LookupError as exc:
            missing = str(exc)
        pytest.fail(missing, pytrace=False)
    return dict(simulator.simulator.default_credentials())


def skip_against_upstream(server: Any, fixture: str) -> None:
    if against_upstream(server):
        pytest.skip(
            f"simulator only (it uses {SIMULATOR_ONLY_FIXTURES[fixture]}): this run is against {server.upstream}"
        )


@pytest.fixture
def simulator_client(simulator: SimulatorServer, simulator_credentials: dict[str, Any]) -> SimulatorClient:
    stamper = ApiKeyStamper(simulator_credentials["apiPrivateKey"])
    return SimulatorClient(simulator.url, stamper, simulator_credentials["organizationId"])


@pytest.fixture
def simulator_app_client(simulator: SimulatorServer, simulator_credentials: dict[str, Any]) -> InProcessClient:
    skip_against_upstream(simulator, "simulator_app_client")
    stamper = ApiKeyStamper(simulator_credentials["apiPrivateKey"])
    return InProcessClient(simulator.app, stamper, simulator_credentials["organizationId"])


@pytest.fixture
def simulator_user(simulator: SimulatorServer) -> Callable[[str], SimulatorClient]:
    """A factory: a client for a scenario user whose API key pair the scenario declared or generated."""
    skip_against_upstream(simulator, "simulator_user")

    def client_for(name: str) -> SimulatorClient:
        found = [
            c
            for c in simulator.simulator.credentials
            if c.get("apiPrivateKey") and name in (c["userName"], c["userId"])
        ]
        if not found:
            known = sorted({c["userName"] for c in simulator.simulator.credentials if c.get("apiPrivateKey")})
            raise LookupError(f"no API key pair known for user {name!r}; users with one: {known}")
        return SimulatorClient(simulator.url, ApiKeyStamper(found[0]["apiPrivateKey"]), found[0]["organizationId"])

    return client_for


class Outbox:
    """The OTP codes the simulator "sent"."""

    def __init__(self, server: SimulatorServer) -> None:
        self._sim = server.simulator

    def messages(self, contact: str | None = None) -> list[dict[str, Any]]:
        return self._sim.outbox(contact)

    def code(self, contact: str) -> str:
        return self._sim.otp_code(contact)

    def wait_for(self, contact: str, timeout: float = 5.0, after: int = 0) -> str:
        return self._sim.wait_for_otp(contact, timeout, after)


@pytest.fixture
def simulator_control(simulator: SimulatorServer) -> ControlClient:
    """The control API's client, with the server's token (if any)."""
    skip_against_upstream(simulator, "simulator_control")
    return ControlClient(simulator.url, token=simulator.simulator.config.control_token or "")


@pytest.fixture
def simulator_outbox(simulator: SimulatorServer) -> Outbox:
    skip_against_upstream(simulator, "simulator_outbox")
    return Outbox(simulator)


class WebhookReceiver:
    """A local HTTP receiver of the simulator's webhook deliveries."""

    def __init__(self, server: Any, url: str) -> None:
        self.server, self.url = server, url

    def requests(self) -> list[Any]:
        return [request for request, _ in self.server.log]

    def wait_for(self, count: int = 1, timeout: float = 5.0) -> list[Any]:
        """The first ``count`` deliveries received, waiting up to ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while len(self.server.log) < count and time.monotonic() < deadline:
            time.sleep(0.005)
        if len(self.server.log) < count:
            raise TimeoutError(f"{len(self.server.log)} of {count} webhook deliveries arrived within {timeout} s")
        return self.requests()[:count]

    @staticmethod
    def verify(request: Any) -> bool:
        """Check a delivery's signature with the published keys, as a receiver should."""
        from simulator.webhooks.signing import verify_delivery

        return verify_delivery(dict(request.headers), request.get_data())


# How often a receiver's serve loop checks for a stop: pytest-httpserver's default (0.5 s, werkzeug's) made every
# test with a receiver wait ~0.5 s in teardown. It only bounds how long ``stop()`` takes: requests are served as
# they arrive either way, and ``stop()`` still waits for the one being answered.
RECEIVER_STOP_POLL_SECONDS = 0.01


def http_receiver(threaded: bool = False) -> Any:
    """A pytest-httpserver ``HTTPServer`` on a free loopback port (not started) that stops within ~10 ms."""
    from pytest_httpserver import HTTPServer  # a dependency of the package; imported here to keep start-up light

    class QuickStopHTTPServer(HTTPServer):
        def thread_target(self) -> None:  # documented as the method to override to tailor the serve loop
            assert self.server is not None
            self.server.serve_forever(poll_interval=RECEIVER_STOP_POLL_SECONDS)

    return QuickStopHTTPServer(host="127.0.0.1", port=0, threaded=threaded)


@pytest.fixture
def webhook_receiver(simulator: SimulatorServer, simulator_credentials: dict[str, Any]) -> Iterator[WebhookReceiver]:
    skip_against_upstream(simulator, "webhook_receiver")
    server = http_receiver()
    server.expect_request("/hooks", method="POST").respond_with_data("ok")
    server.start()
    url = server.url_for("/hooks")
    sim = simulator.simulator
    with sim.lock:
        sim.store.org(simulator_credentials["organizationId"]).features["FEATURE_NAME_WEBHOOK"] = url
    try:
        yield WebhookReceiver(server, url)
    finally:
        server.clear()
        if server.is_running():
            server.stop()


# turnkey_client's poll of a pending activity: every 50 ms, where the official client's default is a
# second, so a test scripting an outcome after N polls waits N × 50 ms.
TURNKEY_CLIENT_POLL_MS = 50


def official_client_modules(config: pytest.Config) -> tuple[Any, Any]:
    """turnkey_http and turnkey_api_key_stamper; when missing, the test fails saying what to install,
    or skips when the ini option ``simulator_skip_without_turnkey_http`` asks for the old behaviour."""
    import importlib

    try:
        return importlib.import_module("turnkey_http"), importlib.import_module("turnkey_api_key_stamper")
    except ImportError as exc:
        why = (
            f"turnkey_client needs Turnkey's official Python client ({exc.name or 'turnkey_http'} is not installed): "
            "pip install turnkey-http turnkey-api-key-stamper"
        )
        if config.getini("simulator_skip_without_turnkey_http"):
            pytest.skip(why)
        pytest.fail(why + " (or set simulator_skip_without_turnkey_http = true to skip these tests)", pytrace=False)


@pytest.fixture
def turnkey_client(
    simulator: SimulatorServer, simulator_credentials: dict[str, Any], pytestconfig: pytest.Config
) -> Any:
    http, stamper_mod = official_client_modules(pytestconfig)
    config = stamper_mod.ApiKeyStamperConfig(
        api_public_key=simulator_credentials["apiPublicKey"],
        api_private_key=simulator_credentials["apiPrivateKey"],
    )
    return http.TurnkeyClient(
        base_url=simulator.url,
        stamper=stamper_mod.ApiKeyStamper(config),
        organization_id=simulator_credentials["organizationId"],
        polling_interval_ms=TURNKEY_CLIENT_POLL_MS,
    )
