"""Webhooks V2 endpoints: create, update, delete, list, their deliveries; and list_email_events."""

from __future__ import annotations

import inspect
import json

import pytest
from conftest import ok, result_of
from lifecycle_helpers import KEYS, api_user, sub_org, verification_token
from support import assert_error

from simulator.webhooks import deliveries

T = pytest.importorskip("turnkey_sdk_types")
CREATE = ("create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT")
UPDATE = ("update_webhook_endpoint", "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT")
DELETE = ("delete_webhook_endpoint", "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT")
ACTIVITY_UPDATES = [{"eventType": "ACTIVITY_UPDATES"}]
# Delivery to V2 endpoints needs Webhooks.receivers to read Store.webhook_endpoint_urls (see the report).
DELIVERS = "webhook_endpoint_urls" in inspect.getsource(deliveries.Webhooks.receivers)


def create(client, url="http://127.0.0.1:9/hooks", name="feed", subscriptions=ACTIVITY_UPDATES, **extra):
    params = {"url": url, "name": name, "subscriptions": subscriptions}
    return client.submit(*CREATE, params, **extra)


def test_create_update_list_delete(client):
    made = result_of(create(client), "createWebhookEndpointResult")
    endpoint_id = made["endpointId"]
    assert made["webhookEndpoint"] == {
        "endpointId": endpoint_id,
        "organizationId": client.organization_id,
        "url": "http://127.0.0.1:9/hooks",
        "name": "feed",
        "isActive": True,
        "subscriptions": [{"eventType": "ACTIVITY_UPDATES", "isActive": True}],
    }
    assert ok(client.query("list_webhook_endpoints"))["webhookEndpoints"] == [made["webhookEndpoint"]]
    changed = result_of(
        client.submit(*UPDATE, {"endpointId": endpoint_id, "name": "paused", "isActive": False}),
        "updateWebhookEndpointResult",
    )
    assert changed["webhookEndpoint"]["name"] == "paused" and changed["webhookEndpoint"]["isActive"] is False
    assert changed["webhookEndpoint"]["url"] == "http://127.0.0.1:9/hooks"
    gone = result_of(client.submit(*DELETE, {"endpointId": endpoint_id}), "deleteWebhookEndpointResult")
    assert gone == {"endpointId": endpoint_id}
    assert ok(client.query("list_webhook_endpoints"))["webhookEndpoints"] == []
    assert_error(client.submit(*DELETE, {"endpointId": endpoint_id}), 404, 5, endpoint_id)
    assert_error(client.submit(*UPDATE, {"endpointId": endpoint_id, "name": "x"}), 404, 5, endpoint_id)


@pytest.mark.parametrize(
    ("url", "phrase"),
    [
        ("ftp://example.com/x", "absolute http(s) URL"),
        ("https://user:pw@example.com/x", "no user info"),
        ("/relative", "absolute http(s) URL"),
        ("http://169.254.169.254/latest", "metadata"),
        ("http://example.com:99999/", "absolute http(s) URL"),
    ],
)
def test_bad_urls_are_refused(client, url, phrase):
    assert_error(create(client, url=url), 400, 3, phrase)


def test_bad_names_and_event_types_are_refused(client):
    assert_error(create(client, name=" "), 400, 3, "name must not be empty")
    assert_error(create(client, subscriptions=[{"eventType": "EVERYTHING"}]), 400, 3, "unknown webhook event type")
    endpoint_id = result_of(create(client), "createWebhookEndpointResult")["endpointId"]
    assert_error(client.submit(*UPDATE, {"endpointId": endpoint_id, "url": "nope"}), 400, 3, "invalid webhook URL")


def test_billing_events_belong_to_the_parent_organization(client):
    balances = [{"eventType": "BALANCE_CONFIRMED_UPDATES"}, {"eventType": "SEND_TRANSACTION_STATUS_UPDATES"}]
    made = result_of(create(client, subscriptions=balances), "createWebhookEndpointResult")
    assert [s["eventType"] for s in made["webhookEndpoint"]["subscriptions"]] == [b["eventType"] for b in balances]
    org_id, _, as_root = sub_org(client, "sub", key=KEYS["dave"])
    assert as_root is not None
    assert_error(create(as_root, subscriptions=balances[:1]), 403, 7, "billing organization")
    ok(create(as_root))


