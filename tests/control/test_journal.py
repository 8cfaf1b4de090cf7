"""The request journal, its assertions, and the coverage list."""

from __future__ import annotations

import pytest
from conftest import ETH_ACCOUNT, ok


def test_every_call_is_journaled_with_its_outcome(client, simulator):
    ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH_ACCOUNT]}))
    client.query("get_wallet", walletId="00000000-0000-4000-8000-0000000000c3")
    journal = simulator.simulator.journal
    wallet, miss = journal.entries()
    assert (wallet["kind"], wallet["op"], wallet["status"], wallet["outcome"]["status"]) == (
        "submit",
        "create_wallet",
        200,
        "ACTIVITY_STATUS_COMPLETED",
    )
    assert (miss["op"], miss["status"], miss["outcome"]["code"]) == ("get_wallet", 404, 5)
    assert journal.assert_called("create_wallet", times=1, walletName="w")
    journal.assert_not_called("create_wallet", walletName="other")
    simulator.simulator.reset()
    assert journal.entries() == []


def test_a_failed_assertion_shows_the_nearest_calls(client, simulator):
    ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "treasury", "accounts": []}))
    with pytest.raises(AssertionError) as caught:
        simulator.simulator.journal.assert_called("create_wallet", walletName="treasure")
    message = str(caught.value)
    assert "expected create_wallet(walletName='treasure') at least once, found 0" in message
    assert "Nearest actual calls" in message and '"walletName": "treasury"' in message


@pytest.fixture
def unfinished(monkeypatch):
    """The catalogue with sign_raw_payload partial and get_gas_usage absent, as it says of
    operations still being built (every public operation is served today)."""
    import dataclasses

    from simulator.operations import catalogue

    changes = {"submit/sign_raw_payload": {"partial": "EIP-712 refused"}, "query/get_gas_usage": {"handler": None}}
    operations = tuple(dataclasses.replace(op, **changes.get(op.key, {})) for op in catalogue.OPERATIONS)
    monkeypatch.setattr(catalogue, "OPERATIONS", operations)
    monkeypatch.setattr(catalogue, "_BY_KEY", {op.key: op for op in operations})


def test_journal_and_coverage_over_http(client, simulator, unfinished):
    ok(client.query("whoami"))
    control = type(client)(simulator.url, None, "")
    entries = control.post("/_simulator/journal?op=whoami", b"", method="GET").body["entries"]
    assert [e["op"] for e in entries] == ["whoami"]
    coverage = control.post("/_simulator/coverage", b"", method="GET").body
    statuses = {row["operation"]: row["status"] for row in coverage["operations"]}
    assert statuses["submit/create_wallet"] == "implemented" and statuses["submit/sign_raw_payload"] == "partial"
    assert statuses["query/get_gas_usage"] == "absent"
    assert sum(coverage["summary"].values()) == len(coverage["operations"])


def test_coverage_command(capsys, unfinished):
    from simulator.cli import main

    assert main(["coverage", "--status", "partial"]) == 0
    out = capsys.readouterr().out
    assert "partial      submit/sign_raw_payload" in out and "implemented" in out.splitlines()[-1]
