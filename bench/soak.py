"""A long run of ``serve --data-dir`` under mixed load, and its start-up with the default retention's state.

    PYTHONPATH=$PWD python bench/soak.py [--minutes 15] [--threads 4] [--restart-every 150] [--sample-every 5]
    PYTHONPATH=$PWD python bench/soak.py --startup [--rounds 3] [--activities 50000 --wallets 20000 --users 6000]

The soak: ``serve --data-dir`` (a directory of its own, or ``--data-dir``) with a scenario of ``--orgs``
organizations, driven by ``--threads`` client threads over keep-alive connections with a mix of sub-organizations
(made and deleted), wallets (made, deleted), signatures, users, user tags and policies (made and deleted), queries
and refusals (a signature with an unknown key, a body the schema refuses), while a fault thread switches transport
faults on and off (latency, unavailable, lostAnswer, reset on a few operations, at a few percent). Every
``--restart-every`` seconds (0: never) the server is stopped, alternately with SIGTERM and SIGKILL, and started again
on the same directory; every wallet and user whose creation was answered 200 (and not deleted since) must then be
there: the losses are counted. A 5xx that no ``unavailable`` fault made is counted too. Each ``--sample-every``
seconds the sampler reads the server's resident memory (RSS, and its peak since the last sample: Linux's
``VmHWM``, reset through ``clear_refs``), descriptors, threads, the directory's bytes and the latency of the
requests answered since the last sample (p50, p99, max), and notes when a fold (the log folded into ``state.json``)
happened in between. Printed at the end: the slopes per hour of each (least squares over the samples of the last
process, or of every process), the samples' peak over the RSS before it where a fold happened (target <= 1.3),
the RSS before each restart over the restarted process's after its check (a fresh process on the same data), and
at the end the last RSS over a fresh process started on the directory once the soak's stopped (target <= 1.2).

``--startup``: a directory holding ``--activities`` activities (``--wallets`` wallets, ``--users`` users, the rest
signatures), made in process through the simulator's own API and kept by the writer ``serve`` uses (built once
into ``--cache``, reused after); then ``serve`` started on a copy of it to its ready line, against ``serve``
with no directory, ``--rounds`` starts each, interleaved; medians, and the RSS of each at its ready line.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from data_dir import serve_env
from workload import KEY

from simulator.testing import ApiKeyStamper

ETH = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}
FAULT_MESSAGE = "soak fault"  # an unavailable fault's answer: its 5xx is not counted
FAULTED_OPERATIONS = ("create_wallet", "sign_raw_payload", "create_users", "list_wallets")
WALLETS_PER_ORG = 60  # below the 100 an organization holds: deleted down to half past it
Json = dict[str, Any]


def scenario(orgs: int) -> Path:
    lines = ["organizations:"]
    for i in range(orgs):
        lines += [f"  - id: soak-{i}", "    users:", f'      - apiKeys: [{{privateKey: "{KEY}"}}]']
    path = Path(tempfile.mkdtemp(prefix="soak-scenario-")) / "soak.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


# the server process -----------------------------------------------------------------------------
def start(*args: str, tree: Path | None = None) -> tuple[subprocess.Popen[str], Json, float]:
    """``serve`` (from compiled bytecode, as an installed one; ``tree``: another checkout's) and its ready line,
    and the seconds to it."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulator", "serve", "--port", "0", "--proxy-port", "0", "--seed", "1", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=serve_env() | ({"PYTHONPATH": str(tree)} if tree else {}),
        cwd=tree,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        raise SystemExit(f"serve {' '.join(args)} ended before its ready line (status {proc.wait()})")
    return proc, json.loads(line), time.perf_counter() - started


def status_of(pid: int) -> dict[str, int]:
    """RSS and its peak (KiB), threads, from /proc; descriptors counted."""
    found: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM", "Threads"):
                found[name] = int(value.split()[0])
    found["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return found


def reset_peak(pid: int) -> None:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/clear_refs", "w") as refs:
        refs.write("5")  # VmHWM back to VmRSS


def mib(kib: int) -> float:
    return kib / 1024


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.iterdir() if p.is_file())


# the clients ------------------------------------------------------------------------------------
class Connection:
    """A keep-alive connection to the main interface, stamped with the scenario's key; made again after a fault."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.stamper = ApiKeyStamper(KEY)
        self.conn: http.client.HTTPConnection | None = None

    def post(self, path: str, body: Json) -> tuple[int, Any]:
        raw = json.dumps(body).encode()
        name, value = self.stamper.stamp(raw)
        headers = {"Content-Type": "application/json", name: value}
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            try:
                self.conn.request("POST", path, raw, headers)
                reply = self.conn.getresponse()
                data = reply.read()
                return reply.status, json.loads(data) if data else None
            except (OSError, http.client.HTTPException, ValueError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class Books:
    """What was acknowledged (answered 200) and not deleted since, by organization; what the soak counted."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.wallets: dict[str, dict[str, str]] = {}  # org -> wallet id -> an address
        self.users: dict[str, set[str]] = {}
        self.uncertain: set[str] = set()  # ids a delete was sent for without its answer: either way is right
        self.tags: dict[str, list[str]] = {}
        self.policies: dict[str, list[str]] = {}
        self.sub_orgs: list[str] = []
        self.adopted: set[str] = set()  # organizations whose wallets held before the soak are in ``wallets``
        self.counts: dict[str, int] = {}
        self.latencies: list[float] = []
        self.server_errors: list[str] = []
        self.refusals: dict[str, int] = {}  # "status operation" -> count

    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1


class Client:
    """One client thread's work: a request at a time, the operation drawn by weight."""

    def __init__(self, index: int, orgs: list[str], books: Books, port: Callable[[], int], seed: int) -> None:
        self.index = index
        self.orgs = orgs
        self.books = books
        self.port = port
        self.draw = random.Random(seed)
        self.serial = 0
        self.conn: Connection | None = None
        self.ops: list[tuple[Callable[[], None], int]] = [
            (self.create_wallet, 12),
            (self.sign, 30),
            (self.create_user, 8),
            (self.tag, 5),
            (self.policy, 5),
            (self.sub_org, 2),
            (self.query, 25),
            (self.refusal, 8),
            (self.delete_user, 3),
        ]

    def request(self, path: str, org: str, body: Json) -> tuple[int, Any] | None:
        port = self.port()
        if self.conn is None or self.conn.port != port:
            self.conn = Connection(port)
        started = time.perf_counter()
        try:
            status, answer = self.conn.post(path, {"organizationId": org, **body})
        except (OSError, http.client.HTTPException, ValueError):
            self.books.count("no answer (fault or restart)")
            time.sleep(0.05)  # a restart: not a loop of refused connections
            return None
        took = time.perf_counter() - started
        books = self.books
        with books.lock:
            books.latencies.append(took)
            books.counts[f"{status // 100}xx"] = books.counts.get(f"{status // 100}xx", 0) + 1
            if status >= 400:
                what = f"{status} {path.rsplit('/', 1)[1]}"
                books.refusals[what] = books.refusals.get(what, 0) + 1
            if status >= 500 and FAULT_MESSAGE not in json.dumps(answer):
                books.server_errors.append(f"{status} {path}: {json.dumps(answer)[:300]}")
        return status, answer

    def submit(self, op: str, kind: str, org: str, parameters: Json) -> Json | None:
        self.serial += 1
        body = {"type": kind, "timestampMs": str(int(time.time() * 1000)), "parameters": parameters}
        got = self.request(f"/public/v1/submit/{op}", org, body)
        if got is None or got[0] != 200:
            return None
        activity: Json = got[1]["activity"]
        return activity if activity.get("status") == "ACTIVITY_STATUS_COMPLETED" else None

    def name(self, what: str) -> str:
        return f"{what}-{self.index}-{self.serial}-{self.draw.getrandbits(32):08x}"

    def org(self) -> str:
        return self.draw.choice(self.orgs)

    def adopt(self, org: str) -> None:
        """The wallets ``org`` held before the soak (a directory given with --copy-of), counted as acknowledged."""
        with self.books.lock:
            if org in self.books.adopted:
                return
        got = self.request("/public/v1/query/list_wallets", org, {})
        if got is None or got[0] != 200:
            return
        wallets = [w["walletId"] for w in got[1].get("wallets", [])]
        for wallet_id in wallets:
            accounts = self.request("/public/v1/query/list_wallet_accounts", org, {"walletId": wallet_id})
            if accounts is None or accounts[0] != 200 or not accounts[1].get("accounts"):
                continue
            with self.books.lock:
                self.books.wallets.setdefault(org, {})[wallet_id] = accounts[1]["accounts"][0]["address"]
        with self.books.lock:
            self.books.adopted.add(org)

    def create_wallet(self) -> None:
        org = self.org()
        self.adopt(org)
        with self.books.lock:
            held = list(self.books.wallets.get(org, {}))
        if len(held) >= WALLETS_PER_ORG:
            doomed = held[: len(held) // 2]
            with self.books.lock:
                self.books.uncertain.update(doomed)
            done = self.submit(
                "delete_wallets",
                "ACTIVITY_TYPE_DELETE_WALLETS",
                org,
                {"walletIds": doomed, "deleteWithoutExport": True},
            )
            if done is not None:
                with self.books.lock:
                    for wallet_id in doomed:
                        self.books.wallets[org].pop(wallet_id, None)
            return
        made = self.submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", org, {"walletName": self.name("w"), "accounts": [ETH]}
        )
        if made is not None:
            result = made["result"]["createWalletResult"]
            with self.books.lock:
                self.books.wallets.setdefault(org, {})[result["walletId"]] = result["addresses"][0]

    def sign(self) -> None:
        org = self.org()
        self.adopt(org)
        with self.books.lock:
            addresses = list(self.books.wallets.get(org, {}).values())[-5:]
        if not addresses:
            return self.create_wallet()
        self.serial += 1
        parameters = {
            "signWith": self.draw.choice(addresses),
            "payload": self.draw.getrandbits(256).to_bytes(32, "big").hex(),
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        }
        self.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org, parameters)

    def create_user(self) -> None:
        org = self.org()
        user = {"userName": self.name("u"), "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}
        made = self.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", org, {"users": [user]})
        if made is not None:
            with self.books.lock:
                self.books.users.setdefault(org, set()).update(made["result"]["createUsersResult"]["userIds"])

    def delete_user(self) -> None:
        org = self.org()
        with self.books.lock:
            held = sorted(self.books.users.get(org, ()))
            if len(held) < 20:
                return
            doomed = held[:5]
            self.books.uncertain.update(doomed)
        if self.submit("delete_users", "ACTIVITY_TYPE_DELETE_USERS", org, {"userIds": doomed}) is not None:
            with self.books.lock:
                self.books.users[org].difference_update(doomed)

    def tag(self) -> None:
        org = self.org()
        with self.books.lock:
            tags = self.books.tags.setdefault(org, [])
            doomed = tags[:] if len(tags) >= 10 else None
            if doomed:
                tags.clear()
        if doomed:
            self.submit("delete_user_tags", "ACTIVITY_TYPE_DELETE_USER_TAGS", org, {"userTagIds": doomed})
            return
        made = self.submit(
            "create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", org, {"userTagName": self.name("t"), "userIds": []}
        )
        if made is not None:
            with self.books.lock:
                self.books.tags[org].append(made["result"]["createUserTagResult"]["userTagId"])

    def policy(self) -> None:
        org = self.org()
        with self.books.lock:
            policies = self.books.policies.setdefault(org, [])
            doomed = policies.pop(0) if len(policies) >= 10 else None
        if doomed is not None:
            self.submit("delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", org, {"policyId": doomed})
            return
        parameters = {
            "policyName": self.name("p"),
            "effect": "EFFECT_ALLOW",
            "condition": "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.chain_id == 1",
            "consensus": "approvers.count() >= 1",
            "notes": "soak",
        }
        made = self.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", org, parameters)
        if made is not None:
            with self.books.lock:
                self.books.policies[org].append(made["result"]["createPolicyResult"]["policyId"])

    def sub_org(self) -> None:
        with self.books.lock:
            doomed = self.books.sub_orgs.pop(0) if len(self.books.sub_orgs) >= 40 else None
        if doomed is not None:  # stamped by its root user's key, in its own organization
            self.submit(
                "delete_sub_organization",
                "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION",
                doomed,
                {"deleteWithoutExport": True},
            )
            return
        key = {"apiKeyName": "root", "publicKey": ApiKeyStamper(KEY).public_key, "curveType": "API_KEY_CURVE_P256"}
        parameters = {
            "subOrganizationName": self.name("s"),
            "rootUsers": [{"userName": "root", "apiKeys": [key], "authenticators": [], "oauthProviders": []}],
            "rootQuorumThreshold": 1,
            "wallet": {"walletName": "default", "accounts": [ETH]},
        }
        made = self.submit(
            "create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", self.org(), parameters
        )
        if made is not None:
            with self.books.lock:
                self.books.sub_orgs.append(made["result"]["createSubOrganizationResultV7"]["subOrganizationId"])

    def query(self) -> None:
        org = self.org()
        op = self.draw.choice(("list_wallets", "list_users", "list_activities", "list_policies", "whoami"))
        body: Json = {"paginationOptions": {"limit": "10"}} if op == "list_activities" else {}
        self.request(f"/public/v1/query/{op}", org, body)

    def refusal(self) -> None:
        org = self.org()
        if self.draw.random() < 0.5:
            parameters = {
                "signWith": "0x" + "ab" * 20,
                "payload": "00" * 32,
                "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                "hashFunction": "HASH_FUNCTION_NO_OP",
            }
            self.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org, parameters)
        else:
            self.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", org, {"walletName": 7})

    def run(self, until: threading.Event) -> None:
        ops, weights = zip(*self.ops)
        while not until.is_set():
            op = self.draw.choices(ops, weights)[0]
            try:
                op()
            except Exception as exc:  # the soak goes on; what broke is reported
                self.books.count(f"client error in {op.__name__}: {exc!r}"[:200])
            self.books.count("requests")


