"""Faults on demand (simulator/faults.py, carried out by simulator/server/wsgi.py): what each fault does on the
wire, what the official clients do with it, and that a fault touches nothing but what it matches."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
import turnkey_sdk_types as T
from conftest import ROOT
from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig
from turnkey_http import TurnkeyClient
from turnkey_sdk_types import TurnkeyNetworkError

from simulator import Config
from simulator.control.control_client import ControlClient, ControlError
from simulator.faults import drawn
from simulator.server import SimulatorServer

JS = ROOT / "tests" / "js"
CREATE = {"operation": "create_wallet"}


def python_client(simulator, credentials, timeout: float = 30) -> TurnkeyClient:
    stamper = ApiKeyStamper(
        ApiKeyStamperConfig(api_public_key=credentials["apiPublicKey"], api_private_key=credentials["apiPrivateKey"])
    )
    return TurnkeyClient(
        base_url=simulator.url,
        stamper=stamper,
        organization_id=credentials["organizationId"],
        default_timeout=timeout,
    )


def wallets_named(simulator, name: str) -> list:
    with simulator.simulator.lock:
        return [w for org in simulator.store.orgs.values() for w in org.wallets.values() if w.name == name]


def attempt(client: TurnkeyClient, name: str):
    """(the exception or the answer, seconds taken) of one create_wallet."""
    started = time.monotonic()
    try:
        answer = client.create_wallet(T.CreateWalletBody(walletName=name, accounts=[]))
    except TurnkeyNetworkError as error:
        return error, time.monotonic() - started
    return answer, time.monotonic() - started


# what turnkey-http (Python) does with each fault ------------------------------------------------------
def test_unavailable_is_the_services_internal_error_and_changes_nothing(simulator, simulator_credentials):
    client = python_client(simulator, simulator_credentials)
    with simulator.fault("unavailable", match=CREATE):
        error, _ = attempt(client, "down")
    assert isinstance(error, TurnkeyNetworkError) and error.status_code == 500
    assert str(error).startswith("internal server error (")
    body = json.loads(error.cause)
    assert body["code"] == 13 and body["turnkeyErrorCode"] == "INTERNAL"
    assert body["details"][0]["@type"] == "type.googleapis.com/errors.v1.TurnkeyErrorDetail"
    assert wallets_named(simulator, "down") == []
    (entry,) = simulator.journal.entries("create_wallet")
    assert entry["status"] == 500 and entry["fault"]["kind"] == "unavailable"


def test_unavailable_with_code_14_answers_503(simulator, simulator_credentials):
    client = python_client(simulator, simulator_credentials)
    with simulator.fault("unavailable", match=CREATE, code=14):
        error, _ = attempt(client, "down")
    assert error.status_code == 503 and json.loads(error.cause)["code"] == 14
    assert wallets_named(simulator, "down") == []


def test_lost_answer_takes_effect_and_the_client_sees_a_network_error_without_retrying(
    simulator, simulator_credentials
):
    client = python_client(simulator, simulator_credentials)
    with simulator.fault("lostAnswer", match=CREATE):
        error, _ = attempt(client, "lost")
    assert isinstance(error, TurnkeyNetworkError) and error.status_code is None
    assert "Remote end closed connection without response" in str(error.cause)
    assert len(wallets_named(simulator, "lost")) == 1  # it took effect
    assert [e["fault"]["kind"] for e in simulator.journal.entries("create_wallet")] == ["lostAnswer"]  # no retry


def test_reset_closes_before_anything_runs(simulator, simulator_credentials):
    client = python_client(simulator, simulator_credentials)
    with simulator.fault("reset", match=CREATE):
        error, _ = attempt(client, "reset")
    assert isinstance(error, TurnkeyNetworkError) and error.status_code is None
    assert "Connection reset by peer" in str(error.cause) or "ConnectionResetError" in str(error.cause)
    assert wallets_named(simulator, "reset") == []
    (entry,) = simulator.journal.entries("create_wallet")
    assert entry["status"] is None and entry["outcome"] == {"fault": "reset"}


def test_timeout_holds_until_the_client_gives_up(simulator, simulator_credentials):
    client = python_client(simulator, simulator_credentials, timeout=1)
    with simulator.fault("timeout", match=CREATE, seconds=30):
        error, took = attempt(client, "held")
    assert isinstance(error, TurnkeyNetworkError) and error.status_code is None
    assert "Read timed out" in str(error.cause)
    assert 0.9 < took < 10
    assert wallets_named(simulator, "held") == []


def test_timeout_is_bounded_by_its_seconds(simulator, simulator_credentials):
    client = python_client(simulator, simulator_credentials, timeout=30)
    with simulator.fault("timeout", match=CREATE, seconds=1):
        error, took = attempt(client, "held")
    assert error.status_code is None and "Remote end closed connection" in str(error.cause)
    assert 0.9 < took < 5  # closed by the bound (checked at most a second apart), not the client's 30 s


def test_latency_before_and_after_delay_the_answer(simulator, simulator_credentials):
    client = python_client(simulator, simulator_credentials)
    for when in ("before", "after"):
        with simulator.fault("latency", match=CREATE, ms=400, when=when):
            answer, took = attempt(client, f"late-{when}")
        assert answer.activity.status == "ACTIVITY_STATUS_COMPLETED" and took >= 0.39
    assert [e["fault"]["when"] for e in simulator.journal.entries("create_wallet")] == ["before", "after"]


def test_latency_before_runs_the_work_late_and_after_runs_it_at_once(simulator, simulator_credentials):
    """A wallet made under latency 'after' exists while its answer is still on its way; under 'before' not yet."""
    client = python_client(simulator, simulator_credentials)
    for when, exists_early in (("before", False), ("after", True)):
        with simulator.fault("latency", match=CREATE, ms=1500, when=when):
            worker = threading.Thread(target=attempt, args=(client, f"w-{when}"))
            worker.start()
            time.sleep(0.5)  # well inside the delay: the answer cannot have come yet
            early = bool(wallets_named(simulator, f"w-{when}"))
            worker.join(10)
        assert early is exists_early and wallets_named(simulator, f"w-{when}")


def test_latency_from_a_distribution_is_drawn_within_its_bounds(simulator, simulator_credentials):
    client = python_client(simulator, simulator_credentials)
    with simulator.fault("latency", match=CREATE, distribution="uniform", minMs=100, maxMs=300) as fault:
        for i in range(3):
            answer, took = attempt(client, f"u{i}")
            assert answer.activity.status == "ACTIVITY_STATUS_COMPLETED" and took >= 0.095
        listing = next(f for f in simulator.fault_listing() if f["name"] == fault["name"])
    assert all(100 <= r["fault"]["ms"] <= 300 for r in listing["requests"]) and listing["hits"] == 3


def test_slow_answer_dribbles_out_in_pieces(simulator, simulator_credentials):
    body = json.dumps({"organizationId": simulator_credentials["organizationId"]}).encode()
    request = (
        b"POST /public/v1/query/whoami HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    ) + body
    with SimulatorServer(config=Config(seed=1, auth="off")) as server:
        server.add_fault({"kind": "slow", "match": {"operation": "whoami"}, "seconds": 1, "pieces": 5})
        arrivals = []
        with socket.create_connection((server.host, server.port), timeout=10) as sock:
            sock.sendall(request)
            started, received = time.monotonic(), b""
            while not received.endswith(b"}\n"):
                data = sock.recv(65536)
                assert data
                arrivals.append(time.monotonic() - started)
                received += data
    assert len(arrivals) >= 3 and arrivals[-1] >= 0.55  # five pieces, 0.2 s apart
    assert json.loads(received.split(b"\r\n\r\n", 1)[1])["username"] == "Root User"


def test_a_slow_answer_delivers_its_last_piece_at_seconds():
    """As the faults' table says: the answer dribbles out in ``pieces`` over ``seconds``, the last piece at
    ``seconds`` (one piece every seconds/pieces), not one interval early."""
    request = (
        b"POST /public/v1/query/whoami HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2\r\n\r\n{}"
    )
    with SimulatorServer(config=Config(seed=1, auth="off")) as server:
        server.add_fault({"kind": "slow", "match": {"operation": "whoami"}, "seconds": 0.8, "pieces": 4})
        arrivals = []
        with socket.create_connection((server.host, server.port), timeout=10) as sock:
            sock.sendall(request)
            started, received = time.monotonic(), b""
            while b"\r\n\r\n" not in received or not received.endswith(b"\n"):
                data = sock.recv(65536)
                assert data
                arrivals.append(time.monotonic() - started)
                received += data
    assert 0.15 <= arrivals[0] < 0.4  # the first piece after 0.8 / 4 s
    assert 0.78 <= arrivals[-1] < 1.3, arrivals  # the last at 0.8 s


def test_slow_answer_reaches_the_python_client_whole(simulator, simulator_credentials):
    client = python_client(simulator, simulator_credentials)
    with simulator.fault("slow", match=CREATE, seconds=0.6, pieces=6):
        answer, took = attempt(client, "slow")
    assert answer.activity.status == "ACTIVITY_STATUS_COMPLETED" and took >= 0.45


# the official JS clients ----------------------------------------------------------------------------
JS_CASES = [
    {"kind": "unavailable", "spec": {}},
    {"kind": "unavailable", "spec": {"code": 14}},
    {"kind": "lostAnswer", "spec": {}},
    {"kind": "reset", "spec": {}},
    {"kind": "timeout", "spec": {"seconds": 1}},
    {"kind": "latency", "spec": {"ms": 300}},
    {"kind": "latency", "spec": {"ms": 300, "when": "after"}},
    {"kind": "slow", "spec": {"seconds": 0.5, "pieces": 4}},
]


@pytest.fixture(scope="module")
def js_outcomes():
    if not (shutil.which("node") and (JS / "node_modules").is_dir()):
        pytest.skip("node or tests/js/node_modules missing (npm ci --prefix tests/js)")
    with SimulatorServer(config=Config(seed=5)) as server:
        ready = {**server.simulator.default_credentials(), "url": server.url}
        run = subprocess.run(
            ["node", str(JS / "faults.js"), json.dumps(ready), json.dumps(JS_CASES)],
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert run.returncode == 0, run.stderr
        rows = json.loads(run.stdout)
        made = {w.name for org in server.store.orgs.values() for w in org.wallets.values()}
    return {(row["kind"], json.dumps(row["spec"], sort_keys=True)): row for row in rows}, made


def js_row(js_outcomes, kind, **spec):
    rows, _ = js_outcomes
    return rows[(kind, json.dumps(spec, sort_keys=True))]


@pytest.mark.parametrize("client", ["http", "sdkServer"])
def test_js_clients_see_unavailable_as_a_turnkey_request_error_and_do_not_retry(js_outcomes, client):
    for code, spec in ((13, {}), (14, {"code": 14})):
        seen = js_row(js_outcomes, "unavailable", **spec)[client]
        assert not seen["ok"] and seen["error"]["name"] == "TurnkeyRequestError"
        assert seen["error"]["code"] == code and seen["error"]["message"].startswith(f"Turnkey error {code}: ")
        assert seen["requests"] == 1


def test_js_clients_see_a_lost_answer_as_a_socket_error_and_do_not_retry(js_outcomes):
    row = js_row(js_outcomes, "lostAnswer")
    assert row["http"]["error"]["name"] == "FetchError" and row["http"]["error"]["code"] == "ECONNRESET"
    assert "socket hang up" in row["http"]["error"]["message"]
    assert row["sdkServer"]["error"]["name"] == "TypeError" and row["sdkServer"]["error"]["message"] == "fetch failed"
    assert row["sdkServer"]["error"]["cause"] == "UND_ERR_SOCKET"
    assert row["http"]["requests"] == row["sdkServer"]["requests"] == 1
    _, made = js_outcomes
    assert {"lostAnswer-http-2", "lostAnswer-sdkServer-2"} <= made  # it took effect, for both


def test_js_clients_see_a_reset_as_econnreset(js_outcomes):
    row = js_row(js_outcomes, "reset")
    assert row["http"]["error"]["name"] == "FetchError" and "read ECONNRESET" in row["http"]["error"]["message"]
    assert row["sdkServer"]["error"]["message"] == "fetch failed" and row["sdkServer"]["error"]["cause"] == "ECONNRESET"
    assert row["http"]["requests"] == row["sdkServer"]["requests"] == 1
    _, made = js_outcomes
    assert not {"reset-http-3", "reset-sdkServer-3"} & made  # nothing ran


def test_js_clients_never_give_up_on_a_held_connection_themselves(js_outcomes):
    """No default timeout in either client: the call ends when the fault's bound closes the connection."""
    row = js_row(js_outcomes, "timeout", seconds=1)
    for client in ("http", "sdkServer"):
        assert not row[client]["ok"] and row[client]["elapsedMs"] >= 900 and row[client]["requests"] == 1
    assert row["http"]["error"]["code"] == "ECONNRESET" and row["sdkServer"]["error"]["cause"] == "UND_ERR_SOCKET"


