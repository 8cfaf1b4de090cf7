"""Each friction of "Downstream suites first", shown gone (the numbers are the issue's).

7 (scenario names in the marker) is in test_pytest_plugin.py, 9 (README snippets) in
test_readme.py, 6 (pytest-httpserver comes with the package) in test_packaging.py.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys

import pytest
import yaml
from conftest import DEFAULTS, ETH_ACCOUNT, ROOT, SCENARIOS
from support import PROCESS_STOP_SECONDS

from simulator import Config, SimulatorServer
from simulator.testing import ApiKeyStamper, SimulatorClient
from simulator.testing.replay import ReplayError, replay, report

SOL_ACCOUNT = {
    "curve": "CURVE_ED25519",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/501'/0'/0'",
    "addressFormat": "ADDRESS_FORMAT_SOLANA",
}


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "simulator", *args], capture_output=True, text=True, timeout=timeout)


def default_client(url: str) -> SimulatorClient:
    return SimulatorClient(url, ApiKeyStamper(DEFAULTS["apiPrivateKey"]), DEFAULTS["organizationId"])


# 2 -------------------------------------------------------------------------------------------
def test_2_a_capture_that_finds_nothing_is_a_failed_step_not_a_traceback(tmp_path):
    path = tmp_path / "capture.yaml"
    path.write_text(
        "include: [default]\nsteps:\n"
        "  - {name: make, submit: create_wallet, type: ACTIVITY_TYPE_CREATE_WALLET,\n"
        "     parameters: {walletName: w, accounts: []}, capture: {wallet: activity.result.nothing.here}}\n"
        '  - {name: use, query: get_wallet, body: {walletId: "${wallet}"}}\n'
        "  - {name: still runs, query: whoami}\n"
    )
    run = cli("replay", str(path))
    assert run.returncode == 1 and "Traceback" not in run.stdout + run.stderr
    assert "FAIL make" in run.stdout and "activity.result.nothing.here is not in the answer" in run.stdout
    assert "FAIL use" in run.stdout and "${wallet} is not set" in run.stdout
    assert "ok   still runs" in run.stdout and run.stdout.rstrip().endswith("1 passed, 2 failed")


def test_2_a_mismatch_shows_a_diff_of_structures(tmp_path):
    path = tmp_path / "diff.yaml"
    path.write_text(
        "include: [default]\nsteps:\n"
        "  - {query: get_organization_configs, expect: {fields: {configs.quorum: {threshold: 2, userIds: []}}}}\n"
    )
    text = report(replay(path))
    assert "--- expected" in text and "+++ got" in text and '- "threshold": 2' in text


# 3 and 4 -------------------------------------------------------------------------------------
def record_a_session(record) -> dict:
    with SimulatorServer(config=Config(seed=5)) as server:
        server.simulator.start_recording(record)
        client = default_client(server.url)
        made = client.submit(
            "create_wallet",
            "ACTIVITY_TYPE_CREATE_WALLET",
            {
                "walletName": "multi",
                "accounts": [ETH_ACCOUNT, {**ETH_ACCOUNT, "path": "m/44'/60'/0'/0/1"}, SOL_ACCOUNT],
            },
        ).body["activity"]["result"]["createWalletResult"]
        for address, hashing in zip(made["addresses"], ["HASH_FUNCTION_NO_OP"] * 2 + ["HASH_FUNCTION_NOT_APPLICABLE"]):
            params = {"signWith": address, "payload": "ab" * 32, "encoding": "PAYLOAD_ENCODING_HEXADECIMAL"}
            reply = client.submit(
                "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", {**params, "hashFunction": hashing}
            )
            assert reply.status == 200, reply.body
        condition = f"wallet.id == '{made['walletId']}'"
        client.submit(
            "create_policy",
            "ACTIVITY_TYPE_CREATE_POLICY_V3",
            {"policyName": "only it", "effect": "EFFECT_ALLOW", "condition": condition, "consensus": "", "notes": ""},
        )
        server.simulator.recorder.save()
    return made


def test_3_4_every_address_is_captured_and_the_recording_is_portable(tmp_path):
    record = tmp_path / "session.yaml"
    made = record_a_session(record)
    text = record.read_text()
    for literal in (*made["addresses"], made["walletId"]):
        assert literal not in text.split("capture:")[0] and text.count(literal) == 0, literal
    recorded = yaml.safe_load(text)
    assert recorded["include"] == ["default"] and recorded["seed"] == 5
    assert "${s1_activity_result_createWalletResult_walletId}" in recorded["steps"][4]["parameters"]["condition"]
    moved = tmp_path / "elsewhere" / "deep" / "session.yaml"
    moved.parent.mkdir(parents=True)
    shutil.move(record, moved)
    results = replay(moved)
    assert all(r.ok for r in results) and len(results) == 5, report(results)
    with SimulatorServer(config=Config(seed=99)) as other:  # another seed: other ids, keys and addresses
        results = replay(moved, other.url)
    assert all(r.ok for r in results), report(results)


def test_4_a_recording_on_a_local_scenario_includes_it_relative_to_itself(tmp_path):
    local = tmp_path / "scenarios" / "mine.yaml"
    local.parent.mkdir()
    local.write_text("include: [two_of_three_quorum]\n")
    record = tmp_path / "recordings" / "r.yaml"
    record.parent.mkdir()
    with SimulatorServer(config=Config(seed=1, scenarios=(local,))) as server:
        server.simulator.start_recording(record)
        default_client(server.url).query("whoami")
        server.simulator.recorder.save()
    assert yaml.safe_load(record.read_text())["include"] == ["../scenarios/mine.yaml"]
    assert all(r.ok for r in replay(record))


# 5 -------------------------------------------------------------------------------------------
BAD = """\
organizations:
  - name: Acme
    users:
      - ref: alice
        name: Alice
        apiKeys: [{name: k, privateKey: "abc"}]
    rootQuorum: {users: [alice, ghost]}
    policies:
      - {name: p, effect: EFFECT_ALLOW, consensus: "approvers.any(u, u.id == 'nobody')"}
