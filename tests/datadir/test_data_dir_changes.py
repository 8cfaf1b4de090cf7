"""serve --data-dir writes what changed, not the state: a directory read back (its base and every change
record) is, after each step of a mixed load, the very state the serving simulator holds."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
import rlp  # type: ignore[import-untyped]
from conftest import ETH_ACCOUNT, ROOT, ok
from support import ClientKey, client_signature, submit_in_process

from simulator import Config, Simulator, SimulatorServer
from simulator.control.control_client import ControlClient
from simulator.datadir import files
from simulator.datadir.directory import DataDir
from simulator.datadir.tracker import ChangeTracker
from simulator.datadir.watchers import FieldWatch
from simulator.state.tables import WatchedDict, values_to_read
from simulator.testing import ApiKeyStamper, PasskeyStamper, SimulatorClient
from simulator.wire import read_json

QUORUM = ROOT / "scenarios" / "two_of_three_quorum.yaml"
BOB_KEY = "b0b0000000000000000000000000000000000000000000000000000000000001"
LATER_SCENARIO = """version: 1
organizations:
  - id: 0dd00000-0000-4000-8000-00000000a0dd
    name: Added later
    users:
      - ref: root
        id: 0dd00000-0000-4000-8000-00000000b0dd
        name: Later
        apiKeys:
          - {name: later, privateKey: "0dd0000000000000000000000000000000000000000000000000000000000001"}