@pytest.mark.parametrize("spec", [{"ms": 300}, {"ms": 300, "when": "after"}])
def test_js_clients_wait_out_latency(js_outcomes, spec):
    row = js_row(js_outcomes, "latency", **spec)
    for client in ("http", "sdkServer"):
        assert row[client]["ok"] and row[client]["status"] == "ACTIVITY_STATUS_COMPLETED"
        assert row[client]["elapsedMs"] >= 290 and row[client]["faults"] == ["latency"]


def test_js_clients_read_a_slow_answer_whole(js_outcomes):
    row = js_row(js_outcomes, "slow", seconds=0.5, pieces=4)
    for client in ("http", "sdkServer"):
        assert row[client]["ok"] and row[client]["elapsedMs"] >= 300


# the auth proxy -------------------------------------------------------------------------------------
def test_faults_on_the_auth_proxy_match_its_operations_only(simulator, simulator_credentials):
    config_id = simulator.simulator.configure_auth_proxy(simulator_credentials["organizationId"], allowedOrigins=["*"])[
        "configId"
    ]
    headers = {"X-Auth-Proxy-Config-Id": config_id, "Content-Type": "application/json"}
    body = {"otpType": "OTP_TYPE_EMAIL", "contact": "user@example.com", "appName": "Demo"}
    proxy = simulator.proxy_url
    with simulator.fault("unavailable", match={"interface": "authProxy", "operation": "otp_init"}, code=14):
        refused = requests.post(f"{proxy}/v1/otp_init", json=body, headers=headers, timeout=10)
        assert refused.status_code == 503 and refused.json()["code"] == 14
        other = requests.post(
            f"{proxy}/v1/account", json={"filterType": "EMAIL", "filterValue": "x@y.z"}, headers=headers, timeout=10
        )
        assert other.status_code == 200
        api = requests.post(f"{simulator.url}/public/v1/query/whoami", json={}, timeout=10)
        assert api.status_code != 503  # the main interface is not the proxy's
    assert simulator.outbox() == []  # the refused otp_init sent nothing
    reset = {"interface": "authProxy", "operation": "otp_init"}
    with simulator.fault("reset", match=reset), pytest.raises(requests.ConnectionError):
        requests.post(f"{proxy}/v1/otp_init", json=body, headers=headers, timeout=10)
    assert requests.post(f"{proxy}/v1/otp_init", json=body, headers=headers, timeout=10).status_code == 200
    kinds = [e.get("fault", {}).get("kind") for e in simulator.journal.entries("otp_init")]
    assert kinds == ["unavailable", "reset", None]


