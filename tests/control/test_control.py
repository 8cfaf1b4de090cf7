"""The control API and its client: scenarios, snapshots, state export/import, clock, votes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ETH_ACCOUNT, SCENARIOS, ok, result_of

from simulator import Config, Simulator
from simulator.control.control_client import ControlClient, ControlError
from simulator.control.control_surface import TABLE


def test_snapshot_and_restore(client, simulator):
    control = ControlClient(simulator.url)
    snapshot = control.snapshot()
    ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "later", "accounts": []}))
    control.restore(snapshot)
    assert ok(client.query("list_wallets")) == {"wallets": []}
    with pytest.raises(ControlError, match="no snapshot nope"):
        control.restore("nope")


def test_state_exports_as_json_and_imports_back(client, simulator):
    wallet = result_of(
        client.submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "kept", "accounts": [ETH_ACCOUNT]}
        ),
        "createWalletResult",
    )
    control = ControlClient(simulator.url)
    state = json.loads(json.dumps(control.state()))  # plain JSON all the way down
    control.reset()
    assert ok(client.query("list_wallets")) == {"wallets": []}
    control.import_state(state)
    accounts = ok(client.query("list_wallet_accounts"))["accounts"]
    assert [a["address"] for a in accounts] == wallet["addresses"]
    assert ok(client.query("whoami"))["username"] == "Root User"  # the key index came back too
    with pytest.raises(ControlError, match="cannot import the state"):
        control.import_state({"format": "something else"})


def test_export_is_readable(simulator):
    state = Simulator(Config(seed=1)).export_state()
    org = next(iter(state["store"]["orgs"].values()))
    assert org["__type__"] == "Organization" and org["name"] == "Simulated Organization"


def test_load_scenarios_clock_and_votes(simulator):
    control = ControlClient(simulator.url)
    credentials = control.load_scenarios([SCENARIOS / "two_of_three_quorum.yaml"])
    assert {c["userName"] for c in credentials} == {"Root User", "Bob", "Carol"}
    from simulator.testing import ApiKeyStamper, SimulatorClient

    root = next(c for c in credentials if c["userName"] == "Root User")
    client = SimulatorClient(simulator.url, ApiKeyStamper(root["apiPrivateKey"]), root["organizationId"])
    activity = ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}))[
        "activity"
    ]
    assert control.explain(activity["id"])["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    assert control.approve(activity["id"], "Bob")["status"] == "ACTIVITY_STATUS_COMPLETED"
    before = simulator.simulator.clock.now_ms()
    assert control.advance_clock(60) >= before + 60_000
    assert [e["op"] for e in control.journal()] == ["create_wallet"]
    with pytest.raises(ControlError, match="cannot read scenario file"):
        control.load_scenarios([SCENARIOS / "missing.yaml"])
    control.load_scenarios([])  # back to the default


def test_the_cli_wraps_the_control_api(simulator):
    def run(*args):
        command = [sys.executable, "-m", "simulator", "control", *args, "--url", simulator.url]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    snapshot = run("snapshot")
    assert snapshot.returncode == 0 and snapshot.stdout.strip().startswith('"snapshot-')
    assert run("restore", json.loads(snapshot.stdout)).returncode == 0
    assert run("explain", "nope").returncode == 1
    assert run("clock").returncode == 2


# bad bodies: a 400 in the one error shape, and the state as it was ----------------------------
BAD_BODIES = [
    ("POST", "/_simulator/webhooks/drain", b'{"timeout": "abc"}', "$.timeout"),
    ("POST", "/_simulator/webhooks/drain", b'{"timeout": 3600}', "$.timeout"),
    ("POST", "/_simulator/clock/advance", b'{"seconds": Infinity}', "Infinity"),
    ("POST", "/_simulator/clock/advance", b'{"seconds": NaN}', "NaN"),
    ("POST", "/_simulator/clock/advance", b'{"seconds": 1e308}', "$.seconds"),
    ("POST", "/_simulator/clock/advance", b'{"seconds": "30"}', "$.seconds"),
    ("POST", "/_simulator/clock/advance", b'{"seconds": true}', "$.seconds"),
    ("POST", "/_simulator/clock/advance", b"{}", "$.seconds"),
    ("POST", "/_simulator/scenarios", b'{"paths": [1, {"a": 2}]}', "$.paths[0]"),
    ("POST", "/_simulator/scenarios", b'{"paths": "default"}', "$.paths"),
    ("POST", "/_simulator/scenarios", b'{"replace": "yes"}', "$.replace"),
    ("POST", "/_simulator/webhooks/chaos", b'{"delayMs": "x"}', "$.delayMs"),
    ("POST", "/_simulator/webhooks/chaos", b'{"drop": 1}', "$.drop"),
    ("POST", "/_simulator/webhooks/chaos", b'{"colour": "red"}', "$.colour"),
    ("POST", "/_simulator/webhooks/fire", b'{"url": "not a url"}', "$.url"),
    ("POST", "/_simulator/webhooks/fire", b'{"overrides": []}', "$.overrides"),
    ("POST", "/_simulator/activities/x/approve", b"{}", "$.userId"),
    ("POST", "/_simulator/activities/x/reject", b'{"userId": 5}', "$.userId"),
    ("POST", "/_simulator/auth-proxy", b'{"organizationId": "o", "otpLength": "abc"}', "$.otpLength"),
    ("POST", "/_simulator/auth-proxy", b'{"organizationId": "o", "enabled": "yes"}', "$.enabled"),
    ("POST", "/_simulator/oauth/authorize", b"{}", "$.subject"),
    ("POST", "/_simulator/oauth/id-token", b'{"subject": "s"}', "$.audience"),
    ("POST", "/_simulator/reset", b'{"hard": true}', "$.hard"),
    ("POST", "/_simulator/snapshots", b"[]", "$"),
    ("PUT", "/_simulator/state", b'{"store": {}}', "$.format"),
    ("PUT", "/_simulator/state", b'{"format": "wallet-simulator-state/1", "store": 5}', "$.store"),
    ("PUT", "/_simulator/state", b'{"format": "wallet-simulator-state/1", "store": {"__type__": "Store"}}', "import"),
    ("POST", "/_simulator/reset", b"{", "not valid JSON"),
    ("POST", "/_simulator/reset", b"\xff\xfe", "not valid JSON"),
    ("POST", "/_simulator/clock/advance", b"[" * 100_000, "not valid JSON"),
]


@pytest.mark.parametrize(("method", "path", "raw", "named"), BAD_BODIES, ids=lambda v: str(v)[:40])
def test_a_bad_control_body_is_a_400_and_changes_nothing(simulator, method, path, raw, named):
    sim = simulator.simulator
    before = (sim.export_state(), sim.webhooks.chaos, len(sim.journal.entries()))
    reply = simulator.app.test_client().open(
        path, method=method, data=raw, headers={"Content-Type": "application/json"}
    )
    body = reply.get_json()
    assert reply.status_code == 400, body
    assert body["code"] == 3 and body["turnkeyErrorCode"] == "REQUEST_INVALID" and named in json.dumps(body)
    assert (sim.export_state(), sim.webhooks.chaos, len(sim.journal.entries())) == before


def test_a_body_that_is_not_declared_json_is_refused(simulator):
    reply = simulator.app.test_client().post(
        "/_simulator/clock/advance", data=b'{"seconds": 1}', content_type="text/plain"
    )
    assert reply.status_code == 400 and "Content-Type: application/json" in reply.get_json()["message"]
    # issue 34: an empty body needs the type too (a page's form or beacon could send it cross-site without asking)
    untyped = simulator.app.test_client().post("/_simulator/reset")
    assert untyped.status_code == 400 and "an empty body included" in untyped.get_json()["message"]
    typed = simulator.app.test_client().post("/_simulator/reset", headers={"Content-Type": "application/json"})
    assert typed.status_code == 200


def test_a_failed_load_takes_back_the_files_it_had_loaded(simulator, tmp_path):
    sim = simulator.simulator
    before = sim.export_state()
    extra = tmp_path / "extra.yaml"
    extra.write_text("organizations:\n  - name: Extra\n    users: [{name: Zed, apiKeys: [{name: k}]}]\n")
    control = ControlClient(simulator.url)
    with pytest.raises(ControlError, match="cannot read scenario file") as refused:
        control.load_scenarios([extra, SCENARIOS / "missing.yaml"], replace=False)
    assert refused.value.status == 400
    assert sim.export_state() == before and "Zed" not in json.dumps(sim.credentials)
    assert "Zed" in {c["userName"] for c in control.load_scenarios([extra], replace=False)}  # the file was fine
    control.reset()
    with pytest.raises(ControlError, match="cannot load the scenarios") as binary:
        control.load_scenarios([sys.executable], replace=False)
    assert binary.value.status == 400 and sim.export_state() == before


def test_a_state_document_that_breaks_midway_is_rolled_back(simulator):
    sim = simulator.simulator
    before = sim.export_state()
    broken = json.loads(json.dumps(before))
    broken["store"]["orgs"] = {}  # the store would import ...
    broken["source"] = {"not": "a source state"}  # ... and then the random source cannot
    with pytest.raises(ControlError, match="cannot import the state") as refused:
        ControlClient(simulator.url).import_state(broken)
    assert refused.value.status == 400 and sim.export_state() == before


def test_bad_chaos_is_refused_and_later_submits_still_work(client, simulator):
    control = ControlClient(simulator.url)
    with pytest.raises(ControlError) as refused:
        control.webhook_chaos(delayMs="x")
    assert refused.value.status == 400
    with pytest.raises(ValueError, match="delayMs must be an integer"):
        simulator.simulator.webhooks.chaos = {"delayMs": "x"}
    with pytest.raises(ValueError, match="unknown webhook chaos options"):
        simulator.simulator.webhooks.chaos = {"slow": True}
    ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "after", "accounts": []}))
    assert control.webhook_chaos(delayMs=5, reorder=True) == {"delayMs": 5, "reorder": True}


def test_firing_an_unknown_activity_is_a_404(simulator):
    with pytest.raises(ControlError, match="no activity nope") as refused:
        ControlClient(simulator.url).fire_webhook(activity_id="nope")
    assert refused.value.status == 404


def test_every_control_route_with_a_body_has_its_schema(simulator):
    from jsonschema import Draft7Validator

    from simulator.control import control_schemas

    schemas = control_schemas()
    for name in schemas.operations["control"]:
        Draft7Validator.check_schema(schemas.schema("control", name))
    posts = [
        r
        for r in simulator.app.url_map.iter_rules()
        if r.endpoint.startswith("control.") and r.methods & {"POST", "PUT"}
    ]
    # the count was 17 written here (one more hand edit per endpoint); the table says it now
    assert len(posts) == len(schemas.operations["control"]) == len({e.schema for e in TABLE if e.schema}) >= 17