"""


def held(directory: Path) -> Any:
    """What a restart would start from: the directory loaded into a new simulator, exported again."""
    loaded = files.load(directory)
    assert loaded.document is not None
    return restarted(loaded.document)


def restarted(document: Any) -> Any:
    """``document`` imported into a new simulator and exported again (an import compacts finished activities:
    the state is the same, its document may differ in that)."""
    fresh = Simulator(Config(seed=1))
    fresh.import_kept_state(document)
    return fresh.export_kept_state()


def same(server: SimulatorServer, directory: Path) -> None:
    kept, live = held(directory), restarted(server.simulator.export_kept_state())
    assert kept == live, differences(kept, live)


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two documents differ (the first few paths), for the assertion's message."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = [f"{path}/{k}: only one side" for k in a.keys() ^ b.keys()]
        for key in a.keys() & b.keys():
            found += differences(a[key], b[key], f"{path}/{key}")
        return found[:10]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")][:10]
    return [] if a == b else [f"{path}: {str(a)[:200]} != {str(b)[:200]}"]


@pytest.fixture(autouse=True)
def verified(monkeypatch):
    """Each record also compares every watched table's entries (an organization's, the store's) by signature, and
    fails on a change the tables did not note (a record changed without being fetched from its table)."""
    monkeypatch.setattr(FieldWatch, "verify", True)


@pytest.mark.parametrize(
    ("verify", "compacting"),
    [(True, False), (False, False), (False, True)],
    ids=["verified", "quick-paths", "compacting"],
)
def test_every_step_of_a_mixed_load_is_what_the_directory_holds(tmp_path, monkeypatch, verify, compacting):
    """Verified, and as served (the look's quick answers for what did not change, which verify mode skips); and
    with the log folded into the base after every record (what a long run does every few thousand): the bases
    then come from the records' encodings kept for them, and are written without being read back."""
    monkeypatch.setattr(FieldWatch, "verify", verify)
    if compacting:
        monkeypatch.setattr(DataDir, "wants_compaction", lambda self: True)
    data = tmp_path / "data"
    config = Config(seed=31, data_dir=data, max_activities=12, scenarios=(QUORUM,), auth_proxy=True)
    with SimulatorServer(config=config) as server:
        creds = server.simulator.credentials[0]
        alice = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
        bob = SimulatorClient(server.url, ApiKeyStamper(BOB_KEY), creds["organizationId"])
        control = ControlClient(server.url)
        same(server, data)
        waiting = ok(
            alice.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "q", "accounts": [ETH_ACCOUNT]})
        )
        assert waiting["activity"]["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
        same(server, data)
        approved = ok(
            bob.submit(
                "approve_activity",
                "ACTIVITY_TYPE_APPROVE_ACTIVITY",
                {"fingerprint": waiting["activity"]["fingerprint"]},
            )
        )
        assert approved["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
        same(server, data)
        ok(
            alice.submit(
                "create_policy",
                "ACTIVITY_TYPE_CREATE_POLICY_V3",
                {
                    "policyName": "alice alone",
                    "effect": "EFFECT_ALLOW",
                    "condition": "true",
                    "consensus": "true",
                    "notes": "",
                },
            )
        )
        ok(bob.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": last_fingerprint(server)}))
        client = alice
        same(server, data)
        made = ok(
            client.submit(
                "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "a", "accounts": [ETH_ACCOUNT]}
            )
        )
        same(server, data)
        wallet_id = made["activity"]["result"]["createWalletResult"]["walletId"]
        # records changed in place (fetched from their table, not stored again): each is written
        ok(client.submit("update_wallet", "ACTIVITY_TYPE_UPDATE_WALLET", {"walletId": wallet_id, "walletName": "a2"}))
        same(server, data)
        second = {**ETH_ACCOUNT, "path": "m/44'/60'/0'/0/1"}
        ok(
            client.submit(
                "create_wallet_accounts",
                "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
                {"walletId": wallet_id, "accounts": [second]},
            )
        )
        same(server, data)
        ok(
            client.submit(
                "update_user_name", "ACTIVITY_TYPE_UPDATE_USER_NAME", {"userId": creds["userId"], "userName": "al"}
            )
        )
        ok(
            client.submit(
                "create_user_tag",
                "ACTIVITY_TYPE_CREATE_USER_TAG",
                {"userTagName": "ops", "userIds": [creds["userId"]]},
            )
        )
        same(server, data)
        records = files.load(data).records
        assert records >= 1 or compacting  # compacting: the log was folded into the base after each
        size = (data / files.LOG).stat().st_size
        address = made["activity"]["result"]["createWalletResult"]["addresses"][0]
        for n in range(16):  # beyond the 12 activities kept: the oldest are evicted, and written so
            client.submit(
                "sign_raw_payload",
                "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                {
                    "signWith": address,
                    "payload": n.to_bytes(32, "big").hex(),
                    "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                    "hashFunction": "HASH_FUNCTION_NO_OP",
                },
            )
        same(server, data)
        grown = (data / files.LOG).stat().st_size - size
        assert grown < 16 * 8000, "a signature's record holds the signature's activity, not the state"
        refused = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "a2", "accounts": []})
        assert refused.status >= 400  # a refusal rewinds the random source: written as such
        ok(
            client.submit(
                "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "b", "accounts": [ETH_ACCOUNT]}
            )
        )
        same(server, data)
        policy = ok(
            client.submit(
                "create_policy",
                "ACTIVITY_TYPE_CREATE_POLICY_V3",
                {"policyName": "deny", "effect": "EFFECT_DENY", "condition": "false", "notes": ""},
            )
        )
        policy_id = policy["activity"]["result"]["createPolicyResult"]["policyId"]
        ok(client.submit("delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", {"policyId": policy_id}))
        same(server, data)
        sub = ok(
            client.submit(
                "create_sub_organization",
                "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
                {
                    "subOrganizationName": "child",
                    "rootUsers": [{"userName": "kid", "apiKeys": [], "authenticators": [], "oauthProviders": []}],
                    "rootQuorumThreshold": 1,
                },
            )
        )
        assert sub["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
        same(server, data)
        passkey = PasskeyStamper("Y3JlZC1rZXB0", "7e" * 32, origin="http://localhost:3000")
        proxy = SimulatorClient(server.proxy_url, None, "")
        config_id = next(iter(server.simulator.store.proxy_configs))
        headers = {"X-Auth-Proxy-Config-Id": config_id, "Origin": "http://localhost:3000"}
        attestation = {
            "authenticatorName": "laptop",
            "challenge": "c2lnbnVw",
            "attestation": passkey.attestation("c2lnbnVw"),
        }
        signup = {"userName": "passkey user", "apiKeys": [], "authenticators": [attestation], "oauthProviders": []}
        made = ok(proxy.post("/v1/signup", json.dumps(signup).encode(), headers))  # a sub-organization, made elsewhere
        same(server, data)
        user = SimulatorClient(server.url, passkey, made["organizationId"])
        ok(user.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "p", "accounts": [ETH_ACCOUNT]}))
        same(server, data)
        snapshot = control.snapshot()
        control.advance_clock(90)
        same(server, data)
        ok(
            client.submit(
                "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "c", "accounts": [ETH_ACCOUNT]}
            )
        )
        control.restore(snapshot)  # the store replaced as a whole: written whole
        ok(client.query("list_wallets"))
        same(server, data)
        ok(
            client.submit(
                "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "d", "accounts": [ETH_ACCOUNT]}
            )
        )
        same(server, data)
        later = tmp_path / "later.yaml"
        later.write_text(LATER_SCENARIO, encoding="utf-8")
        control.load_scenarios([later], replace=False)  # the simulator's credentials added to, the same list
        same(server, data)
        control.reset()
        same(server, data)
        last = restarted(server.simulator.export_kept_state())
    assert held(data) == last  # a clean stop folds the log into the base
    assert not (data / files.LOG).exists() or (data / files.LOG).stat().st_size == 0


