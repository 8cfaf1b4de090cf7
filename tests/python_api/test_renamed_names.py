"""Issue 54's one word per idea renamed names a user could hold; each old name still answers, with a
DeprecationWarning naming the new one, and is the very same thing (or does the same)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from conftest import ok

from simulator import Config, Simulator
from simulator.journal import Journal
from simulator.operations import catalogue
from simulator.operations.catalogue import Kind

# (module, old name, new name): a module-level name kept as an alias that warns
MODULE_ALIASES = [
    ("simulator.http.log_entry", "RequestRecord", "RequestLogEntry"),
    ("simulator.webhooks.deliveries", "Host", "DeliveryInputs"),
]


@pytest.mark.parametrize(("module", "old", "new"), MODULE_ALIASES)
def test_an_old_module_level_name_warns_and_is_the_new_one(module: str, old: str, new: str) -> None:
    found = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=new):
        aliased = getattr(found, old)
    assert aliased is getattr(found, new)


def test_journal_record_warns_and_appends() -> None:
    journal = Journal()
    with pytest.warns(DeprecationWarning, match="Journal.append"):
        journal.record({"op": "whoami", "kind": "query", "status": 200})
    assert journal.entries("whoami") == [{"op": "whoami", "kind": "query", "status": 200}]


def test_simulator_record_warns_and_starts_a_recording(tmp_path: Path) -> None:
    sim = Simulator(Config(seed=3))
    with pytest.warns(DeprecationWarning, match="start_recording"):
        recorder = sim.record(tmp_path / "session.yaml")
    assert sim.recorder is recorder


def test_operation_run_warns_and_gives_the_handler_function() -> None:
    spec = catalogue.get(Kind.SUBMIT, "create_wallet")
    assert spec is not None
    with pytest.warns(DeprecationWarning, match="handler_function"):
        found = spec.run()
    assert found is spec.handler_function()


def test_kind_activity_is_kind_submit_and_the_value_users_see_is_unchanged() -> None:
    assert Kind.ACTIVITY is Kind.SUBMIT and Kind.SUBMIT.value == "submit"
    assert list(Kind) == [Kind.SUBMIT, Kind.QUERY, Kind.PROXY]  # the alias adds no member


def test_the_journal_still_says_submit(simulator, simulator_client) -> None:  # type: ignore[no-untyped-def]
    ok(simulator_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "K", "accounts": []}))
    assert simulator.journal.entries("create_wallet")[-1]["kind"] == "submit"


def test_submit_still_takes_record_as_a_keyword_with_a_warning() -> None:
    from simulator.http.log_entry import RequestLogEntry

    sim = Simulator(Config(seed=3, auth="off"))
    entry = RequestLogEntry("POST", "/public/v1/query/whoami", "query", "whoami")
    body = b'{"organizationId": "%s"}' % sim.default_organization_id().encode()
    with pytest.warns(DeprecationWarning, match="entry="):
        sim.query("whoami", body, {}, record=entry)
    assert entry.status is not None
