"""Webhooks as a delivery system: the timeout, at-least-once with one event id, every attempt
logged, the retry budget and resend, and a slow receiver that delays only its own queue.

Each test runs its own Simulator (no HTTP server needed to send webhooks) with short timeouts;
retries wait on the simulator clock, so the tests move it instead of sleeping.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
from collections.abc import Iterator

import pytest
from conftest import DEFAULTS
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey
from pytest_httpserver import HTTPServer
from werkzeug.wrappers import Request, Response

from simulator import Config, Simulator
from simulator.cli import config_from, parser
from simulator.pytest_plugin import http_receiver
from simulator.testing import ApiKeyStamper, InProcessClient
from simulator.web.app import create_app


@pytest.fixture
def receivers() -> Iterator[list[HTTPServer]]:
    started: list[HTTPServer] = []
    yield started
    for server in started:
        server.clear()
        server.stop()


def receiver(receivers: list[HTTPServer], handler) -> tuple[HTTPServer, str]:
    server = http_receiver(threaded=True)  # a slow answer must not hold up the test
    server.expect_request("/hook", method="POST").respond_with_handler(handler)
    server.start()
    receivers.append(server)
    return server, server.url_for("/hook")


def simulator(**settings) -> Simulator:
    return Simulator(Config(seed=3, **settings))


def wait_until(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def verified_with_nacl(request: Request, jwks: dict) -> bool:
    """The receiver's check, done with PyNaCl (not the simulator's code)."""
    key = next(k for k in jwks["keys"] if k["kid"] == request.headers["X-Turnkey-Signature-Key-Id"])
    verify_key = VerifyKey(base64.urlsafe_b64decode(key["x"] + "=="))
    h = request.headers
    signed = f"v1.ed25519.{key['kid']}.{h['X-Turnkey-Timestamp']}.{h['X-Turnkey-Event-Id']}.".encode()
    try:
        verify_key.verify(signed + request.get_data(), bytes.fromhex(h["X-Turnkey-Signature"]))
        return True
    except BadSignatureError:
        return False


def test_the_default_timeout_is_long_and_serve_sets_it():
    assert Config().webhook_timeout_seconds >= 10
    assert config_from(parser().parse_args(["serve", "--webhook-timeout", "2.5"])).webhook_timeout_seconds == 2.5
    with pytest.raises(ValueError, match="positive"):
        Config(webhook_timeout_seconds=0)


def test_a_receiver_slower_than_two_seconds_but_within_the_timeout_gets_each_event_once(receivers):
    def slow_ok(request: Request) -> Response:
        time.sleep(2.2)
        return Response("ok")

    server, url = receiver(receivers, slow_ok)
    sim = simulator(webhook_timeout_seconds=4, webhook_backoff_seconds=0.05)  # a retry would come at once
    try:
        sim.store.org(DEFAULTS["organizationId"]).features["FEATURE_NAME_WEBHOOK"] = url
        app = create_app(sim)
        client = InProcessClient(app, ApiKeyStamper(DEFAULTS["apiPrivateKey"]), DEFAULTS["organizationId"])
        made = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []})
        delivered = sim.webhooks.wait_for(lambda d: d["state"] == "delivered", timeout=5)
        time.sleep(0.3)  # room for a wrong retry to show up
        assert len(server.log) == 1 and len(sim.webhooks.deliveries()) == 1
        assert [(a["status"], a["error"]) for a in delivered["attempts"]] == [(200, None)]
        assert delivered["attempts"][0]["latencyMs"] > 2000
        request = server.log[0][0]
        assert json.loads(request.get_data())["id"] == made.body["activity"]["id"]
        assert request.headers["X-Turnkey-Event-Id"] == delivered["eventId"]
        assert verified_with_nacl(request, app.test_client().get("/public/v1/discovery/webhooks/jwks").get_json())
    finally:
        sim.close()


def test_an_answer_past_the_timeout_is_retried_with_the_same_event_id(receivers):
    calls = []

    def slow_first(request: Request) -> Response:
        calls.append(request.headers["X-Turnkey-Event-Id"])
        if len(calls) == 1:
            time.sleep(0.6)  # the receiver still handles it: hence at-least-once
        return Response("ok")

    server, url = receiver(receivers, slow_first)
    sim = simulator(webhook_timeout_seconds=0.2, webhook_backoff_seconds=60)
    try:
        [fired] = sim.webhooks.fire(url=url)
        first = sim.webhooks.wait_for(lambda d: d["attempts"], timeout=3)
        assert first["attempts"][0]["status"] is None and "within 0.2 s" in first["attempts"][0]["error"]
        sim.clock.advance(61)
        done = sim.webhooks.wait_for(lambda d: d["state"] == "delivered", timeout=3)
        wait_until(lambda: len(server.log) == 2)
        assert [a["status"] for a in done["attempts"]] == [None, 200]
        assert calls == [fired["eventId"], fired["eventId"]]  # one id: the receiver de-duplicates by it
    finally:
        sim.close()


def test_an_event_past_the_retry_budget_stays_failed_and_can_be_resent(receivers, caplog):
    answers = {"status": 503}
    server, url = receiver(receivers, lambda request: Response("x", status=answers["status"]))
    sim = simulator(webhook_retries=2, webhook_backoff_seconds=60)
    caplog.set_level(logging.INFO, logger="simulator.webhooks")
    try:
        [fired] = sim.webhooks.fire(url=url)
        for attempts, move in ((1, 0), (2, 61), (3, 121)):
            sim.clock.advance(move)
            sim.webhooks.wait_for(lambda d, n=attempts: len(d["attempts"]) >= n, timeout=3)
        failed = sim.webhooks.wait_for(lambda d: d["state"] == "failed", timeout=3)
        assert [a["status"] for a in failed["attempts"]] == [503, 503, 503]
        sim.clock.advance(3600)
        time.sleep(0.1)
        assert len(server.log) == 3 and sim.webhooks.pending() == []
        logged = [r for r in caplog.records if getattr(r, "webhook", {}).get("eventId") == fired["eventId"]]
        assert [r.webhook["status"] for r in logged] == [503, 503, 503] and "failed" in logged[-1].getMessage()

        answers["status"] = 200
        resent = sim.webhooks.resend(fired["eventId"])
        assert resent["eventId"] == fired["eventId"] and resent["reason"] == "resent"
        sim.webhooks.wait_for(lambda d: d["reason"] == "resent" and d["state"] == "delivered", timeout=3)
        states = [(d["reason"], d["state"]) for d in sim.webhooks.deliveries()]
        assert states == [("fired", "failed"), ("resent", "delivered")]
        assert {r.headers["X-Turnkey-Event-Id"] for r, _ in server.log} == {fired["eventId"]}
    finally:
        sim.close()


def test_a_slow_receiver_delays_only_its_own_queue(receivers):
    release = threading.Event()

    def held(request: Request) -> Response:
        release.wait(timeout=5)
        return Response("ok")

    slow_server, slow = receiver(receivers, held)
    fast_server, fast = receiver(receivers, lambda request: Response("ok"))
    sim = simulator(webhook_timeout_seconds=10)
    try:
        slow_events = [sim.webhooks.fire(url=slow)[0] for _ in range(2)]
        fast_events = [sim.webhooks.fire(url=fast)[0] for _ in range(3)]
        wait_until(lambda: len(fast_server.log) == 3, timeout=3)

        def fast_delivered() -> bool:  # the receiver logs a request before the worker reads the answer
            states = {d["eventId"]: d["state"] for d in sim.webhooks.deliveries()}
            return all(states[e["eventId"]] == "delivered" for e in fast_events)

        wait_until(fast_delivered, timeout=3)
        by_id = {d["eventId"]: d for d in sim.webhooks.deliveries()}
        assert all(by_id[e["eventId"]]["state"] == "delivered" for e in fast_events)
        assert [by_id[e["eventId"]]["state"] for e in slow_events] == ["pending", "pending"]
        assert not release.is_set() and len(slow_server.log) == 0  # the slow one is still holding its first
        release.set()
        wait_until(lambda: len(slow_server.log) == 2, timeout=5)
        sim.webhooks.wait_for(lambda d: d["eventId"] == slow_events[1]["eventId"] and d["state"] == "delivered")
    finally:
        release.set()
        sim.close()


def test_a_reset_during_an_attempt_does_not_lose_the_next_event(receivers):
    release = threading.Event()
    seen = []

    def first_held(request: Request) -> Response:
        seen.append(json.loads(request.get_data())["id"])
        if len(seen) == 1:
            release.wait(timeout=5)
        return Response("ok")

    server, url = receiver(receivers, first_held)
    sim = simulator()
    try:
        sim.webhooks.fire(url=url, overrides={"id": "before-reset"})
        wait_until(lambda: len(seen) == 1)
        sim.webhooks.reset()  # while the first attempt is still on the wire
        sim.webhooks.fire(url=url, overrides={"id": "after-reset"})
        release.set()
        sim.webhooks.wait_for(lambda d: d["state"] == "delivered", timeout=3)
        assert seen == ["before-reset", "after-reset"]
    finally:
        release.set()
        sim.close()


def event_ids_over_resets(receivers, resets: int) -> tuple[list[str], set[str]]:
    """The event ids a seeded run delivers, one wallet per reset, and every id the state holds."""
    server, url = receiver(receivers, lambda request: Response("ok"))
    sim = simulator(webhook_backoff_seconds=0.05)
    ids: list[str] = []
    resource_ids: set[str] = set()
    try:
        for _ in range(resets):
            sim.store.org(DEFAULTS["organizationId"]).features["FEATURE_NAME_WEBHOOK"] = url
            client = InProcessClient(
                create_app(sim), ApiKeyStamper(DEFAULTS["apiPrivateKey"]), DEFAULTS["organizationId"]
            )
            made = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []})
            activity = made.body["activity"]
            resource_ids |= {activity["id"], activity["result"]["createWalletResult"]["walletId"]}
            wait_until(
                lambda: sim.webhooks.deliveries() and all(d["state"] == "delivered" for d in sim.webhooks.deliveries())
            )
            ids += [d["eventId"] for d in sim.webhooks.deliveries()]
            resource_ids |= set(json.dumps(sim.export_state()).replace('"', " ").split())
            sim.reset()
    finally:
        sim.close()
    return ids, resource_ids


def test_event_ids_never_repeat_across_resets_and_never_equal_a_resource_id(receivers):
    """A receiver that keeps its de-duplication store across a suite's tests drops nothing: a reset
    restores the seeded source (so the same wallet ids come back) but not the event ids."""
    ids, resource_ids = event_ids_over_resets(receivers, 3)
    assert len(set(ids)) == len(ids) == 3  # one event per wallet (it completes at once), none twice
    assert not set(ids) & resource_ids


def test_event_ids_are_reproducible_for_a_fresh_process_with_the_same_seed(receivers):
    first, _ = event_ids_over_resets(receivers, 1)
    again, _ = event_ids_over_resets(receivers, 1)
    assert first == again
