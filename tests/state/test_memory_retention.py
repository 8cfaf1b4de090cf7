"""The compact activity record and the retention limit: what a long run keeps, and what it shows.

Memory is bounded by two things: each activity keeps its request text once (its intent, its
requester's vote message and timestampMs are read back from it) and, beyond
``Config.max_activities``, the oldest finished activities are forgotten, never one still waiting.
"""

from __future__ import annotations

import gc
import json
import time
import tracemalloc
from typing import Any

import pytest
from conftest import DEFAULTS, ETH_ACCOUNT, ROOT

from simulator import Config, Simulator
from simulator.errors import NotFound
from simulator.state.activity import Activity
from simulator.testing import ApiKeyStamper

ORG = DEFAULTS["organizationId"]
ROOT_KEY = DEFAULTS["apiPrivateKey"]
QUORUM = ROOT / "scenarios" / "two_of_three_quorum.yaml"
GENEROUS_BYTES = 4096  # the bench measures ~2 KiB; the first wave kept ~7 KiB per activity


def submit(sim: Simulator, op: str, kind: str, parameters: dict[str, Any]) -> dict[str, Any]:
    body = {"type": kind, "timestampMs": str(int(time.time() * 1000)), "organizationId": ORG, "parameters": parameters}
    raw = json.dumps(body).encode()
    name, value = ApiKeyStamper(ROOT_KEY).stamp(raw)
    answer: dict[str, Any] = sim.submit(op, raw, {"Content-Type": "application/json", name: value})["activity"]
    return answer


def get_activity(sim: Simulator, activity_id: str) -> dict[str, Any]:
    raw = json.dumps({"organizationId": ORG, "activityId": activity_id}).encode()
    name, value = ApiKeyStamper(ROOT_KEY).stamp(raw)
    answer: dict[str, Any] = sim.query("get_activity", raw, {"Content-Type": "application/json", name: value})[
        "activity"
    ]
    return answer


def signer(sim: Simulator) -> str:
    made = submit(sim, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "s", "accounts": [ETH_ACCOUNT]})
    address: str = made["result"]["createWalletResult"]["addresses"][0]
    return address


