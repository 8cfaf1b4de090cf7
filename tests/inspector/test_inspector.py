"""The inspector's page and JSON without a browser: when it is served, the token, what it shows
(and never shows), the request log, the rebuilt webhook signatures, `serve` and the plugin switch.
The browser tests are in test_inspector_browser.py."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import DEFAULTS, ETH_ACCOUNT, ok
from support import PROCESS_STOP_SECONDS

from simulator import Config, SimulatorServer
from simulator.cli import config_from, parser, ready_line
from simulator.core import Simulator
from simulator.pytest_plugin import http_receiver
from simulator.scenario import resolve_scenario
from simulator.testing import ApiKeyStamper, InProcessClient
from simulator.web.app import create_app

TOKEN = "s3cret-token"
MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
TREE = f"""
version: 1
organizations:
  - id: org-parent
    name: Parent
    users:
      - name: Parent Root
        apiKeys: [{{privateKey: "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"}}]
    wallets:
      - name: Known
        mnemonic: {MNEMONIC}
        accounts:
          - {{curve: CURVE_SECP256K1, path: "m/44'/60'/0'/0/0", addressFormat: ADDRESS_FORMAT_ETHEREUM}}
    privateKeys:
      - {{name: Signer, curve: CURVE_SECP256K1, privateKey: "{"0" * 63}1", addressFormats: [ADDRESS_FORMAT_ETHEREUM], tags: [hot]}}
    subOrganizations:
      - id: org-child
        name: Child
        users:
          - name: Child Root
            apiKeys: [{{privateKey: "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1"}}]
