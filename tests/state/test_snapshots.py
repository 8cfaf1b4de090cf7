"""Snapshots, restores, exports and imports of the state; the mnemonic stream; ordered activity pages.

Snapshots share what never changes (strings, finished activities) and copy the rest: these tests
change the live state after a snapshot in every way that matters and check the snapshot did not
move, and that an export written in pieces is the control API's JSON byte for byte.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from bip_utils import Bip39MnemonicValidator, Bip39SeedGenerator  # type: ignore[import-untyped]
from conftest import DEFAULTS, ETH_ACCOUNT, ROOT
from support import eth_address_of

from simulator import Config, Simulator, create_app
from simulator.errors import InvalidArgument
from simulator.model import mnemonic_pool
from simulator.queries.pagination import paginate
from simulator.testing import ApiKeyStamper

ORG = DEFAULTS["organizationId"]
ROOT_KEY = DEFAULTS["apiPrivateKey"]
FROZEN_MS = 1_700_000_000_000
QUORUM = ROOT / "scenarios" / "two_of_three_quorum.yaml"
BOB_KEY = "b0b0000000000000000000000000000000000000000000000000000000000001"


def call(sim: Simulator, kind: str, op: str, body: dict[str, Any], key: str = ROOT_KEY) -> dict[str, Any]:
    raw = json.dumps(body).encode()
    name, value = ApiKeyStamper(key).stamp(raw)
    headers = {"Content-Type": "application/json", name: value}
    return sim.submit(op, raw, headers) if kind == "submit" else sim.query(op, raw, headers)


def activity(sim: Simulator, op: str, kind: str, parameters: dict[str, Any], key: str = ROOT_KEY) -> dict[str, Any]:
    stamp = str(sim.clock.now_ms() if sim.config.frozen_clock_ms else int(time.time() * 1000))
    body = {"type": kind, "timestampMs": stamp, "organizationId": ORG, "parameters": parameters}
    answer: dict[str, Any] = call(sim, "submit", op, body, key)["activity"]
    return answer


def wallet(sim: Simulator, name: str) -> dict[str, Any]:
    return activity(
        sim, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": name, "accounts": [ETH_ACCOUNT]}
    )


def sign(sim: Simulator, address: str, n: int) -> dict[str, Any]:
    parameters = {
        "signWith": address,
        "payload": n.to_bytes(32, "big").hex(),
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
    }
    return activity(sim, "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters)


def state_text(sim: Simulator) -> str:
    return json.dumps(sim.export_state(), sort_keys=True)


def busy_simulator(config: Config | None = None) -> Simulator:
    sim = Simulator(config or Config(seed=3))
    made = wallet(sim, "first")
    address = made["result"]["createWalletResult"]["addresses"][0]
    for n in range(5):
        sign(sim, address, n)
    return sim


# snapshots and restores -------------------------------------------------------------------------
def test_a_snapshot_does_not_move_when_the_live_state_changes() -> None:
    sim = busy_simulator()
    before = state_text(sim)
    snapshot = sim.snapshot()
    wallet(sim, "second")
    org = sim.store.orgs[ORG]
    first = next(w for w in org.wallets.values() if w.name == "first")
    first.name, first.accounts[0].exported = "renamed", True
    org.users[DEFAULTS["userId"]].name = "someone else"
    sim.restore(snapshot)
    assert state_text(sim) == before
    wallet(sim, "third")  # the restored state is a copy: changing it leaves the snapshot as taken
    sim.restore(snapshot)
    assert state_text(sim) == before


def test_a_waiting_activity_is_copied_and_a_finished_one_shared() -> None:
    sim = Simulator(Config(seed=5, scenarios=(QUORUM,)))
    waiting = wallet(sim, "shared")
    assert waiting["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    snapshot = sim.snapshot()
    live = sim.store.activities[waiting["id"]]
    kept = snapshot[0].activities[waiting["id"]]  # type: ignore[index]
    assert kept is not live and kept.votes is not live.votes
    assert kept is snapshot[0].orgs[ORG].activities[waiting["id"]]  # type: ignore[index]
    sim.approve(waiting["id"], "Bob")
    assert sim.store.activities[waiting["id"]].status == "ACTIVITY_STATUS_COMPLETED"
    sim.restore(snapshot)
    restored = sim.store.activities[waiting["id"]]
    assert restored.status == "ACTIVITY_STATUS_CONSENSUS_NEEDED" and len(restored.votes) == 1
    assert restored is sim.store.orgs[ORG].activities[waiting["id"]]
    approved = call_vote(sim, waiting["id"], restored.fingerprint)
    assert approved["status"] == "ACTIVITY_STATUS_COMPLETED"
    finished = sim.snapshot()
    assert finished[0].activities[waiting["id"]] is sim.store.activities[waiting["id"]]  # type: ignore[index]


def call_vote(sim: Simulator, activity_id: str, fingerprint: str) -> dict[str, Any]:
    body = {
        "type": "ACTIVITY_TYPE_APPROVE_ACTIVITY",
        "timestampMs": str(int(time.time() * 1000)),
        "organizationId": ORG,
        "parameters": {"fingerprint": fingerprint},
    }
    answer: dict[str, Any] = call(sim, "submit", "approve_activity", body, BOB_KEY)["activity"]
    assert answer["id"] == activity_id
    return answer


def test_reset_after_many_activities_restores_ids_and_mnemonics() -> None:
    def run(sim: Simulator) -> list[str]:
        made = [wallet(sim, f"w{n}") for n in range(3)]
        words = [w.mnemonic for w in sim.store.orgs[ORG].wallets.values()]
        return [a["id"] for a in made] + words

    sim = Simulator(Config(seed=11, frozen_clock_ms=FROZEN_MS))
    first = run(sim)
    sim.reset()
    assert run(sim) == first
    assert run(Simulator(Config(seed=11, frozen_clock_ms=FROZEN_MS))) == first
    assert run(Simulator(Config(seed=12, frozen_clock_ms=FROZEN_MS)))[3:] != first[3:]


# exports and imports ------------------------------------------------------------------------------
def test_the_streamed_export_is_the_control_apis_json_byte_for_byte() -> None:
    sim = busy_simulator()
    app = create_app(sim)
    with app.app_context():
        response: Any = app.json.response(sim.export_state())
        expected = response.get_data(as_text=True)
    assert "".join(sim.export_state_chunks()) == expected


def test_export_and_import_round_trip() -> None:
    sim = busy_simulator()
    document = json.loads("".join(sim.export_state_chunks()))
    other = Simulator(Config(seed=99))
    other.import_state(document)
    assert state_text(other) == state_text(sim)
    [one] = [a for a in sim.store.activities.values() if a.activity_type.endswith("SIGN_RAW_PAYLOAD_V2")][:1]
    imported = other.store.activities[one.activity_id]
    assert imported.to_api("x") == one.to_api("x")
    assert imported.votes[0].message is imported.request  # the request text is kept once again
    assert imported is other.store.orgs[ORG].activities[one.activity_id]


def test_an_export_taken_while_a_wallet_waits_for_votes_imports_and_the_wallet_completes() -> None:
    """The wallet's seed, prepared ahead, is not state: the export leaves it out, and the handler
    derives it when the approval comes in the importing simulator."""
    sim = Simulator(Config(seed=5, scenarios=(QUORUM,)))
    waiting = wallet(sim, "shared")
    assert waiting["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    other = Simulator(Config(seed=5, scenarios=(QUORUM,)))
    other.import_state(json.loads("".join(sim.export_state_chunks())))
    approved = other.approve(waiting["id"], "Bob")["activity"]
    assert approved["status"] == "ACTIVITY_STATUS_COMPLETED"
    address = approved["result"]["createWalletResult"]["addresses"][0]
    assert sim.approve(waiting["id"], "Bob")["activity"]["result"]["createWalletResult"]["addresses"][0] == address


def older_document(document: dict[str, Any], sim: Simulator) -> dict[str, Any]:
    """``document`` as the first wave exported it: activities in full (intent, result, votes as the
    wire shows them) under the store and again under their organization, no mnemonic stream."""
    store = dict(document["store"])
    store.pop("mnemonic_stream")
    older = {key: older_activity(sim.store.activities[key]) for key in store["activities"]}
    store["activities"] = older
    store["evaluations"] = {
        key: [e.to_api() for e in evaluations] for key, evaluations in sim.store.evaluations.items()
    }
    store["orgs"] = {org_id: {**org, "activities": {k: older[k] for k in org["activities"]["__activity_ids__"]}}
                     for org_id, org in store["orgs"].items()}  # fmt: skip
    return {**document, "store": store}


def older_activity(a: Any) -> dict[str, Any]:
    return {
        "__type__": "Activity",
        "activity_id": a.activity_id,
        "organization_id": a.organization_id,
        "activity_type": a.activity_type,
        "intent": a.intent,
        "fingerprint": a.fingerprint,
        "timestamp_ms": a.timestamp_ms,
        "created_ms": a.created_ms,
        "requester_id": a.requester_id,
        "status": a.status,
        "result": a.result,
        "votes": [v.to_api() for v in a.votes],
        "app_proofs": [],
        "failure": a.failure,
        "updated_ms": a.updated_ms,
        "pending": None,
        "decided_by": a.decided_by,
        "notes": [],
    }


def test_a_document_of_the_first_wave_still_imports() -> None:
    sim = busy_simulator()
    older = older_document(sim.export_state(), sim)
    other = Simulator(Config(seed=4))
    other.import_state(json.loads(json.dumps(older)))
    for activity_id, original in sim.store.activities.items():
        imported = other.store.activities[activity_id]
        assert imported.to_api("viewer") == original.to_api("viewer")
        assert other.store.orgs[ORG].activities[activity_id] is imported
    assert other.store.mnemonic_stream.key  # seeded anew: new wallets still get mnemonics
    assert wallet(other, "after import")["status"] == "ACTIVITY_STATUS_COMPLETED"


# the mnemonic stream ----------------------------------------------------------------------------------
def test_pool_draws_the_same_mnemonics_in_order_with_or_without_the_worker() -> None:
    key = mnemonic_pool.stream_key(21)
    quick_stream, slow_stream = stream(key), stream(key)
    quick = mnemonic_pool.MnemonicPool(lambda: quick_stream, ahead=8)
    slow = mnemonic_pool.MnemonicPool(lambda: slow_stream, ahead=0)
    drawn = [quick.take(), quick.take(24), quick.take()]
    assert [slow.take(), slow.take(24), slow.take()] == drawn
    for words, (mnemonic, seed) in zip((12, 24, 12), drawn):
        assert len(mnemonic.split()) == words
        assert Bip39MnemonicValidator().IsValid(mnemonic)
        assert bytes(Bip39SeedGenerator(mnemonic).Generate()) == seed  # checked by an independent BIP-39


def stream(key: str) -> Any:
    from simulator.state.store import MnemonicStream

    return MnemonicStream(key)


def test_create_wallet_addresses_come_from_the_pools_mnemonic() -> None:
    sim = Simulator(Config(seed=8))
    made = wallet(sim, "pooled")
    stored = sim.store.orgs[ORG].wallets[made["result"]["createWalletResult"]["walletId"]]
    assert made["result"]["createWalletResult"]["addresses"] == [eth_address_of(stored.mnemonic)]  # bip_utils' BIP-44


# ordered pages of activities ---------------------------------------------------------------------------
def reference_page(activities: list[Any], body: dict[str, Any]) -> list[str]:
    """The first wave's list_activities: sort everything, filter, then paginate."""
    newest = sorted(activities, key=lambda a: (a.created_ms, a.activity_id), reverse=True)
    statuses, types = set(body.get("filterByStatus") or []), set(body.get("filterByType") or [])
    matching = [a for a in newest if (not statuses or a.status in statuses) and (not types or a.activity_type in types)]
    return [a.activity_id for a in paginate(matching, body.get("paginationOptions"), key=lambda a: a.activity_id)]


