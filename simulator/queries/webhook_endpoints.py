"""Webhooks V2 endpoints, and the email events of what the outbox sent."""

from __future__ import annotations

import uuid

from simulator.handler_support.query_context import QueryContext
from simulator.queries.pagination import paginate
from simulator.wire import Json

EMAIL_CHANNEL = "OTP_TYPE_EMAIL"
DEFAULT_SENDER = "notifications@turnkey.com"
EMAIL_EVENT_TYPES = ("Send", "Delivery")  # what the simulated mail provider reports for every email
EVENT_NAMESPACE = uuid.UUID("6f0e5b1c-54a1-4c0e-9a57-6b0d3c1e9a10")


def list_webhook_endpoints(q: QueryContext, body: Json) -> Json:
    return {"webhookEndpoints": [e.to_api() for e in q.org.webhook_endpoints.values()]}


def list_email_events(q: QueryContext, body: Json) -> Json:
    """Send and Delivery events of every email sent to ``email`` by the organization or its sub-organizations."""
    orgs = {q.org.organization_id, *(o.organization_id for o in q.store.descendants(q.org.organization_id))}
    wanted = body["email"].lower()
    sent = [
        m
        for m in q.store.outbox
        if m.get("channel", EMAIL_CHANNEL) == EMAIL_CHANNEL
        and str(m.get("contact", "")).lower() == wanted
        and m.get("organizationId") in orgs
    ]
    events = [event for message in sent for event in email_events(message)]
    if body.get("eventType"):
        events = [e for e in events if e["eventType"] == body["eventType"]]
    return {"emailEvents": paginate(events, body.get("paginationOptions"), key=lambda e: str(e["id"]))}


def email_events(message: Json) -> list[Json]:
    message_id = str(message.get("otpId") or message.get("messageId") or "")
    sent_at = message.get("sentAt") or {"seconds": "0", "nanos": "0"}
    millis = str(int(sent_at["seconds"]) * 1000 + int(sent_at["nanos"]) // 1_000_000)
    customization = message.get("customization") or {}
    sender = message.get("sender") or {}  # init_otp's and email_auth's sendFromEmailAddress (email.mdx)
    return [
        {
            "id": str(uuid.uuid5(EVENT_NAMESPACE, f"{message_id}/{event_type}")),
            "organizationId": message.get("organizationId", ""),
            "messageId": message_id,
            "eventType": event_type,
            "fromAddress": sender.get("sendFromEmailAddress")
            or customization.get("sendFromEmailAddress")
            or DEFAULT_SENDER,
            "toAddress": message["contact"],
            "timestamp": millis,
            "createdAt": millis,
            "details": {"deliverySmtpResponse": "250 OK"} if event_type == "Delivery" else {},
        }
        for event_type in EMAIL_EVENT_TYPES
    ]