def test_changes_made_in_process_are_kept_at_a_clean_stop(tmp_path):
    data = tmp_path / "data"
    with SimulatorServer(config=Config(seed=32, data_dir=data, timestamp_window_ms=None)) as server:
        server.simulator.clock.advance(3600)
        creds = server.simulator.credentials[0]
        stamper = ApiKeyStamper(creds["apiPrivateKey"])
        body = {
            "type": "ACTIVITY_TYPE_CREATE_WALLET",
            "timestampMs": str(server.simulator.clock.now_ms()),
            "organizationId": creds["organizationId"],
            "parameters": {"walletName": "in-process", "accounts": [ETH_ACCOUNT]},
        }
        raw = json.dumps(body).encode()
        name, value = stamper.stamp(raw)
        server.simulator.submit("create_wallet", raw, {"Content-Type": "application/json", name: value})
        last = restarted(server.simulator.export_kept_state())
    assert held(data) == last


def last_fingerprint(server: SimulatorServer) -> str:
    return str(server.simulator.store.activities.ordered()[-1].fingerprint)


def test_the_webhook_delivery_log_and_the_next_event_ids_survive_a_restart(tmp_path, httpserver):
    """Deliveries made before the restart are in the log after it; the next event's id is one not given before."""
    httpserver.expect_request("/hook").respond_with_data("ok")
    data = tmp_path / "data"
    with SimulatorServer(config=Config(seed=33, data_dir=data)) as server:
        creds = server.simulator.credentials[0]
        client = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
        ok(
            client.submit(
                "set_organization_feature",
                "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
                {"name": "FEATURE_NAME_WEBHOOK", "value": httpserver.url_for("/hook")},
            )
        )
        ok(
            client.submit(
                "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "h", "accounts": [ETH_ACCOUNT]}
            )
        )
        hooks = server.simulator.webhooks
        assert not hooks.drain(timeout=30), "deliveries still pending"
        assert {d["state"] for d in hooks.deliveries()} == {"delivered"}
        before = hooks.deliveries()
    assert held(data)["webhooks"]["deliveries"] == before  # the stop wrote what the deliveries became meanwhile
    with SimulatorServer(config=Config(data_dir=data)) as again:
        hooks = again.simulator.webhooks
        assert hooks.deliveries() == before
        creds = again.simulator.credentials[0]
        client = SimulatorClient(again.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
        ok(
            client.submit(
                "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "i", "accounts": [ETH_ACCOUNT]}
            )
        )
        after = hooks.wait_for(lambda d: d["state"] == "delivered" and d not in before, timeout=30)
    assert after["eventId"] not in {d["eventId"] for d in before}


PROXY_SCENARIO = ROOT / "tests" / "scenarios" / "auth_proxy.yaml"


def test_the_outbox_and_the_spent_tokens_are_written_as_they_grow(tmp_path):
    """Each OTP sent adds its message to a record, and a verification token spent its id: not the whole outbox
    nor every spent id again. Both grow over a directory's days; compared and written whole, a record cost
    2.7 ms with 1,000 messages sent and grew by each message ever sent."""
    data = tmp_path / "data"
    with SimulatorServer(config=Config(seed=7, data_dir=data, scenarios=(PROXY_SCENARIO,))) as server:
        proxy = SimulatorClient(server.proxy_url, None, "")
        headers = {"X-Auth-Proxy-Config-Id": "proxy-config-1", "Origin": "http://localhost:3000"}

        def call(op: str, body: dict[str, Any]) -> Any:
            return ok(proxy.post(f"/v1/{op}", json.dumps(body).encode(), headers))

        grown = []
        for n in range(12):
            before = (data / files.LOG).stat().st_size
            call("otp_init", {"otpType": "OTP_TYPE_EMAIL", "contact": f"user{n}@example.com"})
            grown.append((data / files.LOG).stat().st_size - before)
        assert grown[-1] - grown[1] < 400, grown  # a message is about 250 bytes: ten more, written whole, 2,500
        same(server, data)
        email = "user11@example.com"
        otp_id = server.simulator.store.outbox[-1]["otpId"]
        code = server.simulator.store.outbox[-1]["code"]
        key = ClientKey()
        token = call("otp_verify", {"otpId": otp_id, "otpCode": code, "publicKey": key.public})["verificationToken"]
        claims = json.loads(base64.b64decode(token.split(".")[1] + "=="))
        signup = client_signature(token, key, {"signup": {"email": email}}, "USAGE_TYPE_SIGNUP")
        body = {"userName": email, "userEmail": email, "verificationToken": token, "clientSignature": signup}
        call("signup", {**body, "apiKeys": [], "authenticators": [], "oauthProviders": []})
        login = client_signature(token, key, {"login": {"publicKey": key.public}}, "USAGE_TYPE_LOGIN")
        call("otp_login", {"verificationToken": token, "publicKey": key.public, "clientSignature": login})
        assert server.simulator.store.used_tokens == {claims["id"]}  # the login spent it
        same(server, data)
    assert held(data) == last_state(data)


def last_state(data: Path) -> Any:
    """The state a start from ``data`` serves, exported."""
    with SimulatorServer(config=Config(seed=7, data_dir=data)) as server:
        return restarted(server.simulator.export_kept_state())


def test_an_outbox_message_changed_in_place_fails_the_verified_look():
    sim = Simulator(Config(seed=1))
    sim.store.outbox.append({"contact": "a@example.com", "code": "1"})
    tracker = ChangeTracker(sim)
    tracker.prime()
    sim.store.outbox.append({"contact": "b@example.com", "code": "2"})
    assert tracker.collect() == {"ops": [[["store", "outbox", 1], {"contact": "b@example.com", "code": "2"}]]}
    sim.store.outbox[0]["code"] = "changed"
    with pytest.raises(AssertionError, match="changed in place"):
        tracker.collect()


def waiting_wallets(count: int) -> tuple[Simulator, list[str]]:
    """A simulator of the two-of-three quorum scenario and the ids of ``count`` wallets waiting for its votes."""
    sim = Simulator(Config(seed=5, scenarios=(QUORUM,), timestamp_window_ms=None))
    waiting = []
    for n in range(count):
        parameters = {"walletName": f"q{n}", "accounts": [ETH_ACCOUNT]}
        answer = submit_in_process(sim, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", parameters)
        assert answer["activity"]["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
        waiting.append(answer["activity"]["id"])
    return sim, waiting


def test_a_record_compares_only_the_waiting_activities_handed_out_since_the_last(monkeypatch):
    """An activity waiting for votes changes only after its table hands it out: a record compares those, not every
    waiting one (each took 30 µs at every record: 15 ms a request with 460 waiting). A change made past the table
    (which the simulator never makes; verify mode fails it, below) shows which were compared: it is not written
    until something hands the activity out. Handing out all of them (a list, a clock move settling waits) has
    every one compared."""
    monkeypatch.setattr(FieldWatch, "verify", False)
    sim, waiting = waiting_wallets(3)
    tracker = ChangeTracker(sim)
    tracker.prime()

    def written(record: dict[str, Any] | None) -> list[str]:
        return sorted(op[0][2] for op in (record or {}).get("ops", ()) if op[0][:2] == ["store", "activities"])

    sim.store.activities[waiting[0]].updated_ms += 1  # fetched: handed out
    dict.__getitem__(sim.store.activities, waiting[1]).updated_ms += 1  # past the table
    record = tracker.collect()
    assert written(record) == [waiting[0]]
    assert tracker.collect() is None  # nothing handed out since
    for activity in sim.store.activities.values():  # every one handed out
        activity.updated_ms += 1
    record = tracker.collect()
    assert written(record) == sorted(waiting)
    activity_ops = {op[0][2]: op[1] for op in record["ops"] if op[0][:2] == ["store", "activities"]}
    assert activity_ops[waiting[1]]["updated_ms"] == dict.__getitem__(sim.store.activities, waiting[1]).updated_ms


def test_a_waiting_activity_changed_without_being_handed_out_fails_the_verified_look():
    sim, waiting = waiting_wallets(2)
    tracker = ChangeTracker(sim)
    tracker.prime()
    dict.__getitem__(sim.store.activities, waiting[1]).updated_ms += 1  # past the table: not noted
    with pytest.raises(AssertionError, match="without being handed out"):
        tracker.collect()


def test_a_sub_organization_id_added_is_appended_and_one_taken_out_rewrites_the_list():
    sim = Simulator(Config(seed=1))
    org_id = sim.default_credentials()["organizationId"]
    tracker = ChangeTracker(sim)
    tracker.prime()
    sim.store.orgs[org_id].children.append("child-1")
    assert tracker.collect() == {"ops": [[["store", "orgs", org_id, "children", 0], "child-1"]]}
    sim.store.orgs[org_id].children.append("child-2")
    sim.store.orgs[org_id].children.remove("child-1")
    assert tracker.collect() == {"ops": [[["store", "orgs", org_id, "children"], ["child-2"]]]}


def test_a_stop_between_writing_the_base_and_emptying_the_log_loads_the_base(tmp_path):
    """Compaction writes the base, then empties the log: killed in between, the log's records (of the earlier
    generation) are already in the base and are skipped, even those that drew from the random source."""
    data = tmp_path / "data"
    with SimulatorServer(config=Config(seed=34, data_dir=data)) as server:
        creds = server.simulator.credentials[0]
        client = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
        for name in ("x", "y"):
            ok(
                client.submit(
                    "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": name, "accounts": [ETH_ACCOUNT]}
                )
            )
        log = (data / files.LOG).read_bytes()
        assert log, "the wallets are in change records"
        server.simulator.source.bytes(64)  # drawn after the last record: in the base only
        last = restarted(server.simulator.export_kept_state())
    assert not (data / files.LOG).read_bytes()  # the clean stop folded the log into the base ...
    (data / files.LOG).write_bytes(log)  # ... and here the stop came before the log was emptied
    assert held(data) == last


def test_a_watched_table_notes_every_value_it_hands_out():
    """What lets a record compare only the entries noted: every way of handing values out notes them."""
    table = WatchedDict({"a": [1], "b": [2]})
    table.drain()
    assert table.drain() == set()
    table["a"]
    table.get("b")
    assert table.drain() == {"a", "b"}
    assert list(values_to_read(table)) == [[1], [2]] and table.drain() == set()  # for reading only: unnoted
    for hand_out in (dict, lambda t: {**t}, lambda t: t.copy(), lambda t: t | {}, lambda t: {}.update(t), list_values):
        hand_out(table)
        assert table.drain() in (None, {"a", "b"}), hand_out


def list_values(table: Any) -> Any:
    return [*table.values(), *table.items()]


def signed(server: SimulatorServer, count: int) -> None:
    """``count`` signatures with a new wallet's key: settled activities, which a restart loads undecoded."""
    creds = server.simulator.credentials[0]
    client = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
    made = ok(wallet_named(client, "signer"))
    address = made["activity"]["result"]["createWalletResult"]["addresses"][0]
    for n in range(count):
        parameters = {
            "signWith": address,
            "payload": n.to_bytes(32, "big").hex(),
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        }
        ok(client.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters))


@pytest.mark.parametrize("when", ["after-the-last-record", "in-a-record"])
def test_a_value_orjson_would_not_write_exactly_reaches_the_base_through_the_read_back(tmp_path, monkeypatch, when):
    """A base is written without reading it back only when every record since the last base read back was orjson's
    exact writing and nothing changed since the last record. An infinity (orjson: null) put in place in process,
    after the last record or before a record, is still read back with the base at the stop, so json writes it."""
    monkeypatch.setattr(FieldWatch, "verify", False)  # verify mode reads every base back
    data = tmp_path / "data"
    with SimulatorServer(config=Config(seed=38, data_dir=data)) as server:
        signed(server, 2)
        org_id = server.simulator.credentials[0]["organizationId"]
        with server.simulator.lock:
            server.simulator.store.orgs[org_id].root_threshold = float("inf")  # type: ignore[assignment]
        if when == "in-a-record":
            creds = server.simulator.credentials[0]
            client = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
            ok(wallet_named(client, "after"))
            assert b"Infinity" in (data / files.LOG).read_bytes()  # that record json's
        last = restarted(server.simulator.export_kept_state())
    base = (data / files.BASE).read_bytes()
    assert not base.startswith(files.ORJSON_MARK) and b"Infinity" in base
    assert held(data) == last
    assert held(data)["store"]["orgs"][org_id]["root_threshold"] == float("inf")


def test_a_change_record_is_read_back_only_when_its_encoding_noted_a_value_orjson_might_write_otherwise(
    tmp_path, monkeypatch
):
    """A record whose encoding met only strings, 64-bit integers, finite floats, booleans and nulls is written by
    orjson unread (most records: a signature's); one holding an infinity (an organization's field, encoded) or a
    NaN in what is written as it is (the simulator's credentials) is read back, so json writes it, and a restart
    has them. Verify mode (the other tests here) reads every record back and fails one noted exact that is not."""
    monkeypatch.setattr(FieldWatch, "verify", False)
    data = tmp_path / "data"

    def last_record() -> bytes:
        log = (data / files.LOG).read_bytes()
        return log[log.rindex(b"WSR2") :]

    with SimulatorServer(config=Config(seed=39, data_dir=data)) as server:
        signed(server, 1)
        assert files.ORJSON_MARK in last_record()
        creds = server.simulator.credentials[0]
        org_id = creds["organizationId"]
        client = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), org_id)
        ok(wallet_named(client, "second"))
        assert files.ORJSON_MARK in last_record()
        with server.simulator.lock:
            server.simulator.credentials = [*server.simulator.credentials, {"note": float("nan")}]
        ok(wallet_named(client, "third"))  # a request: its record holds the change made in process too
        assert files.ORJSON_MARK not in last_record() and b"NaN" in last_record()
        with server.simulator.lock:
            server.simulator.store.orgs[org_id].root_threshold = float("inf")  # type: ignore[assignment]
        ok(wallet_named(client, "fourth"))
        assert files.ORJSON_MARK not in last_record() and b"Infinity" in last_record()
        last = restarted(server.simulator.export_kept_state())
    kept = files.load(data).document
    assert kept is not None and kept["credentials"][-1]["note"] != kept["credentials"][-1]["note"]  # NaN
    assert kept["store"]["orgs"][org_id]["root_threshold"] == float("inf")
    assert repr(held(data)) == repr(last)


