"""serve --data-dir: the state survives restarts and SIGKILL; damaged, foreign or locked directories stop the
start naming the file, and change nothing on disk."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ETH_ACCOUNT, ROOT, ok
from support import PROCESS_STOP_SECONDS

from simulator.control.control_client import ControlClient
from simulator.datadir import files
from simulator.testing import ApiKeyStamper, SimulatorClient

QUORUM = ROOT / "scenarios" / "two_of_three_quorum.yaml"
BOB_KEY = "b0b0000000000000000000000000000000000000000000000000000000000001"


class Serving:
    """``serve`` in a subprocess; ``ready`` is its ready line."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line:
            _out, self.error = self.proc.communicate(timeout=30)
            self.ready: dict[str, Any] = {}
            return
        self.error = ""
        self.ready = json.loads(line)

    def client(self, key: str | None = None) -> SimulatorClient:
        stamper = ApiKeyStamper(key or self.ready["apiPrivateKey"])
        return SimulatorClient(self.ready["url"], stamper, self.ready["organizationId"])

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=PROCESS_STOP_SECONDS)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGINT)
        _out, err = self.proc.communicate(timeout=30)
        return err


def wallet(client: SimulatorClient, name: str) -> Any:
    return client.submit(
        "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": name, "accounts": [ETH_ACCOUNT]}
    )


def wallets(client: SimulatorClient) -> dict[str, str]:
    return {w["walletName"]: w["walletId"] for w in ok(client.query("list_wallets"))["wallets"]}