def test_list_activities_pages_as_before_even_when_the_clock_went_back() -> None:
    sim = Simulator(Config(seed=2, liveness_clock="real"))
    made = wallet(sim, "signer")
    address = made["result"]["createWalletResult"]["addresses"][0]
    for n in range(14):
        sign(sim, address, n)
        if n == 6:
            sim.clock.advance(-60)  # later activities are older by the clock: no longer appended in order
    everything = list(sim.store.orgs[ORG].activities.values())
    ids = [a.activity_id for a in sorted(everything, key=lambda a: (a.created_ms, a.activity_id))]
    sign_type = ["ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"]
    for options in ({}, {"limit": "3"}, {"after": ids[9]}, {"before": ids[4], "limit": "2"}, {"after": ids[-1]}):
        for filters in ({}, {"filterByType": sign_type}, {"filterByStatus": ["ACTIVITY_STATUS_FAILED"]}):
            body = {"organizationId": ORG, "paginationOptions": options, **filters}
            if filters.get("filterByStatus") and options.get("after", options.get("before")):
                continue  # a cursor outside the filtered list is refused, as below
            page = [a["id"] for a in call(sim, "query", "list_activities", body)["activities"]]
            assert page == reference_page(everything, body), (options, filters)


def test_a_cursor_outside_the_filtered_list_is_refused_as_before() -> None:
    sim = busy_simulator()
    cursor = next(iter(sim.store.orgs[ORG].activities))
    body = {
        "organizationId": ORG,
        "paginationOptions": {"after": cursor},
        "filterByStatus": ["ACTIVITY_STATUS_FAILED"],
    }
    with pytest.raises(InvalidArgument, match="invalid pagination cursor after="):
        call(sim, "query", "list_activities", body)