def wallet_named(client: SimulatorClient, name: str) -> Any:
    return client.submit(
        "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": name, "accounts": [ETH_ACCOUNT]}
    )


def test_a_start_and_stop_that_change_nothing_leave_the_directory_as_it_was(tmp_path):
    """Nothing was drawn, written or removed: the clean stop has nothing to fold in, and rewrites nothing (it
    rewrote the whole base, 1.4 s with 10,000 activities on disk)."""
    data = tmp_path / "data"
    with SimulatorServer(config=Config(seed=35, data_dir=data)) as server:
        signed(server, 3)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in data.iterdir() if p.name != files.LOCK}
    with SimulatorServer(config=Config(data_dir=data)):
        pass
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in data.iterdir() if p.name != files.LOCK} == before
    with SimulatorServer(config=Config(data_dir=data)) as server:
        server.simulator.source.bytes(16)  # a draw alone is a change: the next start goes on after it
        last = restarted(server.simulator.export_kept_state())
    assert held(data) == last


def test_activities_loaded_and_never_read_are_written_back_as_they_were_loaded(tmp_path):
    """A settled activity loaded from disk is decoded on its first read; one never read is written back (at
    compaction or a stop) from the document it was loaded from: the same state a decoded one writes."""
    from simulator.state.codec import LazyActivity

    data = tmp_path / "data"
    with SimulatorServer(config=Config(seed=36, data_dir=data)) as server:
        signed(server, 4)
        first = restarted(server.simulator.export_kept_state())
    with SimulatorServer(config=Config(data_dir=data)) as server:
        kept = [a for a in server.simulator.store.activities.values() if type(a) is LazyActivity]
        assert len(kept) >= 4 and all(a.undecoded() is not None for a in kept)
        assert restarted(server.simulator.export_kept_state()) == first  # encoded from what was loaded
        assert all(a.undecoded() is not None for a in kept)  # ... without decoding them
        creds = server.simulator.credentials[0]
        client = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
        ok(wallet_named(client, "after"))
        last = restarted(server.simulator.export_kept_state())
    assert held(data) == last
    decoded = Simulator(Config(seed=1))
    decoded.import_kept_state(files.load(data).document or {})
    for activity in decoded.store.activities.values():
        activity.votes  # noqa: B018 - a read: decoded
    assert restarted(decoded.export_kept_state()) == last


