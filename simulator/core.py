"""The Simulator: the composition root that owns state, clock, random source, schemas and scenarios.

It wires the parts (the pipeline, webhooks, the journal, the recorder, scenarios) and offers
them to tests; the behaviour lives in the modules it calls.
"""

from __future__ import annotations

import time
import warnings
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from simulator import auth, faults, pipeline
from simulator.auth.stamps import Stamp
from simulator.auth_proxy_config import config as proxy_config
from simulator.clock import Clock, Source
from simulator.config import Config
from simulator.consensus.decisions import VoteSelection
from simulator.consensus.explain import explain
from simulator.handler_support.context import Context
from simulator.http.log_entry import RequestLogEntry
from simulator.model import mnemonic_pool
from simulator.operations.validation import Schemas
from simulator.paths import data_dir
from simulator.scenario import load_scenario, seed
from simulator.scenario.recording import Recorder
from simulator.state import codec
from simulator.state.activity import Activity
from simulator.state.store import MnemonicStream, Store
from simulator.webhooks.deliveries import Webhooks
from simulator.wire import Json

DEFAULT_SCENARIO = data_dir("scenarios") / "default.yaml"


def live_stream(services: pipeline.Services) -> Callable[[], MnemonicStream]:
    """The current store's mnemonic stream (the store is replaced on reset), its services held weakly: the
    pool is registered process-wide and must not keep the simulator alive."""
    ref = weakref.ref(services)

    def stream() -> MnemonicStream:
        alive = ref()
        return alive.store.mnemonic_stream if alive is not None else MnemonicStream()

    return stream


def scenario_key(paths: tuple[Path, ...]) -> tuple[str, ...]:
    return tuple(str(Path(p).resolve()) for p in paths) or (str(DEFAULT_SCENARIO),)


