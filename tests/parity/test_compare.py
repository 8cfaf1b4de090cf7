"""parity diff against a second simulator made to differ on purpose: it reports exactly the differences
injected (scripted outcomes, other limits, a refused request, a changed error message, another gRPC code, an
extra or a missing field, an exchange one side lacks), nothing on two runs with other seeds, and never an id or an address."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from parity_flow import record_flow, run_flow
from tamper import tampering

from simulator.cli import main
from simulator.config import Config
from simulator.parity.compare import compare
from simulator.parity.exchanges import read_recording
from simulator.server import SimulatorServer

# (aligned exchange number, operation, what differs, where) of each injection; the plain run is the "real" one
INJECTED: dict[str, tuple[dict[str, Any], set[tuple[int, str, str, str]]]] = {
    "scripted outcome": (
        {"scenario": "rules:\n  - {name: users fail, match: {type: CREATE_USERS}, outcome: fail}\n"},
        {
            (5, "create_users", "activity status", "activity.status"),
            (5, "create_users", "missing field", "activity.result.createUsersResult"),
            (5, "create_users", "missing field", "activity.result.activity"),
            (5, "create_users", "field type", "activity.failure"),
        },
    ),
    "other limits": (
        {"scenario": "rateLimits:\n  perSubOrganization: false\n  perParent: {requests: 7, seconds: 60}\n"},
        {(7, "get_wallet", "HTTP status", ""), (8, "whoami", "HTTP status", "")},
    ),
    "a refused request": (
        {"scenario": "rules:\n  - {name: no signing, match: {type: SIGN_RAW_PAYLOAD}, outcome: deny}\n"},
        {(6, "sign_raw_payload", "HTTP status", "")},
    ),
    "a changed error message": (
        {"edits": {"get_wallet": lambda b: {**b, "message": b["message"] + " (changed)"} if "code" in b else b}},
        {(7, "get_wallet", "message", "message")},
    ),
    "another gRPC code": (
        {"edits": {"get_wallet": lambda b: {**b, "code": 3} if "code" in b else b}},
        {(7, "get_wallet", "gRPC code", "code")},
    ),
    "an extra field": (
        {"edits": {"whoami": lambda b: {**b, "extraField": True}}},
        {(8, "whoami", "extra field", "extraField")},
    ),
    "a missing field": (
        {
            "edits": {
                "list_wallets": lambda b: {
                    "wallets": [{k: v for k, v in w.items() if k != "exported"} for w in b["wallets"]]
                }
            }
        },
        {(3, "list_wallets", "missing field", "wallets.0.exported")},
    ),
    "an exchange the simulator lacks": (
        {"flow": lambda client: run_flow(client, skip="list_wallet_accounts")},
        {(4, "list_wallet_accounts", "missing exchange", "")},
    ),
}


def record(out: Path, seed: int, scenario: str = "", edits: Any = None, flow: Any = run_flow) -> Path:
    scenarios: tuple[Path, ...] = ()
    if scenario:
        written = out.with_suffix(".yaml")
        written.write_text("include: [default]\n" + textwrap.dedent(scenario))
        scenarios = (written,)
    with SimulatorServer(config=Config(seed=seed, scenarios=scenarios)) as server:
        credentials = server.simulator.default_credentials()
        if edits:
            with tampering(server, edits) as tampered:
                return record_flow(tampered, out, credentials, flow)
        return record_flow(server, out, credentials, flow)


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("parity") / "real.jsonl", seed=1)


def rows(real: Path, simulated: Path) -> set[tuple[int, str, str, str]]:
    found, _ = compare(read_recording(real)[1], read_recording(simulated)[1])
    return {(d.number, d.operation, d.kind, d.path) for d in found}


@pytest.mark.parametrize("injected", list(INJECTED))
def test_the_diff_finds_exactly_the_injected_difference(injected, real, tmp_path):
    setting, expected = INJECTED[injected]
    simulated = record(tmp_path / "simulated.jsonl", seed=2, **setting)
    assert rows(real, simulated) == expected


def test_two_identical_runs_with_other_seeds_differ_in_nothing(real, tmp_path):
    simulated = record(tmp_path / "simulated.jsonl", seed=987654)
    found, aligned = compare(read_recording(real)[1], read_recording(simulated)[1])
    assert found == [] and aligned == 8
    assert main(["parity", "diff", str(real), str(simulated)]) == 0


def produced_values(path: Path) -> set[str]:
    """Every id, address, key and signature either recording holds (strings of 20 characters or more)."""
    text = path.read_text()
    return {s for s in re.findall(r'"([^"\\]{20,})"', text) if " " not in s and "/" not in s}


def test_the_report_shows_no_id_nor_address_and_drafts_a_ledger_entry_per_difference(real, tmp_path, capsys):
    simulated = record(tmp_path / "simulated.jsonl", seed=3, **INJECTED["a changed error message"][0])
    assert main(["parity", "diff", str(real), str(simulated), "--ledger", str(tmp_path)]) == 1
    table = capsys.readouterr().out
    assert main(["parity", "diff", str(real), str(simulated), "--json", "--ledger", str(tmp_path)]) == 1
    report = json.loads(capsys.readouterr().out)
    ids = produced_values(real) | produced_values(simulated)
    assert ids and not [value for value in ids if value in table or value in json.dumps(report)]
    assert "get_wallet" in table and "message" in table and "not in the ledger" in table
    assert report["new"] == 1 and report["aligned"] == 8
    (entry,) = report["drafts"]
    assert entry["id"] == report["differences"][0]["ledger_id"] == "parity-get-wallet-message-message"
    assert (
        entry["status"] == "difference" and entry["service"] != entry["simulator"] and "(changed)" in entry["simulator"]
    )


def test_a_difference_the_ledger_records_passes(real, tmp_path, capsys):
    simulated = record(tmp_path / "simulated.jsonl", seed=4, **INJECTED["an extra field"][0])
    drafts, empty = tmp_path / "drafts.yaml", tmp_path / "empty"
    empty.mkdir()
    assert main(["parity", "diff", str(real), str(simulated), "--drafts", str(drafts), "--ledger", str(empty)]) == 1
    filed = tmp_path / "ledger"
    filed.mkdir()
    (filed / "parity.yaml").write_text(drafts.read_text())
    assert [e["id"] for e in yaml.safe_load(drafts.read_text())] == ["parity-whoami-extra-field-extrafield"]
    capsys.readouterr()
    assert main(["parity", "diff", str(real), str(simulated), "--ledger", str(filed)]) == 0
    assert "1 difference(s), 0 not in the ledger" in capsys.readouterr().out


def test_a_file_that_is_not_a_recording_is_refused(tmp_path, capsys):
    other = tmp_path / "other.jsonl"
    other.write_text('{"steps": []}\n')
    assert main(["parity", "diff", str(other), str(other)]) == 2
    assert "not a parity recording" in capsys.readouterr().err


def test_ignore_leaves_out_what_the_organizations_own_setup_makes_differ(real, tmp_path, capsys):
    """A real organization holds more than the simulated one (wallets of earlier runs): --ignore names those."""
    simulated = record(tmp_path / "simulated.jsonl", seed=5, **INJECTED["a missing field"][0])
    assert main(["parity", "diff", str(real), str(simulated), "--ignore", "list_wallets:wallets"]) == 0
    assert main(["parity", "diff", str(real), str(simulated), "--ignore", "list_wallets:wallets.*.exported"]) == 0
    assert main(["parity", "diff", str(real), str(simulated), "--ignore", "list_wallets:activity"]) == 1
    assert main(["parity", "diff", str(real), str(simulated), "--ignore", "whoami"]) == 1
    assert "0 difference(s)" in capsys.readouterr().out