def test_text_orjson_refuses_or_would_read_otherwise_is_read_by_json():
    """An activity's request and result are read back by orjson (wire.read_json); what it refuses (NaN), and
    integers beyond its 64-bit range (it reads them as floats), json reads."""
    assert read_json(b'{"a": [1, "x"]}') == {"a": [1, "x"]}
    read = read_json(b'{"n": NaN, "big": 123456789012345678901234567890}')
    assert read["n"] != read["n"] and read["big"] == 123456789012345678901234567890
    for text in ("18446744073709551616", "[-9223372036854775809]", '{"a":\n 18446744073709551616}'):
        assert repr(read_json(text)) == repr(json.loads(text)) == repr(read_json(text.encode()))  # ints, not floats
    assert read_json('{"p": "0x18446744073709551616", "q": [18446744073709551615]}')["q"] == [2**64 - 1]
    with pytest.raises(ValueError):
        read_json(b'{"cut": ')


def test_a_file_an_earlier_release_wrote_is_read_by_json():
    """Every earlier release wrote bases and records with json: they are read by json (exact for integers beyond
    64 bits, which orjson would read as floats); what orjson wrote carries its mark and is read by orjson."""
    earlier = json.dumps({"format": files.FORMAT, "big": 2**70, "n": float("nan")}).encode()
    read = files.loads(earlier)
    assert read["big"] == 2**70 and isinstance(read["big"], int) and read["n"] != read["n"]
    assert files.loads(files.dumps({"format": files.FORMAT, "big": 2**64 - 1})) == {
        "format": files.FORMAT,
        "big": 2**64 - 1,
    }
    assert files.dumps({"format": files.FORMAT}).startswith(files.ORJSON_MARK)


