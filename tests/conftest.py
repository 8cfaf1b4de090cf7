"""Shared test helpers; the simulator's own pytest plugin provides the fixtures."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from simulator.config import STRICT_RESPONSES_ENV
from simulator.testing import ApiKeyStamper, SimulatorClient

pytest_plugins = ["pytester"]

# Every simulator this suite starts (the plugin's, the tests' own, and `serve` in subprocesses) checks each
# answer against the public response schema: a mismatch is a 500 that fails the test that caused it.
os.environ.setdefault(STRICT_RESPONSES_ENV, "1")

ROOT = Path(__file__).resolve().parent.parent
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
