"""Webhooks V2: endpoints with event subscriptions, delivered by the signed, retried webhook machinery.

The event types are ``simulator.webhook_events.EVENTS``: ACTIVITY_UPDATES on a parent's endpoint
hears the parent and every sub-organization; the balance and transaction-status events are scoped
to the billing (top-level) organization, so a sub-organization may not subscribe to them. Only an active endpoint's active subscriptions deliver.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from simulator.errors import InvalidArgument, PermissionDenied
from simulator.handler_support.context import Context
from simulator.state.records import WebhookEndpoint
from simulator.webhook_events import EVENTS
from simulator.wire import Json

MAX_ENDPOINTS = 10


def create_webhook_endpoint(ctx: Context, params: Json) -> Json:
    if len(ctx.org.webhook_endpoints) >= MAX_ENDPOINTS:
        raise InvalidArgument(f"organization has reached its limit of {MAX_ENDPOINTS} webhook endpoints")
    endpoint = WebhookEndpoint(
        endpoint_id=ctx.new_id(),
        organization_id=ctx.org.organization_id,
        url=checked_url(params["url"]),
        name=checked_name(params["name"]),
        created_ms=ctx.now_ms,
        subscriptions=[subscription(ctx, s) for s in params.get("subscriptions", [])],
    )
    ctx.org.webhook_endpoints[endpoint.endpoint_id] = endpoint
    return {"endpointId": endpoint.endpoint_id, "webhookEndpoint": endpoint.to_api()}


def update_webhook_endpoint(ctx: Context, params: Json) -> Json:
    """url, name and isActive only: the service's update takes no subscriptions."""
    endpoint = find(ctx, params["endpointId"])
    url = checked_url(params["url"]) if "url" in params else endpoint.url
    name = checked_name(params["name"]) if "name" in params else endpoint.name
    endpoint.url, endpoint.name = url, name
    endpoint.is_active = params.get("isActive", endpoint.is_active)
    endpoint.updated_ms = ctx.now_ms
    return {"endpointId": endpoint.endpoint_id, "webhookEndpoint": endpoint.to_api()}


def delete_webhook_endpoint(ctx: Context, params: Json) -> Json:
    endpoint = find(ctx, params["endpointId"])
    del ctx.org.webhook_endpoints[endpoint.endpoint_id]
    return {"endpointId": endpoint.endpoint_id}


def find(ctx: Context, endpoint_id: str) -> WebhookEndpoint:
    return ctx.org.find(ctx.org.webhook_endpoints, endpoint_id, "webhook endpoint")


def subscription(ctx: Context, params: Json) -> Json:
    event_type = params["eventType"]
    if event_type not in EVENTS:
        raise InvalidArgument(f"unknown webhook event type {event_type!r}; known: {', '.join(EVENTS)}")
    if EVENTS[event_type].billing_org_only and ctx.org.parent_id is not None:
        raise PermissionDenied(
            f"{event_type} is scoped to the billing organization: subscribe from the parent organization "
            f"{ctx.org.parent_id}, not from sub-organization {ctx.org.organization_id}"
        )
    out: Json = {"eventType": event_type, "isActive": params.get("isActive", True)}
    if "filtersJson" in params:
        out["filtersJson"] = params["filtersJson"]
    return out


def checked_name(name: str) -> str:
    if not name.strip():
        raise InvalidArgument("webhook endpoint name must not be empty")
    return name


def checked_url(value: str) -> str:
    """An absolute http(s) URL without user info; unlike the service, http and local addresses are
    accepted so that tests can receive on localhost."""
    try:
        url = urlsplit(value)
        host, fits = url.hostname, url.scheme in ("http", "https") and url.username is None and url.port != 0
    except ValueError:  # a bad port or bracketed host
        host, fits = None, False
    if not fits or not host:
        raise InvalidArgument(
            f"invalid webhook URL {value!r}: expected an absolute http(s) URL with a host and no user info",
            error_code="INVALID_FQDN",
        )
    if host == "169.254.169.254" or is_link_local(host):
        raise InvalidArgument(f"invalid webhook URL {value!r}: link-local and metadata addresses are refused")
    return value


def is_link_local(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_link_local
    except ValueError:
        return False