@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), float("-inf"), (1, "x"), {1: "a"}, 2**70, "\ud800"],
    ids=["nan", "inf", "-inf", "tuple", "int-key", "big-int", "lone-surrogate"],
)
def test_what_orjson_would_write_otherwise_is_written_by_json(value):
    """Records are written by orjson where reading them back gives them again; NaN and the infinities (orjson:
    null), tuples (a list), keys that are not strings, integers beyond 64 bits and lone surrogates (refused) are
    written by json, byte for byte as every earlier release wrote them, and read back as json reads them."""
    record = {"ops": [[["store", "x"], value]]}
    written = files.dumps(record)
    assert written == json.dumps(record, separators=(",", ":")).encode()
    assert repr(files.loads(written)) == repr(json.loads(json.dumps(record)))


def test_a_record_of_json_values_reads_back_as_it_was():
    record = {"ops": [[["store", "activities", "a"], {"n": 1.5e-07, "t": "é\u2028\x7f", "l": [None, True, 2**63 - 1]}]]}
    assert files.dumps(record).startswith(files.ORJSON_MARK) and files.loads(files.dumps(record)) == record


def test_what_a_start_froze_for_the_collector_is_unfrozen_at_the_stop(tmp_path):
    """A start freezes what it loaded (the collector's walks over a large state cost 0.1 s after it); the stop
    unfreezes, so that a process opening many directories (a test suite) still collects its garbage."""
    import gc

    before = gc.get_freeze_count()
    with SimulatorServer(config=Config(seed=37, data_dir=tmp_path / "data")):
        assert gc.get_freeze_count() > before
    assert gc.get_freeze_count() == 0