# where faults are set: the control API, the CLI, the Python and scenario forms -------------------------
def test_the_control_api_adds_lists_removes_and_clears(simulator, simulator_credentials):
    control = ControlClient(simulator.url)
    added = control.add_fault("lostAnswer", match=CREATE, times=1)
    assert added["name"] == "fault-1" and added["kind"] == "lostAnswer"
    control.add_fault("latency", name="slowish", ms=1, match={"operation": "whoami"})
    client = python_client(simulator, simulator_credentials)
    attempt(client, "one")
    attempt(client, "two")
    listing = {f["name"]: f for f in control.faults()}
    assert listing["fault-1"]["matched"] == 2 and listing["fault-1"]["hits"] == 1
    assert [r["operation"] for r in listing["fault-1"]["requests"]] == ["create_wallet"]
    assert listing["slowish"]["hits"] == 0
    control.remove_fault("fault-1")
    assert [f["name"] for f in control.faults()] == ["slowish"]
    with pytest.raises(ControlError) as missing:
        control.remove_fault("fault-1")
    assert missing.value.status == 404
    control.clear_faults()
    assert control.faults() == []


@pytest.mark.parametrize(
    "spec, wrong",
    [
        ({"kind": "meteor"}, "kind"),
        ({"kind": "latency"}, "needs ms"),
        ({"kind": "reset", "ms": 5}, "does not take ms"),
        ({"kind": "latency", "ms": 90000}, "ms"),
        ({"kind": "unavailable", "code": 7}, "code"),
        ({"kind": "reset", "match": {"interface": "frames"}}, "interface"),
    ],
)
def test_a_bad_fault_is_refused_and_changes_nothing(simulator, spec, wrong):
    reply = requests.post(f"{simulator.url}/_simulator/faults", json=spec, timeout=10)
    assert reply.status_code == 400 and wrong in reply.json()["message"]
    assert simulator.fault_listing() == []


