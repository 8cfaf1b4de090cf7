"""Shared test helpers; the simulator's own pytest plugin provides the fixtures."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from preload.defer_pydantic_build import defer_model_builds

from simulator.config import STRICT_RESPONSES_ENV
from simulator.testing import ApiKeyStamper, SimulatorClient

pytest_plugins = ["pytester"]

# earlier releases' published code is data: tests/compat/test_release_suites.py runs each in a project of its
# own (a tutorial's downstream tests/test_payouts.py among them), never as part of this suite
collect_ignore_glob = ["compat/releases/*"]

# Every simulator this suite starts (the plugin's, the tests' own, and `serve` in subprocesses) checks each
# answer against the public response schema: a mismatch is a 500 that fails the test that caused it.
os.environ.setdefault(STRICT_RESPONSES_ENV, "1")

# Before any test module imports turnkey_sdk_types: ~5 s less per xdist worker (tests/preload says why and how).
defer_model_builds()
PRELOAD = Path(__file__).resolve().parent / "preload"
# Nested pytest runs (downstream suites) use neither hypothesis nor faker; their plugins cost ~1.1 s of imports
# (and a Faker built by an autouse fixture) in every such process.
NESTED_PYTEST_ADDOPTS = "-p no:hypothesispytest -p no:faker"


def preloaded_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) for a Python process the suite starts: a nested pytest loads
    tests/preload/defer_pydantic_build.py as a plugin and skips unused plugins; a script can import it first."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PRELOAD), env.get("PYTHONPATH", "")]))
    env["PYTEST_PLUGINS"] = ",".join(filter(None, [env.get("PYTEST_PLUGINS", ""), "defer_pydantic_build"]))
    env["PYTEST_ADDOPTS"] = " ".join(filter(None, [env.get("PYTEST_ADDOPTS", ""), NESTED_PYTEST_ADDOPTS]))
    return env


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytester whose ``runpytest_subprocess`` runs get :func:`preloaded_env` (pytester clears PYTEST_ADDOPTS first)."""
    env = preloaded_env()
    for name in ("PYTHONPATH", "PYTEST_PLUGINS", "PYTEST_ADDOPTS"):
        monkeypatch.setenv(name, env[name])
    return pytester


ROOT = Path(__file__).resolve().parent.parent
# The tools (tools/*.py) are scripts that import each other by name, as `python tools/x.py` lets them;
# the tests that load them get the same search path.
sys.path.insert(0, str(ROOT / "tools"))
DEFAULTS: dict[str, Any] = json.loads((ROOT / "fixtures" / "default_credentials.json").read_text())
ETH_ACCOUNT = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}


def example(kind: str, op: str) -> dict[str, Any]:
    """The example body shipped in fixtures/requests for an operation."""
    return json.loads((ROOT / "fixtures" / "requests" / kind / f"{op}.json").read_text())


@pytest.fixture
def client(simulator_client: SimulatorClient) -> SimulatorClient:
    return simulator_client


@pytest.fixture
def unstamped(simulator: Any) -> SimulatorClient:
    return SimulatorClient(simulator.url, None, DEFAULTS["organizationId"])


def ok(response: Any) -> dict[str, Any]:
    """The body of a 200 answer; otherwise fail showing what came back."""
    assert response.status == 200, response.body
    return response.body  # type: ignore[no-any-return]


def result_of(response: Any, key: str) -> dict[str, Any]:
    activity = ok(response)["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_COMPLETED", activity
    return activity["result"][key]  # type: ignore[no-any-return]


def new_user(client: SimulatorClient, name: str = "Alice", **extra: Any) -> str:
    params = {
        "users": [
            {"userName": name, "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": [], **extra}
        ]
    }
    return result_of(client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", params), "createUsersResult")[
        "userIds"
    ][0]


def stamper_for(private_hex: str, curve: str = "p256") -> ApiKeyStamper:
    return ApiKeyStamper(private_hex, curve)


SCENARIOS = ROOT / "scenarios"


def scenario_text(name: str) -> str:
    """A shipped scenario's YAML without its steps, so a test can append to its last organization."""
    text = (SCENARIOS / name).read_text()
    return re.split(r"^(?:# .*\n)?steps:", text, maxsplit=1, flags=re.M)[0]


@pytest.fixture(scope="session")
def wheel(tmp_path_factory):
    """The package built from the checkout, as a wheel (once per test process)."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        check=True,
        timeout=300,
    )
    return next(out.glob("*.whl"))


@pytest.fixture(scope="session")
def site(wheel, tmp_path_factory):
    """The wheel installed alone (no dependencies, no checkout) into a folder, once for the tests that run it."""
    target = tmp_path_factory.mktemp("installed") / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        timeout=300,
    )
    return target


@pytest.fixture
def frozen_clock(simulator: Any) -> Any:
    """The simulator's clock held still (moved only by the test), so that a window's edge or an
    expiry is hit to the millisecond; running again afterwards."""
    clock = simulator.simulator.clock
    clock.freeze()
    try:
        yield clock
    finally:
        clock.unfreeze()