UNSIGNED_ETH_TX = "02" + rlp.encode([1, 0, 1, 2, 21000, bytes(20), 0, b"", []]).hex()  # EIP-1559, unsigned


def test_requests_that_change_their_requester_or_only_read_it_are_kept(tmp_path):
    """Authentication reads the requesting user without handing it out; a handler that changes its requester reads
    it through its principal (``Principal.for_handler``), which fetches it from its table, so the tracker compares
    it then. stamp_login adds a session key to its requester that way; the others only read it. The verified look
    compares every user anyway and fails a request that changed one unnoted."""
    with SimulatorServer(config=Config(seed=5, data_dir=tmp_path / "data")) as server:
        creds = server.simulator.credentials[0]
        client = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
        made = ok(
            client.submit(
                "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "r", "accounts": [ETH_ACCOUNT]}
            )
        )["activity"]["result"]["createWalletResult"]
        address, wallet_id = made["addresses"][0], made["walletId"]
        payload = {"encoding": "PAYLOAD_ENCODING_HEXADECIMAL", "hashFunction": "HASH_FUNCTION_NO_OP"}
        session_key = "02bd7c73b88b2e9b4ceda62022b2da8be13193a5b56edc26e7df7842e24cd0b5eb"
        requests = {
            "create_wallet": ("ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "s", "accounts": [ETH_ACCOUNT]}),
            "create_wallet_accounts": (
                "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
                {"walletId": wallet_id, "accounts": [{**ETH_ACCOUNT, "path": "m/44'/60'/0'/0/1"}]},
            ),
            "sign_raw_payload": (
                "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                {"signWith": address, "payload": "11" * 32, **payload},
            ),
            "sign_raw_payloads": (
                "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
                {"signWith": address, "payloads": ["22" * 32, "33" * 32], **payload},
            ),
            "sign_transaction": (
                "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
                {"signWith": address, "type": "TRANSACTION_TYPE_ETHEREUM", "unsignedTransaction": UNSIGNED_ETH_TX},
            ),
            "stamp_login": ("ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": session_key, "expirationSeconds": "900"}),
        }
        for op, (activity_type, parameters) in requests.items():
            answer = ok(client.submit(op, activity_type, parameters))
            assert answer["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED", op
        user = dict.__getitem__(server.simulator.store.orgs[creds["organizationId"]].users, creds["userId"])
        assert any(k.public_key == session_key for k in user.api_keys.values()), "stamp_login changed its requester"
        same(server, tmp_path / "data")  # only now: an export hands out every user, and the next look compares all


def test_a_signature_hands_out_no_user_nor_wallet():
    """What a signature reads of the requester and of the wallets it looks through, it reads without handing a
    record out (authentication; ``simulator.state.lookups``): the tracker compares none of them after it."""
    sim = Simulator(Config(seed=3, timestamp_window_ms=None))
    tracker = ChangeTracker(sim)
    tracker.prime()
    made = submit_in_process(
        sim, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH_ACCOUNT]}
    )
    address = made["activity"]["result"]["createWalletResult"]["addresses"][0]
    assert tracker.collect() is not None
    parameters = {"signWith": address, "payload": "11" * 32, "encoding": "PAYLOAD_ENCODING_HEXADECIMAL"}
    signed = submit_in_process(
        sim,
        "sign_raw_payload",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        {**parameters, "hashFunction": "HASH_FUNCTION_NO_OP"},
    )
    assert signed["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    org = dict.__getitem__(sim.store.orgs, sim.default_credentials()["organizationId"])
    for table in (org.users, org.wallets, sim.store._credentials):
        assert not table.changed and not table.every, table


def test_a_credential_index_list_changed_in_place_fails_the_verified_look():
    """The store replaces a handle's list at each change: its index is compared by what was written to it only."""
    sim = Simulator(Config(seed=1))
    tracker = ChangeTracker(sim)
    tracker.prime()
    index = sim.store._credentials
    handle = next(iter(dict.keys(index)))
    dict.__getitem__(index, handle).append(dict.__getitem__(index, handle)[0])
    with pytest.raises(AssertionError, match="unnoticed"):
        tracker.collect()
