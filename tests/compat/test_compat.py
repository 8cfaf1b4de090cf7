"""What users wrote against earlier releases keeps working: the corpus in tests/compat/.

tools/compat_corpus.py builds it from the repository's history: the scenario files each README
showed and the shipped scenarios of each release (only those that release itself loaded), the
``wallet-simulator`` command lines of its shell blocks, and the control API calls it named. A
check added since may warn about such a file; it must not refuse it.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import ROOT

from simulator import Config, create_app
from simulator.cli import parser
from simulator.scenario import ScenarioWarning, load_scenario

CORPUS = ROOT / "tests" / "compat"
FILES = sorted((CORPUS / "scenarios").glob("*.yaml"))
REPLAYS = json.loads((CORPUS / "replays.json").read_text())
COMMANDS = json.loads((CORPUS / "cli.json").read_text())
CALLS = json.loads((CORPUS / "control.json").read_text())


def test_the_corpus_covers_every_kind_of_file():
    assert len(FILES) >= 20 and len(REPLAYS) >= 10 and COMMANDS and CALLS


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_scenario_that_loaded_then_loads_now(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScenarioWarning)
        scenario = load_scenario(path)
    for text in scenario.warnings:  # a later check's finding: located, with how to update
        assert text.startswith(f"{path}:") and "[warning: the file still loads" in text


def test_an_earlier_readmes_deny_naming_an_undeclared_policy_loads_with_a_warning():
    """The regression the issue names: README e944edb's rules example, saved with the default."""
    path = CORPUS / "scenarios" / "e944edb-7aeecd2562.yaml"
    with pytest.warns(ScenarioWarning) as caught:
        load_scenario(path)
    texts = [str(w.message) for w in caught]
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "policies: [guard]" in text)
    assert any(t.startswith(f"{path}:{line}: rules[1].deny.policies[0]: no policy 'guard'") for t in texts), texts
    assert all("declare it in this file or one it includes" in t for t in texts)


def test_check_prints_the_warnings_and_accepts_the_file():
    path = CORPUS / "scenarios" / "e944edb-7aeecd2562.yaml"
    run = subprocess.run(
        [sys.executable, "-m", "simulator", "check", str(path)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"{path}: ok"
    assert f"{path}:" in run.stderr and "no policy 'guard'" in run.stderr and "Warning:" not in run.stderr


@pytest.mark.parametrize("name", sorted(REPLAYS))
def test_every_file_that_replayed_then_replays_now(name, tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "simulator", "replay", str(CORPUS / "scenarios" / name)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("line", sorted(COMMANDS))
def test_every_command_line_still_parses(line):
    words = shlex.split(line)
    words = words[1:] if words[0] == "wallet-simulator" else words[3:]
    parser().parse_args(words)


@pytest.mark.parametrize("call", sorted(CALLS))
def test_every_control_call_still_has_its_route(call):
    method, path = call.split(" ", 1)
    adapter = create_app(config=Config(seed=0)).url_map.bind("localhost")
    concrete = path.replace("<id>", "activity-1")
    endpoint, _ = adapter.match(concrete, method=method)  # raises NotFound or MethodNotAllowed
    assert endpoint.startswith("control.")


def test_the_corpus_is_what_the_tool_builds():
    """The files carry where they came from; the tool's output names only files that exist."""
    for path in FILES:
        assert path.read_text().startswith("# From ")
    assert all((CORPUS / "scenarios" / name).is_file() for name in REPLAYS)
    assert Path(ROOT / "tools" / "compat_corpus.py").is_file()


DATA_DIRS = sorted(p for p in (CORPUS / "data_dirs").iterdir() if p.is_dir())


@pytest.mark.parametrize("kept", DATA_DIRS, ids=lambda p: p.name)
def test_every_data_dir_an_earlier_release_wrote_loads_now(kept, tmp_path):
    """``serve --data-dir`` on a copy: the wallet that release kept is there, with its id and address."""
    import shutil

    from simulator.control.control_client import ControlClient

    data = tmp_path / "data"
    shutil.copytree(kept, data)
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0", "--data-dir", str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line, proc.stderr.read() if proc.stderr else ""
        ready = json.loads(line)
        assert ready["seed"] == 37
        state = ControlClient(ready["url"]).state()
        wallets = json.dumps(state["store"])
        assert "99c566c6-74f4-4996-aed5-ce80fb85a89c" in wallets and "kept since 0.x" in wallets
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


STATES = sorted((CORPUS / "states").glob("*.json"))


@pytest.mark.parametrize("kept", STATES, ids=lambda p: p.name)
def test_a_sub_organization_an_earlier_release_made_keeps_email_otp(kept, simulator, simulator_client):
    """0.2.0 made sub-organizations with no features and enforced none; 0.3.0 enforces the e-mail
    features (organizations.mdx): a state 0.2.0 wrote is read with the documented defaults, so
    what it allowed (an OTP to a sub-organization's user) still completes."""
    simulator.simulator.import_state(json.loads(kept.read_text()))
    sub_org = "99c566c6-74f4-4996-aed5-ce80fb85a89c"
    configs = simulator_client.query("get_organization_configs", organizationId=sub_org).body
    features = {f["name"] for f in configs["configs"]["features"]}
    assert {"FEATURE_NAME_EMAIL_AUTH", "FEATURE_NAME_OTP_EMAIL_AUTH"} <= features
    started = simulator_client.submit(
        "init_otp",
        "ACTIVITY_TYPE_INIT_OTP_V2",
        {"otpType": "OTP_TYPE_EMAIL", "contact": "ada@example.com", "appName": "upgrade"},
        organizationId=sub_org,
    ).body
    assert started["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED", started