def test_a_name_is_unique(simulator):
    control = ControlClient(simulator.url)
    control.add_fault("reset", name="x")
    with pytest.raises(ControlError) as taken:
        control.add_fault("reset", name="x")
    assert taken.value.status == 400 and "exists already" in str(taken.value)


def test_the_control_client_context_manager_removes_the_fault(simulator):
    control = ControlClient(simulator.url)
    with control.fault("reset", match=CREATE) as fault:
        assert [f["name"] for f in control.faults()] == [fault["name"]]
    assert control.faults() == []


def test_the_cli_adds_lists_and_removes(simulator):
    def cli(*words: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "simulator", "control", *words, "--url", simulator.url]
        return subprocess.run(
            command, capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)}
        )

    added = cli("fault-add", "reset", "create_wallet")
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["match"] == CREATE
    spec = cli("fault-add", json.dumps({"kind": "latency", "name": "late", "ms": 5}))
    assert spec.returncode == 0, spec.stderr
    listed = json.loads(cli("faults").stdout)
    assert [f["name"] for f in listed] == ["fault-1", "late"]
    assert cli("fault-remove", "late").returncode == 0
    assert cli("faults-clear").returncode == 0
    assert simulator.fault_listing() == []


FAULTS_SCENARIO = """
include: [default]
organizations:
  - name: Acme
    users: [{name: Ops, apiKeys: [{name: ops}]}]
faults:
  - {name: acme-down, kind: unavailable, match: {organization: Acme}}
"""