# the soak ---------------------------------------------------------------------------------------
class Server:
    """The served simulator, started again on the same directory after each stop."""

    def __init__(self, data_dir: Path, scenario_path: Path) -> None:
        self.data_dir = data_dir
        self.args = ("--scenario", str(scenario_path), "--data-dir", str(data_dir))
        self.proc, self.ready, _ = start(*self.args)
        self.control = ""
        self._set_ready()

    def _set_ready(self) -> None:
        self.port = urlport(self.ready["url"])
        self.control = self.ready["url"] + "/_simulator"

    def stop(self, how: int) -> int:
        """Stopped with ``how``; the peak RSS (KiB) seen while it stopped (a SIGTERM folds the log into state.json)."""
        return stop_watching(self.proc, how)

    def restart(self) -> float:
        self.proc, self.ready, took = start(*self.args)
        self._set_ready()
        return took


def stop_watching(proc: subprocess.Popen[str], how: int) -> int:
    """``proc`` sent ``how`` and waited for; its peak RSS (KiB) from then until it ended, read every 10 ms."""
    reset_peak(proc.pid)
    proc.send_signal(how)
    peak = 0
    while proc.poll() is None:
        with contextlib.suppress(OSError, ValueError, KeyError):
            peak = max(peak, status_of(proc.pid)["VmHWM"])
        time.sleep(0.01)
    return peak


