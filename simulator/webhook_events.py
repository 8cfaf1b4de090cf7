"""Webhook event types, each named once: what an endpoint may subscribe to, whose endpoints hear it,
and whether the simulator sends it yet.

Data only, on the lowest layer: the endpoint handlers (``simulator.activities.webhook_endpoints``,
which check a subscription against ``EVENTS``) and the deliveries (``simulator.webhooks``, which
send an event to its receivers) are sibling layers, so neither may hold the list for the other.
Adding an event type is a row here, its emitter, and its documentation (ARCHITECTURE.md, "Adding a
webhook event type").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EventType:
    """One event type (the ``eventType`` of a subscription, and the ``X-Turnkey-Event-Type`` header)."""

    name: str
    # scoped to the billing (top-level) organization: a sub-organization may not subscribe to it
    billing_org_only: bool
    # also sent to the organization's legacy FEATURE_NAME_WEBHOOK URL (the first webhooks feature)
    legacy_receivers: bool
    # the simulator sends it; the others are subscriptions the service documents and the simulator
    # accepts, but no stand-in emits yet
    delivered: bool


# an activity was created or changed status: heard by the organization's endpoints and its ancestors'
ACTIVITY_UPDATES = EventType("ACTIVITY_UPDATES", billing_org_only=False, legacy_receivers=True, delivered=True)
BALANCE_CONFIRMED_UPDATES = EventType(
    "BALANCE_CONFIRMED_UPDATES", billing_org_only=True, legacy_receivers=False, delivered=False
)
BALANCE_FINALIZED_UPDATES = EventType(
    "BALANCE_FINALIZED_UPDATES", billing_org_only=True, legacy_receivers=False, delivered=False
)
SEND_TRANSACTION_STATUS_UPDATES = EventType(
    "SEND_TRANSACTION_STATUS_UPDATES", billing_org_only=True, legacy_receivers=False, delivered=False
)

EVENTS: dict[str, EventType] = {
    event.name: event
    for event in (
        ACTIVITY_UPDATES,
        BALANCE_CONFIRMED_UPDATES,
        BALANCE_FINALIZED_UPDATES,
        SEND_TRANSACTION_STATUS_UPDATES,
    )
}
