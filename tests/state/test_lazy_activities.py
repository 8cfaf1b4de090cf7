"""A loaded document's settled activities are decoded when first read (``codec.LazyActivity``): a start with
10,000 of them on disk decodes none. Read, copied, snapshotted, exported or written, each is the activity an
eager decoding gives."""

from __future__ import annotations

import json
import threading
from typing import Any

from conftest import DEFAULTS, ETH_ACCOUNT
from support import submit_in_process as submit

from simulator import Config, Simulator
from simulator.state import codec
from simulator.state.activity import Activity

ORG = DEFAULTS["organizationId"]


def signed_state() -> dict[str, Any]:
    sim = Simulator(Config(seed=5, timestamp_window_ms=None))
    made = submit(sim, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH_ACCOUNT]})
    address = made["activity"]["result"]["createWalletResult"]["addresses"][0]
    for n in range(3):
        parameters = {
            "signWith": address,
            "payload": n.to_bytes(32, "big").hex(),
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        }
        submit(sim, "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters)
    document: dict[str, Any] = json.loads(json.dumps(sim.export_kept_state()))
    return document


def loaded(document: dict[str, Any]) -> Simulator:
    sim = Simulator(Config(seed=5, timestamp_window_ms=None))
    sim.import_kept_state(json.loads(json.dumps(document)))
    return sim


def eager(value: dict[str, Any]) -> Activity:
    made = codec.build_now(json.loads(json.dumps(value)))
    assert type(made) is Activity
    return made


def fields(activity: Activity) -> dict[str, Any]:
    return {name: getattr(activity, name) for name in Activity.__slots__}


def test_settled_activities_load_undecoded_and_read_as_eagerly_decoded_ones():
    document = signed_state()
    sim = loaded(document)
    activities = sim.store.activities
    assert activities and all(type(a) is codec.LazyActivity for a in activities.values())
    assert all(a.final and a.settled for a in activities.values())  # what the start reads decodes nothing
    assert all(a.kept() is not None for a in activities.values())
    for activity_id, activity in activities.items():
        assert fields(activity) == fields(eager(document["store"]["activities"][activity_id]))
        assert type(activity) is Activity  # decoded: the same object, an Activity again
        org_activity = sim.store.orgs[activity.organization_id].activities[activity_id]
        assert org_activity is activity  # one object in both tables
    assert sim.export_kept_state() == loaded(document).export_kept_state()


def test_a_lazy_activity_is_copied_snapshotted_and_written_as_any_other():
    document = signed_state()
    sim = loaded(document)
    snapshot = sim.snapshot()  # final activities are shared with the snapshot, lazy ones too
    sim.restore(snapshot)
    assert sim.export_kept_state()["store"] == loaded(document).export_kept_state()["store"]
    first_id, first = next(iter(sim.store.activities.items()))
    first.decided_by = "written"  # a write decodes it first: its other fields stay
    expected = fields(eager(document["store"]["activities"][first_id])) | {"decided_by": "written"}
    assert fields(first) == expected
    listed = submit(sim, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "v", "accounts": []})
    assert listed["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_threads_reading_one_lazy_activity_each_see_it_whole():
    sim = loaded(signed_state())
    activities = list(sim.store.activities.values())
    seen: list[Any] = []
    start = threading.Barrier(4)

    def read() -> None:
        start.wait()
        seen.append([(a.request, a.result_json, len(a.votes)) for a in activities])

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 4 and all(s == seen[0] for s in seen)