def urlport(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def control(server: Server, method: str, path: str, body: Json | None = None) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        raw = json.dumps(body).encode() if body is not None else None
        conn.request(method, "/_simulator" + path, raw, {"Content-Type": "application/json"})
        reply = conn.getresponse()
        data = reply.read()
        return json.loads(data) if data else None
    finally:
        conn.close()


def toggle_faults(server: Server, until: threading.Event, books: Books, seed: int) -> None:
    """A fault on for 10 s, then none for 20 s, the kinds in turn."""
    draw = random.Random(seed)
    kinds = [
        {"kind": "latency", "ms": 50},
        {"kind": "unavailable", "code": 14, "message": FAULT_MESSAGE},
        {"kind": "lostAnswer"},
        {"kind": "reset"},
    ]
    turn = 0
    while not until.wait(20):
        spec = {
            **kinds[turn % len(kinds)],
            "match": {"operation": draw.choice(FAULTED_OPERATIONS)},
            "probability": 0.05,
        }
        turn += 1
        with contextlib.suppress(OSError, http.client.HTTPException, ValueError):
            control(server, "POST", "/faults", spec)
            books.count("faults switched on")
        until.wait(10)
        with contextlib.suppress(OSError, http.client.HTTPException, ValueError):
            control(server, "DELETE", "/faults")


def check_kept(server: Server, books: Books) -> int:
    """Every wallet and user acknowledged (and not deleted since) is there: the count of those missing. The clients
    may still run: an id a delete was sent for by the end of the check (``uncertain``, noted before the delete is
    sent) may be gone either way."""
    conn = Connection(server.port)
    with books.lock:
        wallets = {org: set(held) for org, held in books.wallets.items()}
        users = {org: set(held) for org, held in books.users.items()}
    missing: set[str] = set()
    for org, expected in wallets.items():
        status, answer = conn.post("/public/v1/query/list_wallets", {"organizationId": org})
        there = {w["walletId"] for w in answer.get("wallets", [])} if status == 200 else set()
        missing |= expected - there
    for org, expected in users.items():
        status, answer = conn.post("/public/v1/query/list_users", {"organizationId": org})
        there = {u["userId"] for u in answer.get("users", [])} if status == 200 else set()
        missing |= expected - there
    conn.close()
    with books.lock:
        return len(missing - books.uncertain)


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    if len(points) < 2:
        return 0.0
    return float(statistics.linear_regression([t for t, _ in points], [v for _, v in points]).slope * 3600)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def soak(args: argparse.Namespace) -> None:
    orgs = [f"soak-{i}" for i in range(args.orgs)]
    scenario_path = scenario(args.orgs)
    held = tempfile.TemporaryDirectory(prefix="soak-")
    data_dir = Path(args.data_dir) if args.data_dir else Path(held.name) / "data"
    if args.copy_of:
        shutil.copytree(args.copy_of, data_dir)
    server = Server(data_dir, scenario_path)
    books = Books()
    say = print
    say(
        f"soak: {args.minutes:g} min, {args.threads} threads, restart every {args.restart_every or 'never'} s, "
        f"data dir {data_dir}, pid {server.proc.pid}",
        flush=True,
    )
    until = threading.Event()
    clients = [Client(i, orgs, books, lambda: server.port, args.seed + i) for i in range(args.threads)]
    threads = [threading.Thread(target=c.run, args=(until,), daemon=True) for c in clients]
    threads.append(threading.Thread(target=toggle_faults, args=(server, until, books, args.seed), daemon=True))
    for t in threads:
        t.start()
    started = time.monotonic()
    deadline = started + args.minutes * 60
    samples: list[Json] = []
    restarts: list[Json] = []
    lives = 0
    next_restart = started + args.restart_every if args.restart_every else None
    base_mtime = (data_dir / "state.json").stat().st_mtime_ns if (data_dir / "state.json").exists() else 0
    reset_peak(server.proc.pid)
    say("    min   RSS MiB  peak MiB  fds thr  disk MB  req/s    p50 ms   p99 ms   max ms  fold", flush=True)
    last_count = 0
    while time.monotonic() < deadline:
        time.sleep(min(args.sample_every, max(0.0, deadline - time.monotonic())))
        now = time.monotonic()
        if next_restart is not None and now >= next_restart:
            how = signal.SIGTERM if len(restarts) % 2 == 0 else signal.SIGKILL
            before = status_of(server.proc.pid)["VmRSS"]
            stopping = server.stop(how)
            took = server.restart()
            lives += 1
            lost = check_kept(server, books)
            time.sleep(args.warm)  # the clients run on: what any served process pays once is paid by then
            fresh = status_of(server.proc.pid)["VmRSS"]
            restarts.append(
                {"how": how.name, "before": before, "fresh": fresh, "lost": lost, "took": took, "stopping": stopping}
            )
            say(
                f"  restart ({how.name}): RSS before {mib(before):.0f} MiB, restarted ({args.warm:g} s of load after its "
                f"check) "
                f"{mib(fresh):.0f} MiB ({before / fresh:.2f}x), peak while stopping {mib(stopping):.0f} MiB, ready in "
                f"{took:.2f} s, lost {lost}",
                flush=True,
            )
            next_restart = time.monotonic() + args.restart_every
            reset_peak(server.proc.pid)
            continue
        seen = status_of(server.proc.pid)
        reset_peak(server.proc.pid)
        state = data_dir / "state.json"
        mtime = state.stat().st_mtime_ns if state.exists() else 0
        folded, base_mtime = mtime != base_mtime, mtime
        with books.lock:
            window, books.latencies = books.latencies, []
            count = books.counts.get("requests", 0)
        rate = (count - last_count) / args.sample_every
        last_count = count
        sample = {
            "t": now - started,
            "life": lives,
            "rss": seen["VmRSS"],
            "peak": seen["VmHWM"],
            "fds": seen["fds"],
            "threads": seen["Threads"],
            "disk": dir_bytes(data_dir),
            "state": state.stat().st_size if state.exists() else 0,
            "p50": percentile(window, 0.5) * 1000,
            "p99": percentile(window, 0.99) * 1000,
            "max": max(window, default=0) * 1000,
            "fold": folded,
        }
        samples.append(sample)
        say(
            f"  {sample['t'] / 60:6.1f} {mib(sample['rss']):8.0f} {mib(sample['peak']):9.0f} {sample['fds']:4d} "
            f"{sample['threads']:3d} {sample['disk'] / 1e6:8.1f} {rate:6.0f} {sample['p50']:9.1f} {sample['p99']:8.1f} "
            f"{sample['max']:8.1f}  {'fold' if folded else ''}",
            flush=True,
        )
    until.set()
    for t in threads:
        t.join(timeout=30)
    for c in clients:
        if c.conn is not None:
            c.conn.close()
    last_rss = status_of(server.proc.pid)["VmRSS"]
    lost_at_end = check_kept(server, books)
    end_stop = server.stop(signal.SIGTERM)  # a clean stop: the log folded into state.json
    fresh_proc, fresh_ready, fresh_took = start(*server.args)
    server.proc, server.ready = fresh_proc, fresh_ready
    server._set_ready()
    lost_after = check_kept(server, books)
    fresh = status_of(fresh_proc.pid)["VmRSS"]
    server.stop(signal.SIGTERM)
    if args.warm:  # the same load for a while on a copy, so that what any served process pays once is in both
        with copied(data_dir) as copy:
            warmed = Server(copy, scenario_path)
            fresh = warm_then_measure(warmed, orgs, args)
            warmed.stop(signal.SIGTERM)
    print(
        f"  the clean stop at the end (a fold of the log into state.json): peak {mib(end_stop):.0f} MiB over the RSS "
        f"before it {mib(last_rss):.0f} MiB = {end_stop / last_rss:.2f}x (target <= 1.3)"
    )
    report(args, samples, restarts, books, last_rss, fresh, lost_at_end + lost_after, fresh_took, data_dir)
    held.cleanup()
    shutil.rmtree(scenario_path.parent, ignore_errors=True)


def warm_then_measure(server: Server, orgs: list[str], args: argparse.Namespace) -> int:
    """``server``'s RSS (KiB) after ``args.warm`` seconds of the soak's mix from its threads (no faults)."""
    books, until = Books(), threading.Event()
    clients = [Client(i, orgs, books, lambda: server.port, args.seed + 100 + i) for i in range(args.threads)]
    threads = [threading.Thread(target=c.run, args=(until,), daemon=True) for c in clients]
    for t in threads:
        t.start()
    time.sleep(args.warm)
    until.set()
    for t in threads:
        t.join(timeout=30)
    return status_of(server.proc.pid)["VmRSS"]


def report(
    args: argparse.Namespace,
    samples: list[Json],
    restarts: list[Json],
    books: Books,
    last_rss: int,
    fresh: int,
    lost_at_end: int,
    fresh_took: float,
    data_dir: Path,
) -> None:
    say = print
    last_life = [s for s in samples if s["life"] == (samples[-1]["life"] if samples else 0)]
    if last_life and last_life[-1]["t"] - last_life[0]["t"] > 2 * args.settle:
        # a served process's first minutes pay what any pays once (compiled schemas, pools, the allocator's arenas)
        last_life = [s for s in last_life if s["t"] - last_life[0]["t"] >= args.settle]
    say("\nsummary")
    say(
        f"  requests: {books.counts.get('requests', 0)}; answers {', '.join(f'{k} {v}' for k, v in sorted(books.counts.items()) if k.endswith('xx'))}; "
        f"no answer (a fault or a restart) {books.counts.get('no answer (fault or restart)', 0)}; faults switched on "
        f"{books.counts.get('faults switched on', 0)}"
    )
    say(f"  refusals: {', '.join(f'{k} x{v}' for k, v in sorted(books.refusals.items()))}")
    for what, n in sorted(books.counts.items()):
        if what.startswith("client error"):
            say(f"  {what} x{n}")
    say(f"  5xx not made by a fault: {len(books.server_errors)}")
    for line in books.server_errors[:10]:
        say(f"    {line}")
    lost = sum(r["lost"] for r in restarts) + lost_at_end
    say(f"  acknowledged wallets and users lost: {lost} (after {len(restarts)} restarts and at the end)")
    if last_life:
        hours = (last_life[-1]["t"] - last_life[0]["t"]) / 3600
        say(
            f"  slopes per hour over the last process's {len(last_life)} samples ({hours * 60:.1f} min, from "
            f"{last_life[0]['t'] / 60:.1f} min on):"
        )
        for key, unit, scale in (
            ("rss", "MiB", 1 / 1024),
            ("state", "MB state.json", 1e-6),
            ("disk", "MB directory", 1e-6),
            ("fds", "descriptors", 1),
            ("threads", "threads", 1),
            ("p99", "ms p99", 1),
        ):
            points = [(s["t"], s[key] * scale) for s in last_life]
            say(
                f"    {unit:<14} {slope_per_hour(points):+10.2f} /h   (first {points[0][1]:.1f}, last {points[-1][1]:.1f})"
            )
        steady = [s["rss"] for s in last_life if not s["fold"]]
        say(
            f"  RSS MiB over the last process: min {mib(min(s['rss'] for s in last_life)):.0f}, median "
            f"{mib(statistics.median(steady or [0])):.0f}, max {mib(max(s['rss'] for s in last_life)):.0f}; "
            f"peak (VmHWM) max {mib(max(s['peak'] for s in last_life)):.0f}"
        )
    ratios = []
    for before, sample in zip(samples, samples[1:]):
        if sample["fold"] and sample["life"] == before["life"]:
            ratios.append(sample["peak"] / before["rss"])
    if ratios:
        say(
            f"  folds seen: {len(ratios)}; peak in the fold's sample over the RSS before it: max {max(ratios):.2f}x, "
            f"median {statistics.median(ratios):.2f}x (target <= 1.3)"
        )
    else:
        say("  folds seen: none")
    for r in restarts:
        say(
            f"  restart {r['how']}: RSS before {mib(r['before']):.0f} MiB / fresh {mib(r['fresh']):.0f} MiB = "
            f"{r['before'] / r['fresh']:.2f}x (target <= 1.2), ready in {r['took']:.2f} s, lost {r['lost']}"
        )
    say(
        f"  at the end: RSS {mib(last_rss):.0f} MiB / a fresh process on the same directory ({args.warm:g} s of the "
        f"same load after its start, on a copy) {mib(fresh):.0f} MiB = "
        f"{last_rss / fresh:.2f}x (target <= 1.2); the fresh one ready in {fresh_took:.2f} s; "
        f"state.json {(data_dir / 'state.json').stat().st_size / 1e6:.1f} MB"
    )


# start-up ---------------------------------------------------------------------------------------
def in_process(orgs: int) -> tuple[Any, Callable[[str, str, str, Json], Json]]:
    from simulator import Config, Simulator

    sim = Simulator(Config(seed=1, timestamp_window_ms=None, scenarios=(scenario(orgs),)))
    stamper = ApiKeyStamper(KEY)

    def submit(op: str, kind: str, org: str, parameters: Json) -> Json:
        body = {"type": kind, "timestampMs": "0", "organizationId": org, "parameters": parameters}
        raw = json.dumps(body).encode()
        name, value = stamper.stamp(raw)
        answer: Json = sim.submit(op, raw, {"Content-Type": "application/json", name: value})
        return answer

    return sim, submit


def build_directory(path: Path, activities: int, wallets: int, users: int) -> None:
    """``path`` holding ``activities`` activities: ``wallets`` wallets (one activity each), ``users`` users (ten an
    activity), the rest signatures; in 100-wallet organizations, kept by the writer serve uses."""
    from data_dir import kept_by_writer

    from simulator.datadir.directory import DEFAULT_DURABILITY

    orgs = max(1, -(-wallets // 100))
    sim, submit = in_process(orgs)
    addresses = []
    started = time.perf_counter()
    for n in range(wallets):
        made = submit(
            "create_wallet",
            "ACTIVITY_TYPE_CREATE_WALLET",
            f"soak-{n // 100}",
            {"walletName": f"w{n}", "accounts": [ETH]},
        )
        if n % 100 == 0:
            addresses.append((f"soak-{n // 100}", made["activity"]["result"]["createWalletResult"]["addresses"][0]))
    for n in range(0, users, 10):
        batch = [
            {"userName": f"u{n + i}", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}
            for i in range(min(10, users - n))
        ]
        submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", f"soak-{(n // 10) % orgs}", {"users": batch})
    for n in range(activities - len(sim.store.activities)):
        org, address = addresses[n % len(addresses)]
        parameters = {
            "signWith": address,
            "payload": n.to_bytes(32, "big").hex(),
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        }
        submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org, parameters)
    with kept_by_writer(sim, DEFAULT_DURABILITY, path):
        pass
    print(f"built {path}: {len(sim.store.activities)} activities in {time.perf_counter() - started:.0f} s", flush=True)


@contextlib.contextmanager
def copied(source: Path) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="soak-start-") as tmp:
        target = Path(tmp) / "data"
        shutil.copytree(source, target)
        yield target


def startup(args: argparse.Namespace) -> None:
    """Starts to the ready line, interleaved: without a directory, with the built one, and (``--against``) another
    checkout's with the directory it built (``--against-cache``); after each start on a directory, one change and
    a clean stop (a fold), its peak memory."""
    cache = Path(args.cache or tempfile.gettempdir()) / f"soak-{args.activities}-{args.wallets}-{args.users}"
    if not (cache / "state.json").exists():
        shutil.rmtree(cache, ignore_errors=True)
        build_directory(cache, args.activities, args.wallets, args.users)
    print(f"{cache}: state.json {(cache / 'state.json').stat().st_size / 1e6:.1f} MB", flush=True)
    trees: dict[str, tuple[Path | None, Path | None]] = {"plain": (None, None), "kept": (None, cache)}
    if args.against:
        other = Path(args.against_cache or cache)
        trees["other"] = (Path(args.against).resolve(), other)
        print(f"against {args.against}: {other}/state.json {(other / 'state.json').stat().st_size / 1e6:.1f} MB")
    for tree, _directory in trees.values():
        start(tree=tree)[0].terminate()  # the bytecode cache warmed (serve_env)
    times: dict[str, list[float]] = {mode: [] for mode in trees}
    rss: dict[str, list[int]] = {mode: [] for mode in trees}
    folds: dict[str, list[tuple[float, float, int, int]]] = {mode: [] for mode in trees}
    for round_ in range(max(1, args.rounds)):
        for mode in list(trees) if round_ % 2 == 0 else list(trees)[::-1]:
            tree, directory = trees[mode]
            with contextlib.ExitStack() as stack:
                extra = () if directory is None else ("--data-dir", str(stack.enter_context(copied(directory))))
                proc, ready, took = start(*extra, tree=tree)
                times[mode].append(took)
                rss[mode].append(status_of(proc.pid)["VmRSS"])
                if directory is None:
                    proc.terminate()
                    proc.wait(timeout=60)
                    continue
                folds[mode].append(one_change_then_stop(proc, ready, round_))
    plain = statistics.median(times["plain"])
    print(
        f"start-up to the ready line, medians of {max(1, args.rounds)} (target < 1 s with the directory): no data dir "
        f"{plain:.2f} s ({', '.join(f'{t:.2f}' for t in times['plain'])}), RSS {mib(statistics.median(rss['plain'])):.0f} MiB",
        flush=True,
    )
    for mode in [m for m in trees if m != "plain"]:
        name = "this tree" if mode == "kept" else str(args.against)
        print(
            f"  {name}, {args.activities} activities, {args.wallets} wallets, {args.users} users on disk: "
            f"{statistics.median(times[mode]):.2f} s ({', '.join(f'{t:.2f}' for t in times[mode])}), RSS at the ready "
            f"line {mib(statistics.median(rss[mode])):.0f} MiB",
            flush=True,
        )
        for ratio, seconds, settled, peak in folds[mode]:
            print(
                f"    a clean stop after one change (the log folded into state.json): RSS {mib(settled):.0f} MiB "
                f"before, peak {mib(peak):.0f} MiB while stopping ({ratio:.2f}x; target <= 1.3), stopped in "
                f"{seconds:.2f} s",
                flush=True,
            )


def one_change_then_stop(proc: subprocess.Popen[str], ready: Json, round_: int) -> tuple[float, float, int, int]:
    """A user made (a change record), then SIGTERM: the clean stop folds the log into state.json. The peak RSS
    while stopping over the RSS before it, the seconds it took, the two."""
    settled = status_of(proc.pid)["VmRSS"]
    conn = Connection(urlport(ready["url"]))
    user = {"userName": f"fold-{round_}", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}
    status, answer = conn.post(
        "/public/v1/submit/create_users",
        {
            "organizationId": "soak-0",
            "type": "ACTIVITY_TYPE_CREATE_USERS_V3",
            "timestampMs": str(int(time.time() * 1000)),
            "parameters": {"users": [user]},
        },
    )
    assert status == 200, answer
    conn.close()
    stopped = time.perf_counter()
    peak = stop_watching(proc, signal.SIGTERM)
    return peak / settled, time.perf_counter() - stopped, settled, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=15)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--orgs", type=int, default=20, help="the scenario's organizations the clients use")
    parser.add_argument("--restart-every", type=float, default=150, help="seconds between restarts (0: none)")
    parser.add_argument("--sample-every", type=float, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--settle", type=float, default=120, help="seconds of a long run's start its slopes leave out (warming up)"
    )
    parser.add_argument(
        "--warm", type=float, default=20, help="seconds of load a fresh process takes before its memory is read"
    )
    parser.add_argument("--data-dir", help="the directory to serve (default: a new temporary one)")
    parser.add_argument("--copy-of", help="start the soak on a copy of this directory (as --startup builds one)")
    parser.add_argument("--startup", action="store_true", help="the start-up measurement instead of the soak")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--activities", type=int, default=50_000)
    parser.add_argument("--wallets", type=int, default=20_000)
    parser.add_argument("--users", type=int, default=6_000)
    parser.add_argument("--cache", help="where the start-up's directory is built once (default: the temp folder)")
    parser.add_argument("--against", help="--startup: another checkout, started side by side on --against-cache")
    parser.add_argument("--against-cache", help="--startup: the directory the other checkout starts on (a copy)")
    args = parser.parse_args()
    try:
        startup(args) if args.startup else soak(args)
    finally:
        shutil.rmtree(serve_env()["PYTHONPYCACHEPREFIX"], ignore_errors=True)


if __name__ == "__main__":
    main()
