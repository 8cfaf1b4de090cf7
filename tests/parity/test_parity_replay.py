"""parity replay: a recording made against the real service (here a simulator seeded otherwise) sent again to a
fresh simulator, each produced value the simulator's own, and reported as parity diff reports: nothing when they
behave alike, exactly the injected difference when not, and a request whose secret was redacted left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from parity_flow import record_flow

from simulator.cli import main
from simulator.config import Config
from simulator.parity.exchanges import read_recording
from simulator.server import SimulatorServer


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with SimulatorServer(config=Config(seed=11)) as server:
        return record_flow(
            server, tmp_path_factory.mktemp("replay") / "real.jsonl", server.simulator.default_credentials()
        )


def test_a_replay_of_the_same_behaviour_differs_in_nothing(real, tmp_path, capsys):
    out = tmp_path / "simulated.jsonl"
    assert main(["parity", "replay", str(real), "--out", str(out), "--seed", "12", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["differences"] == [] and report["aligned"] == 8
    replayed = read_recording(out)[1]
    assert [e.operation for e in replayed] == [e.operation for e in read_recording(real)[1]]
    assert all(e.status == r.status for e, r in zip(replayed, read_recording(real)[1]))


def test_a_replay_reports_the_simulators_difference(real, tmp_path, capsys):
    scenario = tmp_path / "fails.yaml"
    scenario.write_text(
        "include: [default]\nrules:\n  - {name: no signing, match: {type: SIGN_RAW_PAYLOAD}, outcome: deny}\n"
    )
    out = tmp_path / "simulated.jsonl"
    assert main(["parity", "replay", str(real), "--out", str(out), "--scenario", str(scenario), "--json"]) == 1
    rows = [(d["number"], d["operation"], d["kind"]) for d in json.loads(capsys.readouterr().out)["differences"]]
    assert rows == [(6, "sign_raw_payload", "HTTP status")]


def test_a_request_whose_secret_was_redacted_is_left_out_and_named(real, tmp_path, capsys):
    lines = real.read_text().splitlines()
    whoami = json.loads(lines[-1])
    whoami["request"]["body"]["verificationToken"] = "[redacted: OTP verification token]"
    edited = tmp_path / "real.jsonl"
    edited.write_text("\n".join([*lines[:-1], json.dumps(whoami)]) + "\n")
    out = tmp_path / "simulated.jsonl"
    assert main(["parity", "replay", str(edited), "--out", str(out), "--seed", "13"]) == 1
    captured = capsys.readouterr()
    assert f"#{whoami['index']} whoami: its request held a secret the recording redacted" in captured.err
    assert "missing exchange" in captured.out and "whoami" not in [e.operation for e in read_recording(out)[1]]