def test_a_scenarios_faults_come_back_after_a_reset(simulator, tmp_path):
    path = tmp_path / "faults.yaml"
    path.write_text(FAULTS_SCENARIO)
    simulator.use_scenarios([path])
    try:
        assert [f["name"] for f in simulator.fault_listing()] == ["acme-down"]
        simulator.clear_faults()
        simulator.reset()
        assert [(f["name"], f["hits"]) for f in simulator.fault_listing()] == [("acme-down", 0)]
    finally:
        simulator.use_scenarios([])
    assert simulator.fault_listing() == []


def test_a_fault_matched_by_organization_name_touches_that_organization_only(
    simulator, simulator_credentials, tmp_path
):
    path = tmp_path / "faults.yaml"
    path.write_text(FAULTS_SCENARIO)
    simulator.use_scenarios([path])
    try:
        acme = next(c for c in simulator.credentials if c.get("userName") == "Ops")
        assert python_client(simulator, simulator_credentials).get_whoami().username == "Root User"
        with pytest.raises(TurnkeyNetworkError) as refused:
            python_client(simulator, acme).get_whoami()
        assert refused.value.status_code == 500
        assert [f["hits"] for f in simulator.fault_listing()] == [1]
    finally:
        simulator.use_scenarios([])


def test_a_bad_fault_in_a_scenario_is_refused_with_its_place(tmp_path):
    from simulator.scenario import ScenarioError, load_scenario

    path = tmp_path / "bad.yaml"
    path.write_text("faults:\n  - {kind: latency, when: before}\n")
    with pytest.raises(ScenarioError) as refused:
        load_scenario(path)
    assert "faults[0]" in str(refused.value) or "faults.0" in str(refused.value)
    assert "needs ms" in str(refused.value)