rules:
  - {name: r, match: {type: CREATE_WALET, userTag: traders}, outcome: deny}
"""


def test_5_check_reports_every_problem_and_serve_refuses_with_the_same(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(BAD)
    checked = cli("check", str(path))
    assert checked.returncode == 1
    problems = [line for line in checked.stderr.splitlines() if line.startswith(str(path))]
    wanted = {
        6: "privateKey: expected 64 hex digits",
        7: "unknown user refs ['ghost']",
        9: "names user id 'nobody'",
        11: "unknown activity type 'CREATE_WALET'; did you mean CREATE_WALLET",
    }
    for line, phrase in wanted.items():
        assert any(p.startswith(f"{path}:{line}:") and phrase in p for p in problems), (line, checked.stderr)
    assert any("no user has the tag 'traders'" in p for p in problems)
    served = cli("serve", "--port", "0", "--proxy-port", "0", "--scenario", str(path))
    assert served.returncode == 2 and served.stdout == ""
    assert [line for line in served.stderr.splitlines() if line.startswith(str(path))] == problems


def test_5_check_accepts_every_shipped_scenario_by_name():
    run = cli("check", "default", "two_of_three_quorum", *sorted(p.stem for p in SCENARIOS.glob("*.yaml")))
    assert run.returncode == 0, run.stderr


# 10 ------------------------------------------------------------------------------------------
def test_10_replay_url_loads_the_scenario_the_file_names():
    with SimulatorServer(config=Config(seed=2)) as server:  # running the default: no Bob
        run = cli("replay", str(SCENARIOS / "two_of_three_quorum.yaml"), "--url", server.url)
        assert run.returncode == 0, run.stdout + run.stderr
        assert {c["userName"] for c in server.simulator.credentials} >= {"Bob", "Carol"}


def test_10_replay_url_says_why_it_cannot():
    with pytest.raises(ReplayError, match="cannot reach the simulator at http://127.0.0.1:9"):
        replay(SCENARIOS / "default.yaml", "http://127.0.0.1:9")
    run = cli("replay", str(SCENARIOS / "default.yaml"), "--url", "http://127.0.0.1:9")
    assert run.returncode == 2 and "cannot reach" in run.stderr and "Traceback" not in run.stderr


# 11 ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_11_one_log_line_per_request_with_operation_status_and_error(tmp_path, fmt):
    log = tmp_path / "serve.log"
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0", "--log-format", fmt],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        try:
            client = default_client(json.loads(proc.stdout.readline())["url"])
            client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []})
            client.query("get_wallet", walletId="00000000-0000-4000-8000-0000000000c2")
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=PROCESS_STOP_SECONDS)
            proc.stdout.close()
    text = log.read_text()
    assert "\x1b[" not in text and "Traceback" not in text
    lines = [line for line in text.splitlines() if "submit/" in line or "query/" in line]
    assert len(lines) == 2, text
    if fmt == "json":
        made, missing = (json.loads(line) for line in lines)
        assert made["operation"] == "submit/create_wallet" and made["status"] == 200 and made["durationMs"] > 0
        assert (
            missing["status"] == 404
            and missing["errorCode"]
            and "00000000-0000-4000-8000-0000000000c2" in missing["error"]
        )
    else:
        assert "POST submit/create_wallet 200" in lines[0] and " ms" in lines[0]
        assert "POST query/get_wallet 404" in lines[1] and "00000000-0000-4000-8000-0000000000c2" in lines[1]


# 12 ------------------------------------------------------------------------------------------
def test_12_coverage_into_head_ends_quietly():
    run = subprocess.run(
        f"{sys.executable} -m simulator coverage | head -n 1", shell=True, capture_output=True, text=True, timeout=60
    )
    assert run.stdout.count("\n") == 1 and "Traceback" not in run.stderr and "BrokenPipe" not in run.stderr


def test_12_the_readme_documents_the_switches_and_keys():
    # the README and the docs site it links (the switches and keys moved to docs/reference/)
    readme = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))])
    assert "not served yet" not in readme
    for text in ("--webhook-retries", "--webhook-backoff", "--log-format", "`include`", "`steps`", "`seed`"):
        assert text in readme, text


def test_12_a_405_from_the_control_api_names_the_methods_it_takes(simulator):
    reply = SimulatorClient(simulator.url, None, "").post("/_simulator/state", b"{}")
    assert reply.status == 405
    assert "takes POST" not in reply.body["message"] and "GET" in reply.body["message"]