class Simulator:
    """A complete simulated service. Thread-safe: one lock guards the store.

    ``reset()`` restores the state right after the scenarios were loaded, including the
    random source and the clock, so a seeded run repeats exactly after every reset.
    """

    def __init__(self, config: Config | None = None, *, schemas: Schemas | None = None) -> None:
        config = config or Config()
        # what the pipeline works on, handed to it (simulator/pipeline.py): the store, its lock, the clock, the
        # seeded source, the schemas, the rules, the journal, the recorder and the listeners; the attributes
        # below of those names are the same objects (store, config, rules and recorder: views, since replaced)
        self.services = pipeline.Services(
            config=config,
            clock=Clock(config.frozen_clock_ms),
            source=Source(config.seed),
            schemas=schemas or Schemas(allow_unknown_fields=config.allow_unknown_fields),
            store=Store(),
        )
        self.clock, self.source, self.schemas = self.services.clock, self.services.source, self.services.schemas
        self.lock = self.services.lock
        self.journal = self.services.journal  # every main-interface request and its outcome
        self.crashes = self.services.crashes  # internal errors, kept so a test can surface them
        self.listeners = self.services.listeners  # told of "created" and "status" events
        self.store.mnemonic_stream = MnemonicStream(mnemonic_pool.stream_key(self.source.seed))
        self.store.retention.limit = self.config.max_activities
        self.store.strict_email = self.config.strict_email  # a loaded scenario's strictEmail: true turns it on too
        self.scenario_lenient = False  # a loaded scenario's lenientDocumentedRules: true
        self.store.enforce_documented_rules = not self.config.lenient_documented_rules
        # new wallets' mnemonics, computed ahead
        self.mnemonics = mnemonic_pool.MnemonicPool(live_stream(self.services))
        mnemonic_pool.serve(self.source, self.mnemonics)
        self.credentials: list[Json] = []
        self.saved_snapshots: dict[str, object] = {}  # snapshots taken through the control API
        self.webhooks = Webhooks(self.services, self.config.webhook_retries, self.config.webhook_backoff_seconds)
        # transport faults on chosen requests (simulator/faults.py); granian carries the application's only
        carried = faults.KINDS if self.config.server == "waitress" else faults.APPLICATION_KINDS
        self.faults = faults.Faults(self.source.seed, carried, self.config.server)
        self.scenario_faults: list[Json] = []  # the loaded scenarios' `faults:`, what a reset goes back to
        self.fault_gate = FaultGate(self)
        self.listeners.append(self.webhooks.on_event)
        self.clock.on_move(lambda _now: self.settle_due())
        for path in self.config.scenarios or (DEFAULT_SCENARIO,):
            self.load(Path(path))
        if self.config.auth_proxy:  # serve --auth-proxy: part of the state every reset returns to
            self.enable_web_app_proxy()
        # e-mail reachability refused (Config.strict_email, or a scenario's strictEmail), else warned: what every
        # reset and imported state returns to (a store's setting is not part of its state)
        self.strict_email = self.store.strict_email
        self._baseline = self._capture()
        self._scenario_cache = {scenario_key(self.config.scenarios): self._baseline}
        self._scenario_faults = {scenario_key(self.config.scenarios): list(self.scenario_faults)}
        self._scenario_strict_email = {scenario_key(self.config.scenarios): self.strict_email}
        self._scenario_lenient = {scenario_key(self.config.scenarios): self.scenario_lenient}

    # the pipeline's parts the Simulator replaces: views of ``services`` ------------------------------
    @property
    def store(self) -> Store:
        return self.services.store

    @store.setter
    def store(self, store: Store) -> None:
        self.services.store = store

    @property
    def config(self) -> Config:
        return self.services.config

    @config.setter
    def config(self, config: Config) -> None:
        self.services.config = config

    @property
    def rules(self) -> list[Json]:
        """Scripted outcomes, from every loaded scenario, first match wins."""
        return self.services.rules

    @rules.setter
    def rules(self, rules: list[Json]) -> None:
        self.services.rules = rules

    @property
    def recorder(self) -> Recorder | None:
        """``serve --record``: the session as a replayable scenario (``start_recording``)."""
        return self.services.recorder

    @recorder.setter
    def recorder(self, recorder: Recorder | None) -> None:
        self.services.recorder = recorder

    # scenarios and reset -------------------------------------------------------------------
    def load(self, path: Path) -> list[Json]:
        """Add a scenario file's organizations; returns the key pairs it generated or declared."""
        scenario = load_scenario(path, trusted=path == DEFAULT_SCENARIO)
        included = [pair for name in scenario.data.get("include", []) for pair in self.load(path.parent / name)]
        with self.lock:
            if scenario.data.get("strictEmail") is True:
                self.store.strict_email = True
            made = seed.apply(scenario, self.store, self.source, self.clock.now_ms())
            self.rules.extend(seed.rules(scenario, self.rules))
            if scenario.data.get("lenientDocumentedRules"):
                self.scenario_lenient, self.store.enforce_documented_rules = True, False
            for i, spec in enumerate(scenario.data.get("faults", [])):
                try:
                    # a name of no operation was warned of by the file's checks: it loads, and never fires
                    self.scenario_faults.append(self.faults.add(spec, strict_names=False))
                except faults.FaultError as exc:
                    raise scenario.error(("faults", i), str(exc)) from None
            self.credentials.extend(made)
        return included + made

    def reset(self) -> None:
        """Back to the loaded scenarios: state, random source, clock; the journal is emptied."""
        with self.lock:
            self._restore(self._baseline)
            self.journal.clear()
            self.webhooks.reset()
            self.faults.replace(self.scenario_faults)

    def start_recording(self, path: Path) -> Recorder:
        """Record from now on every main-interface request as a step of a scenario saved to ``path``."""
        scenarios = [Path(p) for p in self.config.scenarios] or [DEFAULT_SCENARIO]
        recorder = self.recorder = Recorder(path, scenarios, self.source.seed, self.credentials)
        return recorder

    def record(self, path: Path) -> Recorder:
        """``start_recording``'s name in 0.3 ("record" is a stored row of the state, ARCHITECTURE.md): warns."""
        warnings.warn("Simulator.record is now Simulator.start_recording", DeprecationWarning, stacklevel=2)
        return self.start_recording(path)

    def use_scenarios(self, paths: tuple[Path, ...] | list[Path]) -> None:
        """Make ``paths`` the loaded scenarios and reset to them (built once, then restored)."""
        key = scenario_key(tuple(paths))
        with self.lock:
            baseline = self._scenario_cache.get(key)
            if baseline is None:
                fresh = Simulator(replace(self.config, scenarios=tuple(Path(p) for p in paths)), schemas=self.schemas)
                baseline = self._scenario_cache[key] = fresh._baseline
                self._scenario_faults[key] = fresh.scenario_faults
                self._scenario_strict_email[key] = fresh.strict_email
                self._scenario_lenient[key] = fresh.scenario_lenient
            self._baseline = baseline
            self.scenario_faults = list(self._scenario_faults[key])
            self.strict_email = self._scenario_strict_email[key]
            self.scenario_lenient = self._scenario_lenient[key]
            self.reset()

    def export_state(self) -> Json:
        """Everything (state, random source, clock, rules, key pairs) as readable JSON."""
        return {key: codec.encode(value) if through_codec else value for key, value, through_codec in self._export()}

    def export_state_chunks(self) -> Iterator[str]:
        """``export_state()`` as compact JSON text in pieces (what ``GET /_simulator/state`` sends):
        copied under the lock, written outside it, giving way to other requests as it goes."""
        return codec.iter_document(self._export())

    def _export(self) -> list[tuple[str, Any, bool]]:
        """The export's members (name, value, whether it goes through the state codec), copied under the lock."""
        with self.lock:
            store, source, clock, credentials, rules = self._capture()
        return [
            ("format", "wallet-simulator-state/1", False),
            ("containsSecrets", True, False),
            ("secretsNote", "private keys, mnemonics and passkey keys in the clear: keep this document private", False),
            ("store", store, True),
            ("source", source, True),
            ("clock", list(clock), False),
            ("credentials", credentials, False),
            ("rules", rules, False),
        ]

    def import_state(self, data: Json) -> None:
        """Replace everything with an export_state() document (older versions' documents too)."""
        if data.get("format") != "wallet-simulator-state/1":
            raise ValueError("not a wallet-simulator state export (format wallet-simulator-state/1)")
        snapshot = (
            codec.decode(data["store"]),
            codec.decode(data["source"]),
            tuple(data["clock"]),
            data["credentials"],
            data["rules"],
        )
        with self.lock:
            self._restore(snapshot, owned=True)  # decoded just now: nobody else holds it, no copy needed
            if not self.store.mnemonic_stream.key:  # a document from before the mnemonic stream
                self.store.mnemonic_stream = MnemonicStream(mnemonic_pool.stream_key(self.source.seed))

    def export_kept_state(self, memo: codec.SettledMemo | None = None) -> Json:
        """What ``serve --data-dir`` keeps: the export document, the seed, and the control API's snapshots
        (``memo``: settled activities encoded by the previous call are reused)."""
        with self.lock:
            members = self._export()
            snapshots = dict(self.saved_snapshots)
        with memo or codec.SettledMemo():
            document = {key: codec.encode(v) if through_codec else v for key, v, through_codec in members}
            document["snapshots"] = {name: encode_capture(capture) for name, capture in snapshots.items()}
        document["seed"] = self.source.seed
        document["webhooks"] = {"deliveries": self.webhooks.log_from(0), "nextEvent": self.webhooks.event_position}
        return document

    def import_kept_state(self, document: Json) -> None:
        """Continue from an ``export_kept_state()`` document (the start of ``serve --data-dir``)."""
        with self.lock:
            self.import_state(document)
            if isinstance(document.get("seed"), int):
                self.source.seed = document["seed"]
            self.saved_snapshots = {
                name: decode_capture(kept) for name, kept in (document.get("snapshots") or {}).items()
            }
            kept = document.get("webhooks")  # absent in a directory of an earlier build
            if isinstance(kept, dict):
                self.webhooks.resume(kept.get("deliveries") or [], int(kept.get("nextEvent") or 0), self.source.seed)

    def snapshot(self) -> object:
        with self.lock:
            return self._capture()

    def restore(self, snapshot: object) -> None:
        with self.lock:
            self._restore(snapshot)

    def _capture(self) -> tuple[Store, object, tuple[int, int | None], list[Json], list[Json]]:
        return self.store.snapshot(), self.source.state(), self.clock.state(), list(self.credentials), list(self.rules)

    def _restore(self, snapshot: Any, *, owned: bool = False) -> None:
        """``owned``: the snapshot's store was made for this call alone (import_state), so it is used as it is;
        a kept snapshot (restore, reset) is copied, as it may be restored again. Copying a decoded store of
        50,000 activities, 20,000 wallets and 6,000 users was a fifth of serve --data-dir's start."""
        store, source_state, clock_state, credentials, rules = snapshot
        self.store = store if owned else store.snapshot()
        self.store.retention.limit = self.config.max_activities
        self.store.strict_email = self.strict_email
        self.store.enforce_documented_rules = not (self.config.lenient_documented_rules or self.scenario_lenient)
        self.source.restore(source_state)
        self.clock.restore(clock_state)
        self.credentials, self.rules = list(credentials), list(rules)

    # requests ------------------------------------------------------------------------------
    def submit(
        self,
        op: str,
        raw: bytes,
        headers: Mapping[str, str],
        content_type: str | None = "application/json",
        entry: RequestLogEntry | None = None,
        **renamed: Any,
    ) -> Json:
        """Run activity ``op``; ``entry`` (the transport's log entry) receives what it parsed and answered."""
        return pipeline.submit(self.services, op, raw, headers, content_type, entry or log_entry_of(renamed))

    def query(
        self,
        op: str,
        raw: bytes,
        headers: Mapping[str, str],
        content_type: str | None = "application/json",
        entry: RequestLogEntry | None = None,
        **renamed: Any,
    ) -> Json:
        return pipeline.query(self.services, op, raw, headers, content_type, entry or log_entry_of(renamed))

    def check_stamp(self, headers: Mapping[str, str], raw: bytes) -> Stamp | None:
        """The stamp, checked as far as it can be before the body is validated (None: auth off)."""
        return pipeline.check_stamp(self.services, headers, raw)

    def authenticate(
        self, stamp: Stamp | None, headers: Mapping[str, str], raw: bytes, org_id: str, now_ms: int
    ) -> auth.Principal:
        return pipeline.authenticate(self.services, stamp, headers, raw, org_id, now_ms)

    def settle_due(self) -> None:
        """Apply the scripted waits whose simulated time has come (called when the clock moves)."""
        pipeline.settle_due(self.services)

    def close(self) -> list[Json]:
        """Drain webhook deliveries (briefly) and stop their workers; returns what was left pending."""
        return self.webhooks.close()

    def notify(self, activity: Activity, event: str) -> None:
        """An activity was requested ("created", also for a repeated request) or changed status."""
        self.services.notify(activity, event)

    # faults ------------------------------------------------------------------------------------
    def add_fault(self, spec: Json) -> Json:
        """Start a transport fault on the requests ``spec`` matches (simulator/faults.py); returns it, named."""
        return self.faults.add(spec)

    def remove_fault(self, name: str) -> bool:
        return self.faults.remove(name)

    def clear_faults(self) -> None:
        self.faults.replace([])

    def fault_listing(self) -> list[Json]:
        """The active faults, each with how many requests it matched and hit, and the requests it hit."""
        return self.faults.listing()

    @contextmanager
    def fault(self, kind: str, **spec: Any) -> Iterator[Json]:
        """``with simulator.fault("lostAnswer", match={"operation": "create_wallet"}):`` the fault is
        active inside the block and removed after it (its listing, hits included, is what it yields)."""
        added = self.add_fault({"kind": kind, **spec})
        try:
            yield added
        finally:
            self.remove_fault(added["name"])

    # driving consensus from tests -----------------------------------------------------------
    def approve(self, activity_id: str, user_id: str) -> Json:
        """Approve as ``user_id`` without building a stamp; returns the activity."""
        return pipeline.vote_as(self.services, activity_id, user_id, VoteSelection.APPROVE)

    def reject(self, activity_id: str, user_id: str) -> Json:
        """Reject as ``user_id`` without building a stamp; returns the activity."""
        return pipeline.vote_as(self.services, activity_id, user_id, VoteSelection.REJECT)

    def explain(self, activity_id: str) -> Json:
        """Why the activity is where it is: the rule or policies that decided, the votes, the steps."""
        with self.lock:
            return explain(self.store, pipeline.find_activity(self.store, activity_id))

    # authentication flows from tests -----------------------------------------------------------
    def outbox(self, contact: str | None = None) -> list[Json]:
        """Every OTP "sent" (to ``contact``), oldest first: otpId, channel, contact, code, sentAt, ..."""
        with self.lock:
            return self.store.outbox_for(contact)

    def otp_code(self, contact: str) -> str:
        """The latest code sent to ``contact``."""
        sent = self.outbox(contact)
        if not sent:
            raise LookupError(f"no OTP was sent to {contact}")
        return str(sent[-1]["code"])

    def wait_for_otp(self, contact: str, timeout: float = 5.0, after: int = 0) -> str:
        """The code of the first OTP sent to ``contact`` beyond the ``after`` already seen."""
        sent = self.wait_for_outbox(contact, timeout, after)
        if len(sent) > after:
            return str(sent[after]["code"])
        raise TimeoutError(f"no OTP sent to {contact} within {timeout} s")

    def wait_for_outbox(self, contact: str | None, timeout: float, after: int = 0) -> list[Json]:
        """The outbox (to ``contact``) once it holds more than ``after`` messages, or as it is after
        ``timeout`` seconds: the control API's long poll (``GET /_simulator/outbox?wait=``)."""
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            sent = self.outbox(contact)
            if len(sent) > after or time.monotonic() >= deadline:
                return sent
            # a message is written by a request on another thread; a 10 ms look is what waiting costs
            time.sleep(min(0.01, max(0.0, deadline - time.monotonic())))

    def configure_auth_proxy(self, organization_id: str, **settings: Any) -> Json:
        """Enable the auth proxy for an organization (or change ``configId``'s settings)."""
        with self.lock:
            existing = self.store.proxy_configs.get(settings.get("configId") or "")
            org = self.store.org(existing["organizationId"] if existing else organization_id)
            return proxy_config.configure(Context(self.store, self.source, self.clock.now_ms(), org), settings)

    def enable_web_app_proxy(self) -> None:
        """Config.auth_proxy: enable (or, when a scenario made it, set) the configuration
        ``auth_proxy_config_id`` for the default organization; its origins are the CORS origins."""
        org_id = self.default_organization_id()
        if org_id is None:
            return  # a scenario with no organization: nothing to enable it for
        settings = self.config.auth_proxy_settings()
        settings["allowedOrigins"] = [*self.config.cors_origins, *self.store.cors_origins]  # none: loopback only
        self.configure_auth_proxy(org_id, **settings)

    def allowed_hosts(self) -> tuple[str, ...]:
        """Host names every port answers beyond the trusted ones (simulator/server/host_check.py): ``--allowed-host``
        and the loaded scenarios' ``allowedHosts``."""
        return (*self.config.allowed_hosts, *self.store.allowed_hosts)

    def default_organization_id(self) -> str | None:
        """The ready line's organization: the first declared key pair's, else the first organization."""
        try:
            return str(self.default_credentials()["organizationId"])
        except LookupError:
            return next(iter(self.store.orgs), None)

    def auth_proxy_config_id(self) -> str | None:
        """The enabled auth proxy configuration of the default organization (the ready line's
        ``authProxyConfigId``): ``Config.auth_proxy_config_id`` when it is one, else the first; None when off."""
        org_id = self.default_organization_id()
        with self.lock:
            found = [
                c["configId"]
                for c in self.store.proxy_configs.values()
                if c["organizationId"] == org_id and c.get("enabled", True)
            ]
        preferred = self.config.auth_proxy_config_id
        return preferred if preferred in found else next(iter(found), None)

    # conveniences for tests and the CLI ----------------------------------------------------
    def default_credentials(self) -> Json:
        """The first declared key pair with its private key: what the ready line prints."""
        with_private = [c for c in self.credentials if c.get("apiPrivateKey")]
        if not with_private:
            raise LookupError("no scenario declared an API key with its private key")
        return with_private[0]


