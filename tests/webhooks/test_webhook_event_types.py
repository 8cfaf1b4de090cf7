"""The webhook event registry (simulator/webhook_events.py) is what the service surface follows: an
endpoint subscribes to exactly its types, billing-scoped types only from the billing organization,
and every type marked delivered reaches a V2 endpoint subscribed to it, under its own name."""

from __future__ import annotations

import json

import pytest
from conftest import ok, result_of
from lifecycle_helpers import KEYS, sub_org
from support import assert_error

from simulator.pytest_plugin import WebhookReceiver, http_receiver
from simulator.webhook_events import EVENTS

CREATE = ("create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT")


def create(client, event_type: str, url: str = "http://127.0.0.1:9/hooks"):
    params = {"url": url, "name": f"feed {event_type}", "subscriptions": [{"eventType": event_type}]}
    return client.submit(*CREATE, params)


@pytest.mark.parametrize("name", list(EVENTS))
def test_the_billing_organization_subscribes_to_every_registered_type(client, name: str) -> None:
    made = result_of(create(client, name), "createWebhookEndpointResult")
    assert made["webhookEndpoint"]["subscriptions"] == [{"eventType": name, "isActive": True}]


def test_a_name_outside_the_registry_is_refused_naming_the_registered_ones(client) -> None:
    assert_error(create(client, "ACTIVITY_UPDATES_V9"), 400, 3, "unknown webhook event type", ", ".join(EVENTS))


def test_a_sub_organization_subscribes_to_exactly_the_types_not_scoped_to_billing(client) -> None:
    _, _, as_root = sub_org(client, "sub", key=KEYS["dave"])
    assert as_root is not None
    for name, event in EVENTS.items():
        if event.billing_org_only:
            assert_error(create(as_root, name), 403, 7, "billing organization")
        else:
            ok(create(as_root, name))


@pytest.mark.parametrize("name", [name for name, event in EVENTS.items() if event.delivered])
def test_every_delivered_type_reaches_an_endpoint_subscribed_to_it(client, simulator, name: str) -> None:
    server = http_receiver()
    server.start()
    receiver = WebhookReceiver(server, server.url_for("/hooks"))
    try:
        ok(create(client, name, url=receiver.url))
        requests = receiver.wait_for(1, timeout=60)
        assert requests[0].headers["X-Turnkey-Event-Type"] == name
        assert json.loads(requests[0].get_data())["type"] == "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT"
        assert {d["eventType"] for d in simulator.simulator.webhooks.deliveries()} == {name}
    finally:
        server.clear()
        server.stop()