"""


def app_for(*scenarios: str | Path, **settings: Any) -> Any:
    paths = tuple(resolve_scenario(s) if isinstance(s, str) else s for s in scenarios)
    return create_app(Simulator(Config(seed=3, scenarios=paths, **{"inspector": True, **settings})))


def as_user(app: Any, name: str) -> InProcessClient:
    sim = app.extensions["simulator"]
    creds = next(c for c in sim.credentials if c["userName"] == name)
    return InProcessClient(app, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])


def get(app: Any, path: str, **headers: str) -> Any:
    """The JSON of a 200 answer, or the answer itself (read and closed: files are streamed)."""
    with app.test_client().get(path, headers=headers) as response:
        response.get_data()
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.get_json() if response.is_json else response


# when it is served ---------------------------------------------------------------------------
@pytest.mark.parametrize("settings", [{"inspector": False}, {"control": False}])
def test_it_is_not_served_when_off_or_without_the_control_api(settings):
    client = app_for(**settings).test_client()
    for path in ("/_simulator/ui", "/_simulator/ui/static/js/main.js", "/_simulator/ui/api/overview"):
        with client.get(path) as response:
            assert response.status_code == 404


def test_the_page_and_its_assets_come_from_the_package_only():
    app = app_for()
    page = get(app, "/_simulator/ui")
    html = page.get_data(as_text=True)
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets and all(a.startswith(("/_simulator/ui/static/", "#")) or a == "data:," for a in assets)
    static = Path(__file__).resolve().parents[2] / "simulator" / "inspector" / "static"
    for asset in static.rglob("*.*"):
        text = asset.read_text()
        assert not re.search(r"https?://", text), f"{asset} reaches beyond the simulator"
        served = get(app, "/_simulator/ui/static/" + asset.relative_to(static).as_posix())
        assert served.get_data(as_text=True) == text
    for module in re.findall(r'from "\.\.?/([^"]+)"', (static / "js" / "main.js").read_text()):
        assert (static / "js" / module).is_file()


# the token -----------------------------------------------------------------------------------
def test_the_json_needs_the_control_token_and_the_shell_holds_no_state():
    app = app_for(control_token=TOKEN)
    client = app.test_client()
    refused = client.get("/_simulator/ui/api/organizations")
    assert refused.status_code == 401 and refused.headers["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/_simulator/ui/api/overview", headers={"X-Simulator-Control-Token": "wrong"}).status_code == 401
    assert get(app, "/_simulator/ui/api/overview", **{"X-Simulator-Control-Token": TOKEN})["tokenRequired"] is True
    assert get(app, "/_simulator/ui/api/overview", Authorization=f"Bearer {TOKEN}")["counts"]["organizations"] == 1
    shell = get(app, "/_simulator/ui").get_data(as_text=True)
    assert DEFAULTS["organizationId"] not in shell and "Simulated Organization" not in shell


# organizations -------------------------------------------------------------------------------
def test_the_tree_and_an_organization_without_its_secrets(tmp_path):
    scenario = tmp_path / "tree.yaml"
    scenario.write_text(TREE)
    app = app_for(scenario)
    tree = get(app, "/_simulator/ui/api/organizations")["organizations"]
    assert [(o["name"], o["depth"], o["parentId"]) for o in tree] == [("Parent", 0, None), ("Child", 1, "org-parent")]
    parent = get(app, "/_simulator/ui/api/organizations/org-parent")
    assert parent["children"] == [{"organizationId": "org-child", "name": "Child"}]
    assert parent["wallets"][0]["accounts"][0]["address"] == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
    assert parent["wallets"][0]["accounts"][0]["exported"] is False and parent["wallets"][0]["imported"] is False
    assert parent["privateKeys"][0]["tagNames"] == ["hot"]
    assert parent["rootQuorum"]["users"][0]["userName"] == "Parent Root"
    text = json.dumps([tree, parent])
    assert "abandon" not in text and "a1a1a1a1" not in text and "0" * 63 + "1" not in text


def test_policies_features_and_the_auth_proxy_of_an_organization():
    app = app_for("policy_deny")
    sim = app.extensions["simulator"]
    sim.configure_auth_proxy(DEFAULTS["organizationId"], allowedOrigins=["http://localhost:3000"])
    org = get(app, f"/_simulator/ui/api/organizations/{DEFAULTS['organizationId']}")
    policy = next(p for p in org["policies"] if p["policyName"] == "nobody deletes policies")
    assert policy["condition"] == "activity.resource == 'POLICY' && activity.action == 'DELETE'"
    assert org["authProxy"][0]["allowedOrigins"] == ["http://localhost:3000"]
    assert "encryptedProxyKey" not in org["authProxy"][0]
    assert {"name": "FEATURE_NAME_AUTH_PROXY", "value": org["authProxy"][0]["configId"]} in org["features"]
    assert next(u for u in org["users"] if u["userName"] == "Dave")["tagNames"] == ["traders"]


def test_an_unknown_organization_is_the_services_not_found():
    response = app_for().test_client().get("/_simulator/ui/api/organizations/nope")
    assert response.status_code == 404 and response.get_json()["turnkeyErrorCode"] == "ORGANIZATION_NOT_FOUND"


# activities ----------------------------------------------------------------------------------
def test_activities_newest_first_and_filtered():
    app = app_for("policy_deny")
    dave = as_user(app, "Dave")
    ok(dave.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "one", "accounts": []}))
    assert dave.submit("delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", {"policyIds": []}).status == 403
    listed = get(app, "/_simulator/ui/api/activities")
    assert [a["type"] for a in listed["activities"]] == ["ACTIVITY_TYPE_DELETE_POLICIES", "ACTIVITY_TYPE_CREATE_WALLET"]
    assert listed["statuses"] == ["ACTIVITY_STATUS_COMPLETED", "ACTIVITY_STATUS_FAILED"]
    failed = get(app, "/_simulator/ui/api/activities?status=ACTIVITY_STATUS_FAILED")["activities"]
    assert [a["requester"]["userName"] for a in failed] == ["Dave"]
    assert get(app, "/_simulator/ui/api/activities?type=ACTIVITY_TYPE_CREATE_WALLET")["total"] == 1
    assert get(app, "/_simulator/ui/api/activities?organizationId=elsewhere")["activities"] == []
    refused = app.test_client().get("/_simulator/ui/api/activities?limit=-1")
    assert refused.status_code == 400 and "limit" in refused.get_json()["message"]


def test_a_denied_activitys_story_names_the_policy_and_its_source():
    app = app_for("policy_deny")
    denied = as_user(app, "Dave").submit("delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", {"policyIds": []})
    activity_id = next(d["activityId"] for d in denied.body["details"] if "activityId" in d)
    story = get(app, f"/_simulator/ui/api/activities/{activity_id}")
    assert story["explanation"]["decidedBy"] == "denied by policy nobody deletes policies"
    assert [p["policyName"] for p in story["policies"]] == ["nobody deletes policies"]
    outcomes = story["explanation"]["policyEvaluations"][0]["policyEvaluations"]
    assert {"policyId": story["policies"][0]["policyId"], "outcome": "OUTCOME_DENY_EXPLICIT"} in outcomes
    assert story["policies"][0]["condition"].startswith("activity.resource == 'POLICY'")
    assert story["stamp"]["userName"] == "Dave" and story["stamp"]["scheme"] == "SIGNATURE_SCHEME_TK_API_P256"
    assert story["request"]["body"]["parameters"] == {"policyIds": []}
    assert story["timings"]["requestDurationMs"] > 0 and story["rule"] is None


def test_a_pending_activitys_story_lists_who_may_vote_and_a_rule_is_named():
    app = app_for("two_of_three_quorum")
    made = ok(
        as_user(app, "Root User").submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}
        )
    )
    story = get(app, f"/_simulator/ui/api/activities/{made['activity']['id']}")
    assert {v["userName"]: v["canVote"] for v in story["voters"]} == {"Root User": False, "Bob": True, "Carol": True}
    assert story["request"] == {"source": "journal", "body": json.loads(story["activity"]["votes"][0]["message"])}
    scripted = app_for("reject")
    rejected = ok(
        as_user(scripted, "Root User").submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}
        )
    )
    rule = get(scripted, f"/_simulator/ui/api/activities/{rejected['activity']['id']}")["rule"]
    assert rule["outcome"] == "reject" and rule["name"]
    missing = app.test_client().get("/_simulator/ui/api/activities/nope")
    assert missing.status_code == 404


# the request log -----------------------------------------------------------------------------
def test_the_request_log_has_status_duration_and_error_and_filters_by_operation():
    app = app_for()
    client = as_user(app, "Root User")
    ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH_ACCOUNT]}))
    assert client.query("get_wallet", walletId="00000000-0000-4000-8000-0000000000a6").status == 404
    app.test_client().get("/_simulator/journal")  # reads of the control API are not logged
    app.test_client().post("/_simulator/clock/advance", json={"seconds": 5})
    entries = get(app, "/_simulator/ui/api/requests")["entries"]
    assert [(e["kind"], e["op"], e["status"]) for e in entries] == [
        ("control", "clock/advance", 200),
        ("query", "get_wallet", 404),
        ("submit", "create_wallet", 200),
    ]
    assert all(e["durationMs"] > 0 for e in entries)
    assert (
        entries[1]["errorCode"]
        and "00000000-0000-4000-8000-0000000000a6" in entries[1]["error"]
        and entries[2]["error"] is None
    )
    assert entries[2]["activityStatus"] == "ACTIVITY_STATUS_COMPLETED"
    only = get(app, "/_simulator/ui/api/requests?op=get_wallet")["entries"]
    assert [e["op"] for e in only] == ["get_wallet"]


def test_a_body_refused_as_too_large_is_in_the_request_log_and_the_journal_alike():
    # one record per request: the transport's refusal (413, before any view) is logged, journaled and timed
    app = app_for(max_body_bytes=1024)
    answer = app.test_client().post(
        "/public/v1/submit/create_wallet", data=b"{" + b" " * 4096 + b"}", content_type="application/json"
    )
    assert answer.status_code == 413
    logged = get(app, "/_simulator/ui/api/requests")["entries"]
    assert [(e["kind"], e["op"], e["status"]) for e in logged] == [("submit", "create_wallet", 413)]
    assert logged[0]["durationMs"] > 0 and "too large" in logged[0]["error"]
    journal = get(app, "/_simulator/journal")["entries"]
    assert [(e["op"], e["status"]) for e in journal] == [("create_wallet", 413)]


# webhooks ------------------------------------------------------------------------------------
def test_the_rebuilt_signature_headers_are_the_ones_the_receiver_got():
    receiver = http_receiver()
    receiver.expect_request("/hooks", method="POST").respond_with_data("ok")
    receiver.start()
    try:
        app = app_for()
        sim = app.extensions["simulator"]
        sim.store.org(DEFAULTS["organizationId"]).features["FEATURE_NAME_WEBHOOK"] = receiver.url_for("/hooks")
        ok(
            as_user(app, "Root User").submit(
                "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}
            )
        )
        sim.webhooks.wait_for(lambda d: d["state"] == "delivered")
        received = receiver.log[0][0].headers
    finally:
        receiver.clear()
        receiver.stop()
        sim.close()
    shown = get(app, "/_simulator/ui/api/webhooks")["deliveries"][0]["attempts"][0]["headers"]
    assert shown == {name: received[name] for name in shown}


# serve and the plugin ------------------------------------------------------------------------
def test_serve_turns_it_on_and_no_inspector_turns_it_off():
    assert config_from(parser().parse_args(["serve"])).inspector is True
    assert config_from(parser().parse_args(["serve", "--no-inspector"])).inspector is False
    with SimulatorServer(config=Config(inspector=True)) as on, SimulatorServer(config=Config(inspector=False)) as off:
        assert ready_line(on)["inspectorUrl"] == on.url + "/_simulator/ui"
        assert ready_line(off)["inspectorUrl"] is None


def test_the_printed_url_serves_the_page():
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        ready = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
        with urllib.request.urlopen(ready["inspectorUrl"], timeout=10) as reply:
            assert "<title>Inspector" in reply.read().decode()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=PROCESS_STOP_SECONDS)
        proc.stdout.close()  # type: ignore[union-attr]


def test_the_plugin_serves_it_only_when_asked(pytester):
    pytester.makepyfile(
        test_page="""
import urllib.error, urllib.request

def test_page(simulator):
    try:
        urllib.request.urlopen(simulator.url + "/_simulator/ui", timeout=10)
        print("PAGE-SERVED")
    except urllib.error.HTTPError as error:
        print("PAGE-STATUS", error.code)
"""
    )
    assert "PAGE-STATUS 404" in pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider").stdout.str()
    pytester.makeini("[pytest]\nsimulator_inspector = true\n")
    started = time.monotonic()
    assert "PAGE-SERVED" in pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider").stdout.str()
    assert time.monotonic() - started < 60