def tree(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


def test_a_restart_continues_where_it_stopped_and_the_next_seeded_wallet_is_the_uninterrupted_ones(tmp_path):
    kept = Serving("--seed", "11", "--data-dir", str(tmp_path / "data"))
    assert kept.ready["dataDir"] == str((tmp_path / "data").resolve())
    first = ok(wallet(kept.client(), "first"))["activity"]["result"]["createWalletResult"]
    kept.kill()
    again = Serving("--data-dir", str(tmp_path / "data"))  # no --seed: the directory's seed goes on
    assert again.ready["seed"] == 11
    assert wallets(again.client())["first"] == first["walletId"]
    second = ok(wallet(again.client(), "second"))["activity"]["result"]["createWalletResult"]
    again.stop()

    plain = Serving("--seed", "11")  # the same requests, never interrupted, in memory
    ok(wallet(plain.client(), "first"))
    uninterrupted = ok(wallet(plain.client(), "second"))["activity"]["result"]["createWalletResult"]
    plain.stop()
    assert second == uninterrupted


def test_without_the_switch_the_ready_line_says_no_data_dir():
    plain = Serving("--seed", "1")
    try:
        assert plain.ready["dataDir"] is None
    finally:
        plain.stop()


def test_an_activity_waiting_for_consensus_can_be_approved_after_a_kill(tmp_path):
    data = str(tmp_path / "data")
    first = Serving("--scenario", str(QUORUM), "--seed", "3", "--data-dir", data)
    waiting = ok(wallet(first.client(), "shared"))["activity"]
    assert waiting["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    snapshot = ControlClient(first.ready["url"]).snapshot()
    first.kill()
    second = Serving("--scenario", str(QUORUM), "--data-dir", data)
    try:
        bob = second.client(BOB_KEY)
        approved = ok(
            bob.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": waiting["fingerprint"]})
        )["activity"]
        assert approved["status"] == "ACTIVITY_STATUS_COMPLETED"
        control = ControlClient(second.ready["url"])
        control.restore(snapshot)  # the snapshot was kept too: back to waiting
        found = ok(second.client().query("get_activity", activityId=waiting["id"]))["activity"]
        assert found["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    finally:
        second.stop()


def mixed_load(
    client: SimulatorClient, tag: str, stop: threading.Event, asked: set[str], acknowledged: set[str]
) -> None:
    """Wallets, a signature with each, a policy after each, until ``stop`` or the process dies."""
    n = 0
    while not stop.is_set():
        n += 1
        name = f"w-{tag}-{n}"
        asked.add(name)
        try:
            answer = wallet(client, name)
            if answer.status != 200:
                return
            address = answer.body["activity"]["result"]["createWalletResult"]["addresses"][0]
            acknowledged.add(name)
            signed = client.submit(
                "sign_raw_payload",
                "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                {
                    "signWith": address,
                    "payload": "00" * 32,
                    "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                    "hashFunction": "HASH_FUNCTION_NO_OP",
                },
            )
            if signed.status != 200:
                return
            policy = f"p-{tag}-{n}"
            asked.add(policy)
            made = client.submit(
                "create_policy",
                "ACTIVITY_TYPE_CREATE_POLICY_V3",
                {"policyName": policy, "effect": "EFFECT_DENY", "condition": "false", "notes": ""},
            )
            if made.status != 200:
                return
            acknowledged.add(policy)
        except (OSError, http.client.HTTPException):
            return  # the process was killed under this request (no answer, or half of one)


@pytest.mark.parametrize(("round_seed", "clients"), [(1, 1), (2, 1), (3, 1), (4, 4)])
def test_every_acknowledged_change_survives_sigkill_at_a_random_moment(tmp_path, round_seed, clients):
    """Client threads create wallets, sign with them and add policies; the process is killed with SIGKILL at a
    seeded random moment; after the restart every acknowledged change is there and nothing unasked. With several
    clients, requests finish together and share records (the group commit), so a kill also meets a batch."""
    rng = random.Random(round_seed)
    data = str(tmp_path / "data")
    asked: set[str] = set()
    acknowledged: set[str] = set()
    for round_ in range(2):
        server = Serving("--seed", "5", "--data-dir", data)
        client = server.client()
        stop = threading.Event()

        workers = [
            threading.Thread(target=mixed_load, args=(client, f"{round_}-{c}", stop, asked, acknowledged))
            for c in range(clients)
        ]
        before = len(acknowledged)
        for worker in workers:
            worker.start()
        deadline = time.monotonic() + PROCESS_STOP_SECONDS  # a loaded machine: the first answer may be slow
        while len(acknowledged) == before and workers[0].is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.random() * 1.5)  # then a random moment of the load
        server.kill()
        stop.set()
        for worker in workers:
            worker.join(timeout=30)

    after = Serving("--data-dir", data)
    try:
        names = set(wallets(after.client()))
        policies = {p["policyName"] for p in ok(after.client().query("list_policies"))["policies"]}
    finally:
        after.stop()
    kept = {n for n in names | policies if n.startswith(("w-", "p-"))}
    assert acknowledged, "the load made no change before the kill"
    assert acknowledged <= kept, sorted(acknowledged - kept)
    assert kept <= asked, sorted(kept - asked)


def test_a_truncated_last_record_is_recovered_up_to_the_last_complete_change(tmp_path):
    data = tmp_path / "data"
    server = Serving("--seed", "2", "--data-dir", str(data))
    ok(wallet(server.client(), "kept"))
    server.kill()
    with open(data / files.LOG, "ab") as log:  # a record cut short, as a kill while writing leaves it
        log.write(files.frame(b'{"format":"wallet-simulator-data/1","state":{}}')[:20])
    again = Serving("--data-dir", str(data))
    try:
        assert "kept" in wallets(again.client())
    finally:
        err = again.stop()
    assert "the last record was incomplete (20 bytes" in err and "recovered the state" in err


def broken(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    Serving("--seed", "2", "--data-dir", str(data)).kill()
    server = Serving("--data-dir", str(data))  # the start folded the log into state.json
    ok(wallet(server.client(), "one"))
    ok(wallet(server.client(), "two"))
    server.kill()
    return data


def refused(data: Path, *phrases: str) -> None:
    before = tree(data)
    server = Serving("--data-dir", str(data))
    assert not server.ready, "the simulator started"
    assert server.proc.returncode == 2
    for phrase in phrases:
        assert phrase in server.error, server.error
    assert tree(data) == before


def test_a_corrupt_record_before_the_last_stops_the_start_and_changes_nothing(tmp_path):
    data = broken(tmp_path)
    log = bytearray((data / files.LOG).read_bytes())
    log[files.HEADER.size + 10] ^= 0xFF  # inside the first record, which others follow
    (data / files.LOG).write_bytes(bytes(log))
    refused(data, str(data / files.LOG), "corrupt", "fails its checksum", "Restore the directory from a copy")


def test_an_unparsable_base_stops_the_start_and_changes_nothing(tmp_path):
    data = broken(tmp_path)
    (data / files.BASE).write_bytes(b'{"format": "wallet-simulator-data/1", "sta')
    refused(data, str(data / files.BASE), "corrupt (not JSON", "move it away to start empty")


def test_a_directory_from_a_newer_release_stops_the_start_and_changes_nothing(tmp_path):
    data = broken(tmp_path)
    base = json.loads((data / files.BASE).read_text())
    base["format"] = f"wallet-simulator-data/{files.VERSION + 1}"
    (data / files.BASE).write_text(json.dumps(base))
    refused(data, str(data / files.BASE), "written by a newer release", "upgrade wallet-simulator")


def test_a_directory_another_simulator_holds_stops_the_start_and_changes_nothing(tmp_path):
    data = tmp_path / "data"
    holder = Serving("--seed", "2", "--data-dir", str(data))
    try:
        ok(wallet(holder.client(), "held"))
        refused(data, str(data / files.LOCK), "another running simulator holds this data directory")
    finally:
        holder.stop()


def test_reset_and_import_go_to_the_directory(tmp_path):
    data = str(tmp_path / "data")
    server = Serving("--seed", "4", "--data-dir", data)
    control = ControlClient(server.ready["url"])
    ok(wallet(server.client(), "before-export"))
    exported = control.state()
    ok(wallet(server.client(), "after-export"))
    control.reset()
    server.kill()
    emptied = Serving("--data-dir", data)
    assert not {"before-export", "after-export"} & set(wallets(emptied.client()))
    ControlClient(emptied.ready["url"]).import_state(exported)
    emptied.kill()
    imported = Serving("--data-dir", data)
    try:
        names = set(wallets(imported.client()))
        assert "before-export" in names and "after-export" not in names
    finally:
        imported.stop()


def test_the_lock_file_names_the_holder(tmp_path):
    data = tmp_path / "data"
    server = Serving("--seed", "2", "--data-dir", str(data))
    try:
        assert (data / files.LOCK).read_text().strip() == str(server.proc.pid)
    finally:
        server.stop()
    assert os.path.exists(data / files.BASE)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "simulator", *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_state_export_import_and_check_from_the_command_line(tmp_path):
    data = tmp_path / "data"
    server = Serving("--seed", "8", "--data-dir", str(data))
    try:
        ok(wallet(server.client(), "exported"))
        saved = tmp_path / "state.json"
        done = cli("state", "export", str(saved), "--url", server.ready["url"])
        assert done.returncode == 0 and "keep it private" in done.stdout, done.stderr
        assert saved.stat().st_mode & 0o077 == 0
        ok(wallet(server.client(), "not exported"))
        done = cli("state", "import", str(saved), "--url", server.ready["url"])
        assert done.returncode == 0, done.stderr
        assert set(wallets(server.client())) >= {"exported"} and "not exported" not in wallets(server.client())
    finally:
        server.kill()
    checked = cli("state", "check", str(data))
    assert checked.returncode == 0 and f"{data}: ok (" in checked.stdout and "1 organizations" in checked.stdout
    log = bytearray((data / files.LOG).read_bytes())
    log[files.HEADER.size + 5] ^= 0xFF
    (data / files.LOG).write_bytes(bytes(log))
    before = tree(data)
    checked = cli("state", "check", str(data))
    assert checked.returncode == 1 and "fails its checksum" in checked.stderr
    assert tree(data) == before


KEEPING_SUITE = """
import json

from simulator.testing import ApiKeyStamper, SimulatorClient


def test_keeps(simulator_server):
    creds = simulator_server.default_credentials()
    client = SimulatorClient(simulator_server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
    body = client.query("list_wallets").body
    names = [w["walletName"] for w in body["wallets"]]
    print("WALLETS", json.dumps(names))
    account = {"curve": "CURVE_SECP256K1", "pathFormat": "PATH_FORMAT_BIP32", "path": "m/44'/60'/0'/0/0",
               "addressFormat": "ADDRESS_FORMAT_ETHEREUM"}
    answer = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET",
                           {"walletName": f"session-{len(names)}", "accounts": [account]})
    assert answer.status == 200
"""


def test_the_pytest_plugin_keeps_the_session_simulator_in_simulator_data_dir(pytester):
    pytester.makeini("[pytest]\nsimulator_data_dir = kept\n")
    pytester.makepyfile(test_keeping=KEEPING_SUITE)
    first = pytester.runpytest_subprocess("-q", "-s", "-p", "no:cacheprovider")
    first.assert_outcomes(passed=1)
    second = pytester.runpytest_subprocess("-q", "-s", "-p", "no:cacheprovider")
    second.assert_outcomes(passed=1)
    assert any("session-0" in line for line in second.outlines if line.startswith("WALLETS"))
    assert (pytester.path / "kept" / files.BASE).exists()


def test_the_inspector_shows_the_data_dir_and_its_size(tmp_path):
    import urllib.request

    data = tmp_path / "data"
    server = Serving("--seed", "6", "--data-dir", str(data))
    try:
        ok(wallet(server.client(), "sized"))
        with urllib.request.urlopen(server.ready["url"] + "/_simulator/ui/api/overview", timeout=30) as answer:
            overview = json.load(answer)
        assert overview["dataDir"]["path"] == str(data.resolve())
        assert overview["dataDir"]["bytes"] == sum(p.stat().st_size for p in data.iterdir()) > 1000
    finally:
        server.stop()


def test_the_kept_document_reuses_settled_activities_and_equals_a_fresh_encoding():
    """The writer's memo of settled activities and of their evaluations changes nothing in what is written."""
    from simulator import Config, Simulator
    from simulator.state.codec import SettledMemo

    sim = Simulator(Config(seed=12, timestamp_window_ms=None))
    creds = sim.default_credentials()
    stamper = ApiKeyStamper(creds["apiPrivateKey"])
    memo = SettledMemo()
    for n in range(3):
        body = {
            "type": "ACTIVITY_TYPE_CREATE_WALLET",
            "timestampMs": "0",
            "organizationId": creds["organizationId"],
            "parameters": {"walletName": f"m{n}", "accounts": [ETH_ACCOUNT]},
        }
        raw = json.dumps(body).encode()
        name, value = stamper.stamp(raw)
        sim.submit("create_wallet", raw, {"Content-Type": "application/json", name: value})
        assert files.encode(sim.export_kept_state(memo)) == files.encode(sim.export_kept_state())
    activities = {key for key in memo.kept if isinstance(key, str)}
    evaluations = {key[1] for key in memo.kept if isinstance(key, tuple)}
    assert activities == evaluations == set(sim.store.activities) and len(activities) == 3
    # an activity's evaluations replaced (a new tuple, as a vote adds one): encoded again, not taken from the memo
    first = next(iter(sim.store.evaluations))
    sim.store.evaluations[first] = sim.store.evaluations[first][:0]
    assert files.encode(sim.export_kept_state(memo)) == files.encode(sim.export_kept_state())
    assert sim.export_kept_state(memo)["store"]["evaluations"][first] == {"__tuple__": []}


def test_a_passkey_signed_up_through_the_auth_proxy_logs_in_after_a_kill(tmp_path):
    """A sub-organization made by the auth proxy's signup with a passkey: after SIGKILL and a restart the same
    passkey's stamp is still accepted."""
    from simulator.testing import PasskeyStamper

    data = str(tmp_path / "data")
    passkey = PasskeyStamper("Y3JlZC1rZXB0", "7e" * 32, origin="http://localhost:3000")
    first = Serving("--seed", "21", "--auth-proxy", "--data-dir", data)
    proxy = SimulatorClient(first.ready["proxyUrl"], None, "")
    headers = {"X-Auth-Proxy-Config-Id": first.ready["authProxyConfigId"], "Origin": "http://localhost:3000"}
    authenticator = {
        "authenticatorName": "laptop",
        "challenge": "c2lnbnVw",
        "attestation": passkey.attestation("c2lnbnVw"),
    }
    body = {"userName": "passkey user", "apiKeys": [], "authenticators": [authenticator], "oauthProviders": []}
    made = ok(proxy.post("/v1/signup", json.dumps(body).encode(), headers))
    first.kill()
    again = Serving("--data-dir", data)
    try:
        client = SimulatorClient(again.ready["url"], passkey, made["organizationId"])
        assert ok(client.query("whoami"))["organizationId"] == made["organizationId"]
    finally:
        again.stop()
