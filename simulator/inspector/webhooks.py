"""The webhook log as the inspector shows it: newest first, each attempt with the signature it carried.

Deliveries keep each attempt's time, status, latency and error, not its headers; the signature
headers are rebuilt here from the same inputs the sender signed (timestamp, event id, body), and
Ed25519 signatures are deterministic, so they are the headers that attempt sent.
"""

from __future__ import annotations

from simulator.webhooks import signing
from simulator.wire import Json


def deliveries_view(deliveries: list[Json]) -> list[Json]:
    return [with_signatures(delivery) for delivery in reversed(deliveries)]


def with_signatures(delivery: Json) -> Json:
    body = str(delivery.get("body", "")).encode()
    attempts = [
        attempt | {"headers": signature_headers(str(attempt["timeMs"]), str(delivery["eventId"]), body)}
        for attempt in delivery.get("attempts", [])
    ]
    return delivery | {"attempts": attempts}


def signature_headers(timestamp_ms: str, event_id: str, body: bytes) -> dict[str, str]:
    return {
        "X-Turnkey-Timestamp": timestamp_ms,
        "X-Turnkey-Event-Id": event_id,
        "X-Turnkey-Signature-Key-Id": signing.KEY_ID,
        "X-Turnkey-Signature-Algorithm": "ed25519",
        "X-Turnkey-Signature-Version": "v1",
        "X-Turnkey-Signature": signing.sign(timestamp_ms, event_id, body),
    }
