"""The base written in pieces from the live state (``kept_base``) and the activities held in their kept form: a
fold writes the state the records make, a start holds each settled activity as its bytes and each evaluation
tuple as its bytes, and an activity settled while serving is held so once its record is written; read, each is
the activity an eager decoding gives, and exports stay byte for byte."""

from __future__ import annotations

import json
import shutil
from typing import Any

import orjson
from conftest import ETH_ACCOUNT, ROOT, ok
from support import submit_in_process

from simulator import Config, Simulator, SimulatorServer
from simulator.datadir import files, kept_base
from simulator.datadir.watchers import FieldWatch
from simulator.state import codec
from simulator.state.activity import Activity
from simulator.state.lazy_activity import KeptEvaluations, LazyActivity
from simulator.testing import ApiKeyStamper, SimulatorClient

QUORUM = ROOT / "scenarios" / "two_of_three_quorum.yaml"


def client_of(server: SimulatorServer) -> SimulatorClient:
    creds = server.simulator.credentials[0]
    return SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])


def signatures(client: SimulatorClient, count: int, name: str = "signer") -> None:
    made = ok(
        client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": name, "accounts": [ETH_ACCOUNT]})
    )
    address = made["activity"]["result"]["createWalletResult"]["addresses"][0]
    for n in range(count):
        parameters = {
            "signWith": address,
            "payload": n.to_bytes(32, "big").hex(),
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        }
        ok(client.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters))


def export_text(sim: Simulator) -> str:
    return "".join(sim.export_state_chunks())


def restarted(document: Any) -> Any:
    fresh = Simulator(Config(seed=1))
    fresh.import_kept_state(document)
    return fresh.export_kept_state()


def test_the_export_head_is_the_simulators():
    sim = Simulator(Config(seed=3))
    assert tuple((name, value) for name, value, _codec in sim._export()[:3]) == kept_base.EXPORT_HEAD


def test_a_settled_activity_is_held_as_its_record_wrote_it_and_reads_and_exports_the_same(tmp_path):
    with SimulatorServer(config=Config(seed=41, data_dir=tmp_path / "data")) as server:
        client = client_of(server)
        signatures(client, 3)
        sim = server.simulator
        with sim.lock:
            held = [a for a in sim.store.activities.values() if type(a) is LazyActivity]
            before = export_text(sim)
        assert len(held) == 4  # the wallet and the three signatures: settled, their records written
        assert all(isinstance(a.kept().data, bytes) for a in held)  # type: ignore[union-attr]
        one = held[-1]
        answer = ok(client.query("get_activity", activityId=one.activity_id))
        assert answer["activity"]["id"] == one.activity_id and answer["activity"]["status"] == one.status
        assert type(one) is Activity  # read: the same object, decoded
        assert export_text(sim) == before  # byte for byte, lazy or decoded


def test_a_fold_writes_the_state_the_records_make_and_a_start_decodes_nothing(tmp_path):
    data = tmp_path / "data"
    with SimulatorServer(config=Config(seed=42, data_dir=data, scenarios=(QUORUM,))) as server:
        client = client_of(server)
        ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "a", "accounts": []}))
        with server.simulator.lock:
            last = restarted(server.simulator.export_kept_state())
            text = export_text(server.simulator)
    payload = (data / files.BASE).read_bytes()
    assert kept_base.is_kept_base(payload) and files.exact(payload)
    json.loads(payload)  # one JSON document still: any JSON tool reads it
    loaded = files.load(data)
    assert loaded.document is not None
    assert restarted(loaded.document) == last
    with SimulatorServer(config=Config(data_dir=data)) as again:
        sim = again.simulator
        activities = list(sim.store.activities.values())
        assert all(type(a) is LazyActivity for a in activities if a.settled)
        assert any(not a.settled for a in activities)  # the quorum's waiting activity: decoded at the start
        assert all(type(e) is KeptEvaluations for e in sim.store.evaluations.values())
        with sim.lock:
            assert export_text(sim) == text
        assert all(type(a) is LazyActivity for a in activities if a.settled)  # exported without decoding


def test_kept_evaluations_read_as_the_tuple_they_hold():
    sim = Simulator(Config(seed=43, timestamp_window_ms=None))
    submit_in_process(sim, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []})
    entry = next(iter(sim.store.evaluations.values()))
    kept = KeptEvaluations(orjson.dumps(codec.encode(entry)))
    assert tuple(kept) == entry and len(kept) == len(entry) and kept[0] == entry[0]
    assert codec.encode(kept) == codec.encode(entry)


def test_a_directory_an_earlier_release_wrote_is_folded_into_the_new_layout(tmp_path):
    """A base of format 2 (documents in full) loads as before; its first fold writes format 3, the same state."""
    source = ROOT / "tests" / "compat" / "data_dirs" / "0.2.0-orjson"
    data = tmp_path / "data"
    shutil.copytree(source, data)
    before = restarted(files.load(data).document)
    with SimulatorServer(config=Config(data_dir=data)) as server:
        client = client_of(server)
        ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "new", "accounts": []}))
        with server.simulator.lock:
            last = restarted(server.simulator.export_kept_state())
    assert kept_base.is_kept_base((data / files.BASE).read_bytes())
    assert restarted(files.load(data).document) == last
    assert set(before["store"]["activities"]) <= set(last["store"]["activities"])


def test_a_value_orjson_would_write_otherwise_makes_the_fold_write_the_whole_document(tmp_path, monkeypatch):
    monkeypatch.setattr(FieldWatch, "verify", False)
    data = tmp_path / "data"
    with SimulatorServer(config=Config(seed=44, data_dir=data)) as server:
        client = client_of(server)
        signatures(client, 1)
        org_id = server.simulator.credentials[0]["organizationId"]
        with server.simulator.lock:
            server.simulator.store.orgs[org_id].root_threshold = float("nan")  # type: ignore[assignment]
    base = (data / files.BASE).read_bytes()
    assert not kept_base.is_kept_base(base) and b"NaN" in base  # json wrote it, as before


def test_activities_an_earlier_release_wrote_are_held_as_bytes_after_the_first_fold(tmp_path):
    source = ROOT / "tests" / "compat" / "data_dirs" / "0.2.0-orjson"
    data = tmp_path / "data"
    shutil.copytree(source, data)
    with SimulatorServer(config=Config(data_dir=data)) as server:
        sim = server.simulator
        lazy = [a for a in sim.store.activities.values() if type(a) is LazyActivity]
        assert lazy and all(isinstance(a.kept().data, dict) for a in lazy)  # type: ignore[union-attr]
        writer = server._writer
        assert writer is not None
        writer.fold()  # what a log past the base's size runs
        with sim.lock:
            assert all(isinstance(a.kept().data, bytes) for a in lazy if type(a) is LazyActivity)  # type: ignore[union-attr]
