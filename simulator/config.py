"""Settings of one simulator instance."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

TEN_MINUTES_MS = 10 * 60 * 1000
# the auth proxy configuration `serve --auth-proxy` (and the shipped web_app scenario) enable: a fixed id, so an
# app's configuration can name it before the simulator starts
WEB_APP_AUTH_PROXY_CONFIG_ID = "5f1c0c5e-0000-4000-8000-00000000c001"
# what a browser sends as Origin: scheme://host[:port], no path; "null" for file: pages and sandboxed frames
ORIGIN = re.compile(r"^(null|\*|[a-z][a-z0-9+.-]*://[^/?#\s]+)$")
SERVERS = ("waitress", "granian")  # Config.server: the HTTP transports serve can run both ports on
STRICT_RESPONSES_ENV = "WALLET_SIMULATOR_STRICT_RESPONSES"  # "1": every Config defaults to strict_responses


@dataclass(frozen=True)
class Config:
    """How a simulator behaves; every field has a command-line switch of the same name.

    ``scenarios`` empty means the embedded default (scenarios/default.yaml).
    ``timestamp_window_ms`` bounds how far an activity's ``timestampMs`` may be from real time
    (either way; the client's clock is a real clock, so moving the simulated clock never breaks
    the official clients); ``liveness_clock="simulated"`` measures it against the simulated
    clock instead, for suites that stamp with simulated time; the default ``"auto"`` is real
    time, except for a clock started frozen (``frozen_clock_ms``), whose users stamp the frozen
    time; ``None`` turns the check off.
    """

    seed: int | None = None
    scenarios: tuple[Path, ...] = field(default_factory=tuple)
    auth: str = "verify"  # "verify" or "off"
    allow_unknown_fields: bool = False
    timestamp_window_ms: int | None = TEN_MINUTES_MS
    liveness_clock: str = "auto"  # "auto", "real" or "simulated": what timestampMs is checked against
    max_body_bytes: int = 2 * 1024 * 1024  # larger request bodies are refused 413 on every port
    frozen_clock_ms: int | None = None
    # activities kept: beyond it the oldest finished ones are forgotten (never one still waiting); None: all
    max_activities: int | None = 50_000
    webhook_retries: int = 5  # attempts after the first, for 5xx and network errors
    webhook_backoff_seconds: float = 1.0  # first retry delay (simulator clock), doubling each time
    # a receiver answering within this is never retried; long enough for a receiver under a debugger or a busy CI box
    webhook_timeout_seconds: float = 10.0  # per attempt: to connect, and for each read of the answer (real time)
    # the control API (/_simulator): served at all, and the token it then requires (None: none)
    control: bool = True
    control_token: str | None = None  # Authorization: Bearer <token> or X-Simulator-Control-Token: <token>
    inspector: bool = False  # the page at /_simulator/ui (with the control API only); `serve` turns it on
    # transport (simulator/server/wsgi.py), for every port: main (with the control API) and auth proxy
    threads: int = 8  # worker threads answering requests, shared by the ports; reading never holds one; API
    # requests run on at most one per core (simulator/wsgi.WorkerPools), the control API on these
    max_connections: int = 256  # open connections per port; more wait in the listen backlog
    header_timeout_seconds: float = 10.0  # a request's line and headers must arrive within this of its first byte
    read_timeout_seconds: float = 30.0  # for its body after the headers, and the longest a connection may idle
    # the HTTP server of both ports: "waitress" (simulator/server/wsgi.py, every limit above and every transport fault) or
    # "granian" (simulator/server/granian_server.py, the optional extra: what it cannot carry is refused or logged at start)
    server: str = "waitress"
    # every 200 answer checked against the public swagger's response schema (simulator/operations/response_check.py): a mismatch
    # answers 500 and is kept in crashes (the pytest plugin fails the test); test suites turn it on by environment
    strict_responses: bool = field(default_factory=lambda: os.environ.get(STRICT_RESPONSES_ENV) == "1")
    # an e-mail address whose domain cannot receive mail (.test, .example: RFC 2606, 6761) refused "could not reach
    # email" as the service refuses it (simulator/model/email_address.py); False: accepted with a warning in the log
    # and the request's journal entry, since test data uses those names (a scenario's `strictEmail: true` sets it too)
    strict_email: bool = False
    # browser origins the main interface answers (CORS, simulator/web/cors.py); empty: loopback origins only
    # (http(s)://localhost, *.localhost, 127.0.0.0/8, [::1], any port); "*" every origin, as the service does for its
    # browser SDKs; a scenario's `cors: {origins: [...]}` adds to these
    cors_origins: tuple[str, ...] = ()
    # Host names every port answers beyond localhost, *.localhost, IP addresses and the --host it listens on
    # (simulator/server/host_check.py, a DNS rebinding guard); ".example.com" allows its subdomains, "*" every name
    allowed_hosts: tuple[str, ...] = ()
    # directories the control API (POST /_simulator/scenarios) loads scenario files from, besides the working
    # directory, the folders of `scenarios` and the shipped scenarios (simulator/control/control_scenarios.py)
    scenario_dirs: tuple[Path, ...] = field(default_factory=tuple)
    # the auth proxy enabled at start for the default organization (the ready line's), with these settings; its
    # allowed origins are cors_origins (every origin when none)
    auth_proxy: bool = False
    auth_proxy_config_id: str = WEB_APP_AUTH_PROXY_CONFIG_ID
    auth_proxy_session_seconds: int = 900  # sessionExpirationSeconds of the sessions its logins make
    auth_proxy_otp_length: int = 6  # otpLength of the codes its otp_init sends (6 to 9)
    auth_proxy_otp_alphanumeric: bool = False  # otpAlphanumeric
    # the service's rate limits (simulator/consensus/throttle.py), on the simulator's clock; None: none, as
    # before (serve --rate-limits [PLAN], a scenario's `rateLimits:` key)
    rate_limits: RateLimits | None = None
    # serve --data-dir: the whole state kept in this directory across restarts and crashes (simulator/datadir/);
    # None: in memory only. data_durability: "everysec" (written before each answer, synced within a second), "always" (synced before each answer) or "no"
    data_dir: Path | None = None
    data_durability: str = "everysec"
    # the documented rules enforced after 0.2.0 (simulator/model/documented_rules.py) turned off, as in 0.2.0:
    # organization features refusing e-mail auth and OTP, imports for another user, sign_transaction with an
    # ADDRESS_FORMAT_COMPRESSED account, Solana IDLs without `types` (a scenario's `lenientDocumentedRules: true`)
    lenient_documented_rules: bool = False

    def __post_init__(self) -> None:
        if self.auth not in ("verify", "off"):
            raise ValueError(f"auth must be 'verify' or 'off', got {self.auth!r}")
        if self.liveness_clock not in ("auto", "real", "simulated"):
            raise ValueError(f"liveness_clock must be 'auto', 'real' or 'simulated', got {self.liveness_clock!r}")
        if self.max_activities is not None and self.max_activities < 1:
            raise ValueError(
                f"max_activities must be at least 1 (None keeps every activity), got {self.max_activities!r}"
            )
        if not self.webhook_timeout_seconds > 0:
            raise ValueError(f"webhook_timeout_seconds must be positive, got {self.webhook_timeout_seconds!r}")
        if self.control_token is not None and not self.control_token.strip():
            raise ValueError("control_token must not be empty (None turns the token off)")
        object.__setattr__(self, "cors_origins", tuple(origin_text(o) for o in self.cors_origins))
        object.__setattr__(self, "allowed_hosts", tuple(host_text(h) for h in self.allowed_hosts))
        self.check_auth_proxy()
        if self.server not in SERVERS:
            raise ValueError(f"server must be {' or '.join(map(repr, SERVERS))}, got {self.server!r}")
        if self.data_durability not in ("always", "everysec", "no"):
            raise ValueError(f"data_durability must be 'always', 'everysec' or 'no', got {self.data_durability!r}")
        if self.rate_limits is not None and not isinstance(self.rate_limits, RateLimits):
            raise ValueError(f"rate_limits must be a RateLimits or None, got {self.rate_limits!r}")

    def check_auth_proxy(self) -> None:
        if not self.auth_proxy_config_id.strip():
            raise ValueError("auth_proxy_config_id must not be empty")
        if not 6 <= self.auth_proxy_otp_length <= 9:
            raise ValueError(f"auth_proxy_otp_length must be 6 to 9, got {self.auth_proxy_otp_length!r}")
        if self.auth_proxy_session_seconds < 1:
            raise ValueError(f"auth_proxy_session_seconds must be positive, got {self.auth_proxy_session_seconds!r}")

    def auth_proxy_settings(self) -> dict[str, object]:
        """The auth proxy configuration ``auth_proxy`` enables, in the names of auth_proxy_config/config.py."""
        return {
            "configId": self.auth_proxy_config_id,
            "allowedOrigins": list(self.cors_origins),  # none: loopback origins (proxy_config.origin_allowed)
            "sessionExpirationSeconds": str(self.auth_proxy_session_seconds),
            "otpLength": str(self.auth_proxy_otp_length),
            "otpAlphanumeric": self.auth_proxy_otp_alphanumeric,
        }

    @property
    def liveness_on_simulated_clock(self) -> bool:
        return self.liveness_clock == "simulated" or (
            self.liveness_clock == "auto" and self.frozen_clock_ms is not None
        )


def origin_text(text: str) -> str:
    """A browser origin as the browser sends it (``http://localhost:3000``): a trailing ``/`` is dropped,
    the scheme and host lower-cased; a path or a bare host is refused, since it could never match."""
    origin = text.strip().rstrip("/")
    scheme, sep, rest = origin.partition("://")
    origin = f"{scheme.lower()}{sep}{rest.lower()}" if sep else origin
    if not ORIGIN.match(origin):
        raise ValueError(
            f"{text!r} is not a browser origin: write scheme://host[:port] with no path, like http://localhost:3000"
        )
    return origin


def host_text(text: str) -> str:
    """A name for ``allowed_hosts``: ``sim.test``, ``.example.com`` (and its subdomains) or ``*``; no port, no scheme."""
    name = text.strip().lower().rstrip(".")
    if not HOST_NAME.match(name):
        raise ValueError(f"{text!r} is not a host name: write it as a browser's Host header has it, without the port")
    return name


HOST_NAME = re.compile(r"^(\*|\.?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*)$")


# rate limits (docs.turnkey.com/reference/rate-limits) -------------------------------------------------------
# the documented plan rates (requests per second), applied to a parent organization and its sub-organizations together
PLAN_RPS = {"free": 1, "pay-as-you-go": 1, "pro": 3, "enterprise": 60}
SUB_ORGANIZATION_RPS = 10  # the documented default per sub-organization, across plans
# endpoints with "separate default 10 RPS limits across all plans": broadcast EVM and SVM transactions, get balances
ENDPOINT_RPS = 10
LIMITED_ENDPOINTS = ("eth_send_transaction", "sol_send_transaction", "get_wallet_address_balances")
BUCKET_SECONDS = 60  # "rates are enforced as per-minute buckets that refill continuously"


@dataclass(frozen=True)
class Budget:
    """A bucket of ``requests`` that refills continuously over ``seconds`` (so a burst of ``requests``
    passes at once, then one more every ``seconds / requests``)."""

    requests: int
    seconds: float

    def __post_init__(self) -> None:
        if isinstance(self.requests, bool) or not isinstance(self.requests, int) or self.requests < 1:
            raise ValueError(f"a rate-limit budget's requests must be a positive integer, got {self.requests!r}")
        if isinstance(self.seconds, bool) or not isinstance(self.seconds, (int, float)) or not self.seconds >= 0.001:
            raise ValueError(f"a rate-limit budget's seconds must be at least 0.001, got {self.seconds!r}")

    @classmethod
    def per_second(cls, rps: int) -> Budget:
        return cls(rps * BUCKET_SECONDS, BUCKET_SECONDS)


@dataclass(frozen=True)
class RateLimits:
    """The budgets the service applies to every request: one per sub-organization, one shared by a parent
    organization and all its sub-organizations (the plan rate). ``None`` turns one off.

    The defaults are the documented ones for the Enterprise plan (60 RPS shared, 10 RPS per sub-organization):
    the one plan under which the per-sub-organization limit can be reached; ``RateLimits.plan("free")`` etc.
    ``per_endpoint`` is each organization's own bucket for each of ``LIMITED_ENDPOINTS``.
    """

    per_sub_organization: Budget | None = field(default_factory=lambda: Budget.per_second(SUB_ORGANIZATION_RPS))
    per_parent: Budget | None = field(default_factory=lambda: Budget.per_second(PLAN_RPS["enterprise"]))
    per_endpoint: Budget | None = field(default_factory=lambda: Budget.per_second(ENDPOINT_RPS))

    @classmethod
    def plan(cls, name: str) -> RateLimits:
        if name not in PLAN_RPS:
            raise ValueError(f"unknown plan {name!r}; the documented plans are {', '.join(PLAN_RPS)}")
        return cls(per_parent=Budget.per_second(PLAN_RPS[name]))
