"""SimulatorServer offers its Simulator's test-facing surface: ``simulator.journal``, not
``simulator.simulator.journal`` (which keeps working)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import DEFAULTS, ok

from simulator.server import SimulatorServer

ATTRIBUTES = ("journal", "clock", "webhooks", "store", "config", "credentials")
METHODS = {
    "reset": (),
    "snapshot": (),
    "restore": ("a snapshot",),
    "approve": ("activity-id", "user-id"),
    "reject": ("activity-id", "user-id"),
    "explain": ("activity-id",),
    "outbox": ("someone@example.com",),
    "otp_code": ("someone@example.com",),
    "wait_for_otp": ("someone@example.com", 0.5, 1),
    "default_credentials": (),
    "use_scenarios": ((),),
}
ANSWER_NOTHING = {"reset", "restore", "use_scenarios"}


@pytest.mark.parametrize("name", ATTRIBUTES)
def test_the_attributes_are_the_simulators_own(simulator: SimulatorServer, name: str) -> None:
    assert getattr(simulator, name) is getattr(simulator.simulator, name)


@pytest.mark.parametrize(("name", "args"), METHODS.items())
def test_the_methods_pass_their_arguments_and_answer_through(
    simulator: SimulatorServer, monkeypatch: pytest.MonkeyPatch, name: str, args: tuple[Any, ...]
) -> None:
    calls: list[tuple[Any, ...]] = []

    def recorded(*given: Any) -> str:
        calls.append(given)
        return f"answer of {name}"

    monkeypatch.setattr(simulator.simulator, name, recorded)
    expected = None if name in ANSWER_NOTHING else f"answer of {name}"
    assert getattr(simulator, name)(*args) == expected
    assert calls == [args]


def test_the_attributes_follow_a_restore(simulator: SimulatorServer, simulator_client: Any) -> None:
    """The store is replaced by restore and reset: the server always shows the current one."""
    before = simulator.snapshot()
    ok(simulator_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "W", "accounts": []}))
    assert len(simulator.journal.entries("create_wallet")) == 1
    wallets = simulator.store.org(DEFAULTS["organizationId"]).wallets
    simulator.restore(before)
    assert simulator.store is simulator.simulator.store
    assert len(simulator.store.org(DEFAULTS["organizationId"]).wallets) == len(wallets) - 1
    assert simulator.default_credentials()["userId"] == DEFAULTS["userId"]
