"""Webhook deliveries: queued on the request thread, sent by one worker per receiver.

Every activity event (a new request, a later status change) goes to each FEATURE_NAME_WEBHOOK
URL of the activity's organization and its ancestors, in order per receiver. 2xx succeeds,
3xx/4xx are final, 5xx, network errors and answers slower than ``Config.webhook_timeout_seconds``
are retried with exponential backoff on the simulator clock (so a test advances the clock
instead of waiting). Every attempt is kept in the delivery log and logged.

Delivery is at least once: an event keeps its id (``X-Turnkey-Event-Id``) across retries,
resends and chaos duplicates, so a receiver de-duplicates by it. Each receiver URL has its own
queue and worker, so a slow receiver delays only its own events.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import threading
import time
import uuid
from collections import deque
from typing import Any, Protocol
from urllib.parse import urlsplit

from simulator.clock import Clock, Source
from simulator.config import Config
from simulator.state.activity import Activity
from simulator.state.store import Store
from simulator.webhook_events import ACTIVITY_UPDATES, EventType
from simulator.webhooks import signing
from simulator.wire import Json

CHAOS_FLAGS = ("drop", "duplicate", "reorder")
MAX_CHAOS_DELAY_MS = 3_600_000
log = logging.getLogger("simulator.webhooks")


class DeliveryInputs(Protocol):
    """What deliveries read: the state (receivers, activities), the seeded source, the clock, the settings
    (the pipeline's ``Services``, which the Simulator hands over)."""

    config: Config
    clock: Clock
    source: Source
    lock: threading.RLock

    @property
    def store(self) -> Store: ...


class EventIds:
    """Webhook event ids: their own stream, never reset, so a receiver that keeps its de-duplication
    store across a suite's resets never sees an id twice. Each is a UUID (version 4 bits) made from
    a hash of the seed, a label and a counter: the same ids in the same order for a fresh process
    with the same seed, and never one of the resource ids the seeded source draws (those are its
    random bits, not a hash of this label)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.position = 0  # how many ids were given (serve --data-dir keeps it: a restart gives no id twice)
        self._lock = threading.Lock()

    def next(self) -> str:
        with self._lock:
            count, self.position = self.position, self.position + 1
        digest = hashlib.sha256(f"wallet-simulator webhook event {self.seed} {count}".encode()).digest()
        return str(uuid.UUID(bytes=digest[:16], version=4))


class Webhooks:
    """The delivery log and one sending worker per receiver; ``on_event`` is the activity listener."""

    def __init__(self, inputs: DeliveryInputs, retries: int = 5, backoff_seconds: float = 1.0) -> None:
        self.inputs, self.retries, self.backoff = inputs, retries, backoff_seconds
        self.log: list[Json] = []  # every delivery, with its attempts, oldest first
        self._chaos: Json = {}  # drop / duplicate / delayMs / reorder, applied to new deliveries
        self._queues: dict[str, deque[Json]] = {}
        self._workers: dict[str, threading.Thread] = {}
        self._wake = threading.Condition()
        self._closed = False
        self._event_ids = EventIds(inputs.source.seed)

    @property
    def chaos(self) -> Json:
        """Faults applied to deliveries queued from now on: drop, duplicate, reorder (bools), delayMs."""
        return dict(self._chaos)

    @chaos.setter
    def chaos(self, options: Json) -> None:
        self._chaos = checked_chaos(options)

    # what gets delivered -----------------------------------------------------------------------
    def on_event(self, activity: Activity, event: str) -> None:
        """Queue the activity (as it is now) for every receiver of its organization and ancestors."""
        urls = self.receivers(activity.organization_id)
        if not urls:
            return  # most suites configure no receiver: skip encoding the activity
        body = json.dumps(activity.to_api(), separators=(",", ":")).encode()
        for url in urls:
            self.enqueue(url, activity.organization_id, body, event)

    def receivers(self, organization_id: str, event: EventType = ACTIVITY_UPDATES) -> list[str]:
        """The URLs that hear ``event`` from the organization: its endpoints subscribed to it and its
        ancestors' (and, for an event legacy receivers get, each FEATURE_NAME_WEBHOOK URL on the way)."""
        urls, org_id = [], organization_id
        while org_id:
            org = self.inputs.store.orgs.get(org_id)
            if org is None:
                break
            if event.legacy_receivers and org.features.get("FEATURE_NAME_WEBHOOK"):
                urls.append(org.features["FEATURE_NAME_WEBHOOK"])
            org_id = org.parent_id or ""
        return urls + self.inputs.store.webhook_endpoint_urls(organization_id, event.name)  # V2 endpoints

    def enqueue(
        self,
        url: str,
        organization_id: str,
        body: bytes,
        reason: str,
        event_id: str | None = None,
        event_type: str = ACTIVITY_UPDATES.name,
    ) -> Json:
        delivery = {
            "eventId": event_id or self._event_ids.next(),
            "url": url,
            "organizationId": organization_id,
            "eventType": event_type,
            "reason": reason,
            "body": body.decode(),
            "state": "pending",
            "attempts": [],
            "nextAttemptMs": self.inputs.clock.now_ms() + self._chaos.get("delayMs", 0),
        }
        with self._wake:
            self.log.append(delivery)
            if self._chaos.get("drop"):
                delivery["state"] = "dropped"
                return delivery
            copies = [delivery, {**delivery, "attempts": []}] if self._chaos.get("duplicate") else [delivery]
            queue = self._queues.setdefault(url, deque())
            for copy in copies:
                queue.appendleft(copy) if self._chaos.get("reorder") else queue.append(copy)
            if len(copies) > 1:
                self.log.append(copies[1])
            self._start(url)
            self._wake.notify_all()
        return delivery

    # sending -------------------------------------------------------------------------------------
    def _start(self, url: str) -> None:
        if url not in self._workers or not self._workers[url].is_alive():
            worker = threading.Thread(target=self._work, args=(url,), name=f"webhooks {url}", daemon=True)
            self._workers[url] = worker
            worker.start()

    def _work(self, url: str) -> None:
        while True:
            with self._wake:
                queue = self._queues.get(url)
                head = queue[0] if queue else None
                if head is None or head["nextAttemptMs"] > self.inputs.clock.now_ms():
                    if self._closed and head is None:
                        return
                    self._wake.wait(timeout=0.01)
                    continue
            outcome = self._attempt(head)
            with self._wake:
                self._settle(url, head, outcome)
                self._wake.notify_all()
            log_attempt(head, outcome)

    def _attempt(self, delivery: Json) -> Json:
        body = delivery["body"].encode()
        timestamp = str(self.inputs.clock.now_ms())
        headers = {
            "Content-Type": "application/json",
            "X-Turnkey-Organization-Id": delivery["organizationId"],
            "X-Turnkey-Event-Type": delivery["eventType"],
            "X-Turnkey-Timestamp": timestamp,
            "X-Turnkey-Webhook-Version": "1",
            "X-Turnkey-Event-Id": delivery["eventId"],
            "X-Turnkey-Signature-Key-Id": signing.KEY_ID,
            "X-Turnkey-Signature-Algorithm": "ed25519",
            "X-Turnkey-Signature-Version": "v1",
            "X-Turnkey-Signature": signing.sign(timestamp, delivery["eventId"], body),
        }
        start = time.perf_counter()
        try:
            status, error = post(delivery["url"], body, headers, self.inputs.config.webhook_timeout_seconds), None
        except TimeoutError:
            status, error = None, f"no answer within {self.inputs.config.webhook_timeout_seconds} s (webhook timeout)"
        except (OSError, http.client.HTTPException, ValueError) as exc:  # ValueError: a URL that cannot be reached
            status, error = None, f"{type(exc).__name__}: {exc}"
        return {
            "timeMs": int(timestamp),
            "status": status,
            "latencyMs": round((time.perf_counter() - start) * 1000, 2),
            "error": error,
        }

    def _settle(self, url: str, delivery: Json, attempt: Json) -> None:
        delivery["attempts"].append(attempt)
        status = attempt["status"]
        if status is not None and 200 <= status < 300:
            delivery["state"] = "delivered"
        elif status is not None and status < 500 or len(delivery["attempts"]) > self.retries:
            delivery["state"] = "failed"
        else:
            delivery["nextAttemptMs"] = attempt["timeMs"] + int(
                self.backoff * 1000 * 2 ** (len(delivery["attempts"]) - 1)
            )
            return
        # by identity, not position: a reset or a reordered delivery may have changed the queue meanwhile
        queue = self._queues.get(url, deque())
        found = [index for index, queued in enumerate(queue) if queued is delivery]
        if found:
            del queue[found[0]]

    # serve --data-dir ----------------------------------------------------------------------------
    def log_from(self, index: int) -> list[Json]:
        """Copies of the deliveries from ``index`` on (what a change record writes of the log)."""
        with self._wake:
            return [dict(d, attempts=list(d["attempts"])) for d in self.log[index:]]

    @property
    def event_position(self) -> int:
        return self._event_ids.position

    def resume(self, deliveries: list[Json], event_position: int, seed: int) -> None:
        """Continue from a kept log: the next event ids follow on, and deliveries still pending when the
        simulator stopped are queued again (delivered at least once, as the service retries)."""
        with self._wake:
            self.log = [dict(d, attempts=list(d.get("attempts", []))) for d in deliveries]
            self._event_ids.seed = seed
            self._event_ids.position = max(self._event_ids.position, event_position)
            for delivery in self.log:
                if delivery.get("state") == "pending":
                    self._queues.setdefault(delivery["url"], deque()).append(delivery)
                    self._start(delivery["url"])
            self._wake.notify_all()

    # for tests -----------------------------------------------------------------------------------
    def deliveries(self) -> list[Json]:
        with self._wake:
            return [dict(d, attempts=list(d["attempts"])) for d in self.log]

    def wait_for(self, predicate: Any, timeout: float = 5.0) -> Json:
        """The first logged delivery matching ``predicate`` once it has been attempted, or TimeoutError."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for delivery in self.deliveries():
                if delivery["attempts"] and predicate(delivery):
                    return delivery
            time.sleep(0.005)
        raise TimeoutError(f"no matching webhook delivery within {timeout} s; {len(self.log)} logged")

    def fire(self, activity_id: str | None = None, url: str | None = None, overrides: Json | None = None) -> list[Json]:
        """Deliver now: an activity as it is, or a synthetic event; to its receivers or ``url``."""
        with self.inputs.lock:
            activity = self.inputs.store.activities.get(activity_id or "")
            if activity_id and activity is None:
                raise KeyError(f"no activity {activity_id} to deliver")
            body: Json = (
                activity.to_api()
                if activity
                else {
                    "id": self.inputs.source.uuid4(),
                    "type": "ACTIVITY_TYPE_SYNTHETIC",
                    "status": "ACTIVITY_STATUS_COMPLETED",
                }
            )
            body.update(overrides or {})
            org_id = str(body.get("organizationId") or (activity.organization_id if activity else ""))
            targets = [url] if url else self.receivers(org_id)
            raw = json.dumps(body, separators=(",", ":")).encode()
            return [self.enqueue(target, org_id, raw, "fired") for target in targets]

    def resend(self, event_id: str) -> Json:
        found = [d for d in self.log if d["eventId"] == event_id]
        if not found:
            raise KeyError(f"no logged delivery with event id {event_id}")
        first = found[0]
        return self.enqueue(
            first["url"], first["organizationId"], first["body"].encode(), "resent", event_id, first["eventType"]
        )

    def pending(self) -> list[Json]:
        with self._wake:
            return [d for q in self._queues.values() for d in q]

    def drain(self, timeout: float = 5.0, due_only: bool = False) -> list[Json]:
        """Wait for queued deliveries to finish (or, ``due_only``, those due now); returns what is left."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            now = self.inputs.clock.now_ms()
            waiting = [d for d in self.pending() if not due_only or d["nextAttemptMs"] <= now]
            if not waiting:
                break
            time.sleep(0.01)
        return self.pending()

    def reset(self) -> None:
        with self._wake:
            self.log.clear()
            self._chaos = {}
            for queue in self._queues.values():
                queue.clear()

    def close(self, timeout: float = 2.0) -> list[Json]:
        """Send what is due now, then stop the workers; returns the deliveries left (retries not yet due)."""
        left = self.drain(timeout, due_only=True)
        with self._wake:
            self._closed = True
            for queue in self._queues.values():
                queue.clear()
            self._wake.notify_all()
        return left


def checked_chaos(options: Json) -> Json:
    """The chaos options, or ValueError naming what is wrong (checked when set, not on every later delivery)."""
    if not isinstance(options, dict):
        raise ValueError("webhook chaos takes an object: drop, duplicate, reorder (booleans), delayMs (integer)")
    unknown = sorted(set(options) - {*CHAOS_FLAGS, "delayMs"})
    if unknown:
        raise ValueError(f"unknown webhook chaos options {unknown}; known: drop, duplicate, reorder, delayMs")
    for flag in CHAOS_FLAGS:
        if not isinstance(options.get(flag, False), bool):
            raise ValueError(f"webhook chaos {flag} must be a boolean, got {options[flag]!r}")
    delay = options.get("delayMs", 0)
    if isinstance(delay, bool) or not isinstance(delay, int) or not 0 <= delay <= MAX_CHAOS_DELAY_MS:
        raise ValueError(f"webhook chaos delayMs must be an integer from 0 to {MAX_CHAOS_DELAY_MS}, got {delay!r}")
    return dict(options)


def log_attempt(delivery: Json, attempt: Json) -> None:
    outcome = attempt["status"] if attempt["status"] is not None else attempt["error"]
    log.info(
        "webhook %s attempt %d to %s: %s in %s ms, %s",
        delivery["eventId"],
        len(delivery["attempts"]),
        delivery["url"],
        outcome,
        attempt["latencyMs"],
        delivery["state"],
        extra={"webhook": {"eventId": delivery["eventId"], "url": delivery["url"], **attempt}},
    )


def post(url: str, body: bytes, headers: dict[str, str], timeout_seconds: float) -> int:
    """POST and return the status; ``timeout_seconds`` bounds the connect and each read of the answer."""
    parts = urlsplit(url)
    connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = connection_class(parts.hostname or "127.0.0.1", parts.port, timeout=timeout_seconds)
    try:
        conn.request("POST", parts.path or "/", body=body, headers=headers)
        reply = conn.getresponse()
        reply.read()
        return int(reply.status)
    finally:
        conn.close()


def __getattr__(name: str) -> object:
    if name == "Host":  # its name in 0.3: "host" is the HTTP Host a request names (simulator/server/host_check.py)
        import warnings

        warnings.warn("simulator.webhooks.deliveries.Host is now DeliveryInputs", DeprecationWarning, stacklevel=2)
        return DeliveryInputs
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
