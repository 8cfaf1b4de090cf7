"""Webhook deliveries with pytest-httpserver receivers: real time, sub-orgs, order, retries,
signatures, on-demand firing and chaos."""

from __future__ import annotations

import json

import pytest
from conftest import DEFAULTS, ok, result_of
from werkzeug.wrappers import Response

from simulator.control.control_client import ControlClient
from simulator.pytest_plugin import http_receiver
from simulator.webhooks.signing import verify_delivery

WEBHOOK = "FEATURE_NAME_WEBHOOK"


@pytest.fixture
def receiver():
    server = http_receiver()
    server.start()
    yield server
    server.clear()
    server.stop()


def set_webhook(client, url: str, org: str | None = None) -> None:
    extra = {"organizationId": org} if org else {}
    ok(
        client.submit(
            "set_organization_feature",
            "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
            {"name": WEBHOOK, "value": url},
            **extra,
        )
    )


def test_a_new_activity_is_delivered_signed(client, simulator, webhook_receiver):
    activity = ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}))[
        "activity"
    ]
    request = webhook_receiver.wait_for(1)[0]
    body = json.loads(request.get_data())
    assert (body["id"], body["status"]) == (activity["id"], "ACTIVITY_STATUS_COMPLETED")
    headers = request.headers
    assert headers["X-Turnkey-Event-Type"] == "ACTIVITY_UPDATES" and headers["X-Turnkey-Webhook-Version"] == "1"
    assert headers["X-Turnkey-Organization-Id"] == DEFAULTS["organizationId"]
    assert webhook_receiver.verify(request)
    jwks = client.post("/public/v1/discovery/webhooks/jwks", b"", method="GET").body
    assert verify_delivery(dict(headers), request.get_data(), jwks)
    assert not verify_delivery(dict(headers), request.get_data().replace(b'"w"', b'"x"'), jwks)


def test_sub_organization_activity_reaches_the_parents_receiver(client, simulator, receiver):
    receiver.expect_request("/parent").respond_with_data("ok")
    set_webhook(client, receiver.url_for("/parent"))
    sub = result_of(
        client.submit(
            "create_sub_organization",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
            {
                "subOrganizationName": "child",
                "rootUserIds": None,
                "rootQuorumThreshold": 1,
                "rootUsers": [
                    {
                        "userName": "Kid",
                        "apiKeys": [
                            {
                                "apiKeyName": "k",
                                "publicKey": client.stamper.public_key,
                                "curveType": "API_KEY_CURVE_P256",
                            }
                        ],
                        "authenticators": [],
                        "oauthProviders": [],
                    }
                ],
            },
        ),
        "createSubOrganizationResultV7",
    )
    child = type(client)(simulator.url, client.stamper, sub["subOrganizationId"])
    ok(child.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "kid", "accounts": []}))
    delivered = simulator.simulator.webhooks.wait_for(lambda d: d["organizationId"] == sub["subOrganizationId"])
    assert delivered["url"] == receiver.url_for("/parent") and delivered["state"] == "delivered"


def test_status_changes_arrive_in_order(client, simulator, receiver):
    receiver.expect_request("/hooks").respond_with_data("ok")
    set_webhook(client, receiver.url_for("/hooks"))
    ok(
        client.submit(
            "create_policy",
            "ACTIVITY_TYPE_CREATE_POLICY_V3",
            {"policyName": "p", "effect": "EFFECT_ALLOW", "notes": ""},
        )
    )
    sim = simulator.simulator
    sim.rules.append({"name": "later", "match": {"type": "CREATE_USER_TAG"}, "outcome": "allow", "after": {"polls": 1}})
    activity = ok(
        client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "t", "userIds": []})
    )["activity"]
    ok(client.query("get_activity", activityId=activity["id"]))
    sim.webhooks.wait_for(lambda d: d["reason"] == "status")
    statuses = [
        json.loads(d["body"])["status"]
        for d in sim.webhooks.deliveries()
        if json.loads(d["body"])["id"] == activity["id"]
    ]
    assert statuses == ["ACTIVITY_STATUS_PENDING", "ACTIVITY_STATUS_COMPLETED"]