def test_managing_endpoints_needs_a_policy(client):
    _, bob = api_user(client, "Bob")
    assert_error(create(bob), 403, 7)
    params = {"policyName": "hooks", "effect": "EFFECT_ALLOW", "consensus": "", "notes": ""}
    params["condition"] = "activity.resource == 'WEBHOOK_ENDPOINT' && activity.action == 'CREATE'"
    ok(client.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", params))
    assert ok(create(bob))["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


@pytest.mark.xfail(not DELIVERS, reason="deliveries.Webhooks.receivers does not read V2 endpoints yet", strict=True)
def test_an_active_endpoint_receives_its_organizations_and_sub_organizations_activities(client, simulator, httpserver):
    httpserver.expect_request("/hooks").respond_with_data("ok")
    url = httpserver.url_for("/hooks")
    endpoint_id = result_of(create(client, url=url), "createWebhookEndpointResult")["endpointId"]
    org_id, _, as_root = sub_org(client, "sub", key=KEYS["dave"])
    assert as_root is not None
    ok(as_root.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "sub", "accounts": []}))
    hooks = simulator.simulator.webhooks
    delivered = hooks.wait_for(lambda d: d["url"] == url and d["organizationId"] == org_id, timeout=5)
    assert delivered["state"] == "delivered" and json.loads(delivered["body"])["type"] == "ACTIVITY_TYPE_CREATE_WALLET"
    ok(client.submit(*UPDATE, {"endpointId": endpoint_id, "isActive": False}))
    before = len([d for d in hooks.deliveries() if d["url"] == url])
    ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "quiet", "accounts": []}))
    assert len([d for d in hooks.deliveries() if d["url"] == url]) == before


def test_inactive_subscriptions_and_endpoints_are_not_receivers(client, simulator):
    store = simulator.simulator.store
    paused = [{"eventType": "ACTIVITY_UPDATES", "isActive": False}]
    ok(create(client, url="http://127.0.0.1:9/a", subscriptions=paused))
    live = result_of(create(client, url="http://127.0.0.1:9/b"), "createWebhookEndpointResult")["endpointId"]
    org_id, _, _ = sub_org(client, "child")
    assert store.webhook_endpoint_urls(org_id) == ["http://127.0.0.1:9/b"]
    ok(client.submit(*UPDATE, {"endpointId": live, "isActive": False}))
    assert store.webhook_endpoint_urls(client.organization_id) == []


def test_list_email_events_shows_what_the_outbox_sent(client, simulator):
    verification_token(client, simulator.simulator.store, "mail@example.com")
    events = ok(client.query("list_email_events", email="MAIL@example.com"))["emailEvents"]
    assert [e["eventType"] for e in events] == ["Send", "Delivery"]
    assert {e["toAddress"] for e in events} == {"mail@example.com"} and events[0]["messageId"] == events[1]["messageId"]
    only = ok(client.query("list_email_events", email="mail@example.com", eventType="Delivery"))["emailEvents"]
    assert only == events[1:]
    assert ok(client.query("list_email_events", email="other@example.com"))["emailEvents"] == []


def test_the_official_python_client(turnkey_client):
    tk = turnkey_client
    sub = T.v1WebhookSubscriptionParams(eventType="ACTIVITY_UPDATES")
    made = tk.create_webhook_endpoint(
        T.CreateWebhookEndpointBody(url="http://127.0.0.1:9/x", name="py", subscriptions=[sub])
    )
    assert made.webhookEndpoint.name == "py"
    updated = tk.update_webhook_endpoint(T.UpdateWebhookEndpointBody(endpointId=made.endpointId, isActive=False))
    assert updated.webhookEndpoint.isActive is False
    listed = tk.list_webhook_endpoints(T.ListWebhookEndpointsBody()).webhookEndpoints
    assert [e.endpointId for e in listed] == [made.endpointId]
    assert (
        tk.delete_webhook_endpoint(T.DeleteWebhookEndpointBody(endpointId=made.endpointId)).endpointId
        == made.endpointId
    )
    assert tk.list_email_events(T.ListEmailEventsBody(email="x@example.com")).emailEvents == []