# faults never leak, and a seed repeats them --------------------------------------------------------------
@pytest.mark.parametrize("kind, seen", [("unavailable", 500), ("reset", None), ("lostAnswer", None)])
def test_a_fault_on_one_organization_touches_nothing_else_under_concurrency(
    simulator, simulator_credentials, kind, seen
):
    """8 connections; a fault on 10 % of whoami in the default organization only (an error answer, a reset
    connection, a lost answer): every other request (create_wallet, get_wallets) answers normally, and the
    hits are exactly the seeded draws."""
    seed = simulator.simulator.source.seed
    org = simulator_credentials["organizationId"]
    match = {"operation": "whoami", "organization": org}
    simulator.add_fault({"kind": kind, "name": "tenth", "probability": 0.1, "match": match})
    sessions = threading.local()

    def client():
        if not hasattr(sessions, "client"):
            sessions.client = python_client(simulator, simulator_credentials)
        return sessions.client

    def one(i: int):
        which = i % 3
        try:
            if which == 0:
                return "whoami", client().get_whoami().username
            if which == 1:
                return "create", client().create_wallet(
                    T.CreateWalletBody(walletName=f"c{i}", accounts=[])
                ).activity.status
            return "wallets", len(client().get_wallets().wallets)
        except TurnkeyNetworkError as error:
            return ("whoami" if which == 0 else "other"), error.status_code

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, range(240)))
    expected = sum(drawn(seed, "tenth", n, 0.1) for n in range(1, 81))
    whoami = [r[1] for r in results if r[0] == "whoami"]
    assert whoami.count(seen) == expected and whoami.count("Root User") == 80 - expected
    assert [r for r in results if r[0] == "other"] == []
    assert all(r[1] == "ACTIVITY_STATUS_COMPLETED" for r in results if r[0] == "create")
    listing = simulator.fault_listing()[0]
    assert listing["matched"] == 80 and listing["hits"] == expected and 1 <= expected <= 25
    faulted = [e for e in simulator.journal.entries() if "fault" in e]
    assert len(faulted) == expected and all(e["op"] == "whoami" for e in faulted)


def test_a_seeded_run_gives_the_same_faults_to_the_same_requests_twice(simulator, simulator_credentials):
    def run() -> list:
        simulator.reset()
        simulator.add_fault({"kind": "unavailable", "name": "p", "probability": 0.3, "match": CREATE})
        simulator.add_fault(
            {
                "kind": "latency",
                "name": "q",
                "probability": 0.3,
                "distribution": "uniform",
                "minMs": 1,
                "maxMs": 20,
                "match": {"operation": "whoami"},
            }
        )
        client = python_client(simulator, simulator_credentials)
        for i in range(30):
            attempt(client, f"s{i}")
            client.get_whoami()
        return [
            (e["op"], (e["request"] or {}).get("parameters", {}).get("walletName"), e.get("fault"))
            for e in simulator.journal.entries()
        ]

    first, second = run(), run()
    assert first == second
    assert 0 < sum(1 for e in first if e[2]) < 60