def test_a_failing_receiver_gets_retries_with_the_same_event_id(client, simulator, receiver):
    answers = iter([500, 500, 200])
    receiver.expect_request("/flaky").respond_with_handler(lambda request: Response("x", status=next(answers)))
    set_webhook(client, receiver.url_for("/flaky"))
    sim = simulator.simulator
    first = sim.webhooks.wait_for(lambda d: d["attempts"])
    for attempts in (2, 3):  # retries wait on the simulator clock: move it instead of sleeping
        sim.clock.advance(10)
        sim.webhooks.wait_for(lambda d, n=attempts: len(d["attempts"]) >= n)
    done = sim.webhooks.wait_for(lambda d: d["state"] == "delivered")
    assert [a["status"] for a in done["attempts"]] == [500, 500, 200]
    event_ids = {request.headers["X-Turnkey-Event-Id"] for request, _ in receiver.log}
    assert event_ids == {first["eventId"]}


def test_a_4xx_is_final_and_removing_the_feature_stops_deliveries(client, simulator, receiver):
    receiver.expect_request("/gone").respond_with_data("no", status=410)
    set_webhook(client, receiver.url_for("/gone"))
    sim = simulator.simulator
    failed = sim.webhooks.wait_for(lambda d: d["state"] == "failed")
    assert [a["status"] for a in failed["attempts"]] == [410]
    ok(client.submit("remove_organization_feature", "ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE", {"name": WEBHOOK}))
    logged = len(sim.webhooks.deliveries())
    ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "quiet", "accounts": []}))
    assert len(sim.webhooks.deliveries()) == logged


def test_on_demand_fire_resend_and_chaos(client, simulator, receiver):
    receiver.expect_request("/on-demand").respond_with_data("ok")
    url = receiver.url_for("/on-demand")
    control = ControlClient(simulator.url)
    fired = control.call("POST", "/webhooks/fire", {"url": url, "overrides": {"status": "ACTIVITY_STATUS_FAILED"}})
    sim = simulator.simulator
    sim.webhooks.wait_for(lambda d: d["state"] == "delivered")
    assert json.loads(receiver.log[0][0].get_data())["status"] == "ACTIVITY_STATUS_FAILED"
    control.call("POST", f"/webhooks/{fired['deliveries'][0]['eventId']}/resend", {})
    sim.webhooks.wait_for(lambda d: d["reason"] == "resent" and d["state"] == "delivered")
    assert receiver.log[1][0].headers["X-Turnkey-Event-Id"] == fired["deliveries"][0]["eventId"]
    control.call("POST", "/webhooks/chaos", {"drop": True})
    sim.webhooks.fire(url=url)
    assert sim.webhooks.deliveries()[-1]["state"] == "dropped" and len(receiver.log) == 2
    control.call("POST", "/webhooks/chaos", {"duplicate": True})
    sim.webhooks.fire(url=url)
    assert sim.webhooks.drain(2) == [] and len(receiver.log) == 4
    twins = [r.headers["X-Turnkey-Event-Id"] for r, _ in receiver.log[2:]]
    assert twins[0] == twins[1]


def test_the_cli_lists_and_fires(client, simulator, receiver):
    import subprocess
    import sys

    receiver.expect_request("/cli").respond_with_data("ok")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "simulator",
            "webhooks",
            "fire",
            "--to",
            receiver.url_for("/cli"),
            "--url",
            simulator.url,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0 and json.loads(run.stdout)[0]["url"] == receiver.url_for("/cli")
    simulator.simulator.webhooks.wait_for(lambda d: d["state"] == "delivered")
    listed = subprocess.run(
        [sys.executable, "-m", "simulator", "webhooks", "list", "--url", simulator.url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(listed.stdout)[0]["state"] == "delivered"