def log_entry_of(renamed: dict[str, Any]) -> RequestLogEntry | None:
    """``record=``, ``entry``'s name in 0.3 (``submit`` and ``query``): still taken, with a warning."""
    if set(renamed) - {"record"}:
        raise TypeError(f"unexpected keyword arguments: {', '.join(sorted(renamed))}")
    if "record" in renamed:
        warnings.warn("the record= argument is now entry=", DeprecationWarning, stacklevel=3)
    found: RequestLogEntry | None = renamed.get("record")
    return found


def encode_capture(capture: Any) -> Json:
    store, source, clock, credentials, rules = capture
    return {
        "store": codec.encode(store),
        "source": codec.encode(source),
        "clock": list(clock),
        "credentials": credentials,
        "rules": rules,
    }


def decode_capture(kept: Json) -> object:
    store = codec.decode(kept["store"])
    return (store, codec.decode(kept["source"]), tuple(kept["clock"]), kept["credentials"], kept["rules"])


class FaultGate:
    """What the transport asks, once per complete request, before a worker runs it (simulator/server/wsgi.py):
    which fault it gets. A request a fault keeps from the application (reset, timeout) is journaled here."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim

    @property
    def armed(self) -> bool:
        return self.sim.faults.armed

    def pick(self, interface: str, path: str, raw: bytes) -> faults.Hit | None:
        sim = self.sim
        request = faults.request_of(interface, path, raw, self.org_name)
        if request is None:
            return None
        now = sim.clock.now_ms()
        hit = sim.faults.pick(request, now)
        if hit is not None and hit.kind in ("reset", "timeout"):
            kind = "proxy" if interface == "authProxy" else ("submit" if "/submit/" in path else "query")
            sim.journal.append(
                {
                    "time": now,
                    "kind": kind,
                    "op": request.operation,
                    "status": None,
                    "request": request.body,
                    "outcome": {"fault": hit.kind},
                    "fault": hit.describe(),
                }
            )
        return hit

    def org_name(self, organization_id: str) -> str | None:
        org = self.sim.store.orgs.get(organization_id)  # one dict read: no lock on the I/O thread
        return org.name if org is not None else None