def test_held_connections_hold_no_worker(simulator, simulator_credentials):
    """More timeouts than the API has workers: other requests are still answered at once."""

    def held(i: int) -> None:
        with socket.create_connection((simulator.host, simulator.port)) as sock:
            body = json.dumps({"organizationId": simulator_credentials["organizationId"], "n": i}).encode()
            sock.sendall(
                b"POST /public/v1/query/whoami HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\n" % len(body)
                + body
            )
            sock.settimeout(10)
            sock.recv(10)

    with simulator.fault("timeout", match={"parameters": {"n": 0}}, seconds=3):  # a field only these carry
        threads = [threading.Thread(target=held, args=(0,)) for _ in range(6)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 10
        while simulator.fault_listing()[0]["hits"] < 6 and time.monotonic() < deadline:
            time.sleep(0.02)
        client = python_client(simulator, simulator_credentials)
        started = time.monotonic()
        assert client.get_whoami().username == "Root User"
        answer, _ = attempt(client, "meanwhile")
        assert answer.activity.status == "ACTIVITY_STATUS_COMPLETED" and time.monotonic() - started < 2
        for t in threads:
            t.join(10)


# a retry wrapper, proven against lostAnswer -----------------------------------------------------------
def create_wallet_with_retries(client: TurnkeyClient, name: str, attempts: int = 3):
    """Retry what may have taken effect with the very same body: Turnkey answers an identical body with the
    activity it already made, so a lost answer never makes a second wallet."""
    body = T.CreateWalletBody(walletName=name, accounts=[], timestampMs=str(int(time.time() * 1000)))
    for tries in range(1, attempts + 1):
        try:
            return client.create_wallet(body)
        except TurnkeyNetworkError as error:
            retriable = error.status_code is None or error.status_code >= 500
            if not retriable or tries == attempts:
                raise
    raise AssertionError("unreachable")


def test_the_retry_wrapper_makes_each_wallet_exactly_once(simulator, simulator_credentials):
    client = python_client(simulator, simulator_credentials)
    with simulator.fault("lostAnswer", match=CREATE, times=1):
        made = create_wallet_with_retries(client, "once")
    assert len(wallets_named(simulator, "once")) == 1
    entries = simulator.journal.entries("create_wallet")
    assert len(entries) == 2 and entries[0]["outcome"]["activityId"] == entries[1]["outcome"]["activityId"]
    assert made.activity.id == entries[0]["outcome"]["activityId"]


def test_stopping_the_server_does_not_wait_for_connections_a_fault_holds():
    with SimulatorServer(config=Config(seed=2, auth="off")) as server:
        server.add_fault({"kind": "timeout", "seconds": 60, "match": {"operation": "whoami"}})
        server.add_fault({"kind": "latency", "ms": 30000, "match": {"operation": "list_wallets"}})
        sockets = []
        for op in ("whoami", "list_wallets"):
            sock = socket.create_connection((server.host, server.port))
            body = b'{"organizationId": "x"}'
            sock.sendall(
                b"POST /public/v1/query/%s HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\n"
                % (op.encode(), len(body))
                + body
            )
            sockets.append(sock)
        deadline = time.monotonic() + 10
        while sum(f["hits"] for f in server.fault_listing()) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 3
        for sock in sockets:
            sock.settimeout(5)
            assert sock.recv(100) == b""  # closed, unanswered
            sock.close()


@pytest.mark.parametrize("when", ["before", "after"])
def test_late_answers_hold_no_worker(simulator, simulator_credentials, when):
    """Four requests made late by 2 s (more than the API's workers): a fifth is answered at once."""
    client = python_client(simulator, simulator_credentials)
    with simulator.fault("latency", match={"operation": "create_wallet"}, ms=2000, when=when):
        late = [threading.Thread(target=attempt, args=(client, f"late{i}")) for i in range(4)]
        for t in late:
            t.start()
        deadline = time.monotonic() + 10
        while simulator.fault_listing()[0]["hits"] < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        started = time.monotonic()
        assert client.get_whoami().username == "Root User"
        took = time.monotonic() - started
        for t in late:
            t.join(10)
    assert took < 1.0 and len([w for i in range(4) for w in wallets_named(simulator, f"late{i}")]) == 4


def test_a_transport_that_carries_only_the_application_faults_refuses_the_others():
    from simulator.faults import APPLICATION_KINDS, FaultError, Faults

    carried = Faults(1, APPLICATION_KINDS, "granian")
    assert carried.add({"kind": "unavailable"})["name"] == "fault-1"
    with pytest.raises(FaultError, match="the granian transport does not do .* --server waitress"):
        carried.add({"kind": "slow"})
    assert [f["kind"] for f in carried.listing()] == ["unavailable"]