def sign(sim: Simulator, address: str, n: int) -> dict[str, Any]:
    parameters = {
        "signWith": address,
        "payload": n.to_bytes(32, "big").hex(),
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
    }
    return submit(sim, "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters)


# the compact record -------------------------------------------------------------------------------
def test_a_settled_activity_reads_its_intent_and_vote_from_the_one_request_text() -> None:
    sim = Simulator(Config(seed=1))
    address = signer(sim)
    answer = sign(sim, address, 7)
    stored = sim.store.activities[answer["id"]]
    assert stored.kept_intent is None and stored.kept_timestamp is None  # read back from the request
    request = json.loads(stored.request)
    assert answer["intent"] == {"signRawPayloadIntentV2": request["parameters"]}
    assert answer["timestampMs"] == request["timestampMs"]
    assert answer["votes"][0]["message"] == stored.request and stored.votes[0].message is stored.request
    assert answer["result"]["activity"]["intent"] == answer["intent"]
    assert get_activity(sim, answer["id"]) == answer


def test_a_submission_answer_owns_its_intent() -> None:
    """The answer reuses the body compaction read back (one parse, not two): a caller that changes that
    answer changes nothing the next answer shows."""
    sim = Simulator(Config(seed=1))
    address = signer(sim)
    answer = sign(sim, address, 8)
    shown = json.loads(json.dumps(answer))
    answer["intent"]["signRawPayloadIntentV2"]["payload"] = "changed"
    answer["result"]["activity"]["intent"].clear()
    assert get_activity(sim, answer["id"]) == shown
    assert get_activity(sim, answer["id"]) == shown


def test_an_intent_a_handler_changed_is_kept_as_it_was_shown() -> None:
    request = json.dumps({"type": "T", "timestampMs": "1", "organizationId": "o", "parameters": {"order": 1}})
    changed = {"someIntent": {"order": "1"}}  # the handler wrote the parameter back as a string
    activity = Activity.new("a", "o", "T", changed, fingerprint="f", created_ms=1, requester_id=None, request=request)
    activity.kept_timestamp, activity.status = "1", "ACTIVITY_STATUS_COMPLETED"
    assert not activity.compact()
    assert activity.intent == changed and activity.to_api()["intent"] == changed


def test_nulls_in_the_request_read_back_as_validation_left_them() -> None:
    request = json.dumps({"type": "T", "timestampMs": "5", "organizationId": "o", "parameters": {"a": None, "b": 2}})
    activity = Activity.new(
        "a", "o", "T", {"k": {"b": 2}}, fingerprint="f", created_ms=1, requester_id=None, request=request
    )
    activity.kept_timestamp = "5"
    assert activity.compact()
    assert activity.intent == {"k": {"b": 2}} and activity.timestamp_ms == "5"


def test_a_finished_activity_costs_at_most_a_few_kilobytes() -> None:
    sim = Simulator(Config(seed=1, auth="off"))
    address = signer(sim)
    sign(sim, address, 0)
    sim.journal.clear()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(1, 201):
            sign(sim, address, n)
        sim.journal.clear()
        gc.collect()
        per_activity = (tracemalloc.get_traced_memory()[0] - before) / 200
    finally:
        tracemalloc.stop()
    assert per_activity < GENEROUS_BYTES


# retention ----------------------------------------------------------------------------------------
def test_beyond_the_limit_the_oldest_finished_activities_are_forgotten() -> None:
    sim = Simulator(Config(seed=1, max_activities=5))
    address = signer(sim)
    made = [sign(sim, address, n) for n in range(8)]
    assert len(sim.store.activities) == 5
    assert list(sim.store.orgs[ORG].activities) == [a["id"] for a in made[3:]]
    assert get_activity(sim, made[-1]["id"])["status"] == "ACTIVITY_STATUS_COMPLETED"
    with pytest.raises(NotFound, match="no activity found"):
        get_activity(sim, made[0]["id"])
    assert made[0]["id"] not in sim.store.evaluations
    assert made[0]["fingerprint"] not in sim.store.fingerprints


def test_a_forgotten_request_sent_again_is_a_new_activity() -> None:
    sim = Simulator(Config(seed=1, max_activities=2))
    address = signer(sim)
    body = {
        "type": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        "timestampMs": str(int(time.time() * 1000)),
        "organizationId": ORG,
        "parameters": {
            "signWith": address,
            "payload": "00" * 32,
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        },
    }
    raw = json.dumps(body).encode()
    name, value = ApiKeyStamper(ROOT_KEY).stamp(raw)
    headers = {"Content-Type": "application/json", name: value}
    first = sim.submit("sign_raw_payload", raw, headers)["activity"]["id"]
    assert sim.submit("sign_raw_payload", raw, headers)["activity"]["id"] == first  # kept: the same activity
    for n in range(3):
        sign(sim, address, n + 1)
    assert sim.submit("sign_raw_payload", raw, headers)["activity"]["id"] != first


def test_an_activity_still_waiting_is_never_forgotten() -> None:
    sim = Simulator(Config(seed=1, scenarios=(QUORUM,), max_activities=2))
    waiting = submit(sim, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w0", "accounts": []})
    assert waiting["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    for n in range(1, 4):
        submit(sim, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": f"w{n}", "accounts": []})
    assert waiting["id"] in sim.store.activities  # everything waits here, so nothing can go
    assert len(sim.store.activities) == 4
    approved = sim.approve(waiting["id"], "Bob")["activity"]
    assert approved["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_the_limit_is_checked() -> None:
    with pytest.raises(ValueError, match="max_activities must be at least 1"):
        Config(max_activities=0)
    assert Config().max_activities == 50_000
    assert Simulator(Config(max_activities=None)).store.retention.limit is None
