"""The ``serve`` command's transport and control-API switches, and the client commands' token option."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulator.config import (
    PLAN_RPS,
    SERVERS,
    WEB_APP_AUTH_PROXY_CONFIG_ID,
    Config,
    RateLimits,
    host_text,
    origin_text,
)


def transport_switches(serve: argparse.ArgumentParser) -> None:
    """The HTTP transport and its limits, on both ports (Config and simulator/server/wsgi.py say more)."""
    default = Config()
    serve.add_argument(
        "--server",
        choices=SERVERS,
        default=default.server,
        help="the HTTP server of both ports: waitress carries every limit below and every transport fault; "
        "granian (pip install 'wallet-simulator[granian]') is a Rust server in the same process, which carries the "
        "body cap, the header timeout, the header limit and the connection bound, and logs at start what it does "
        "not (the body read timeout, the faults that act on the connection: refused)",
    )
    serve.add_argument(
        "--threads",
        type=positive(int),
        default=default.threads,
        help="worker threads (both ports); API requests run on at most one per core of them",
    )
    serve.add_argument(
        "--max-connections", type=positive(int), default=default.max_connections, help="open connections per port"
    )
    serve.add_argument(
        "--max-body-bytes", type=positive(int), default=default.max_body_bytes, help="larger bodies are refused 413"
    )
    serve.add_argument(
        "--max-activities",
        type=positive(int),
        default=default.max_activities,
        metavar="N",
        help="activities kept; beyond it the oldest finished ones are forgotten (never one still waiting)",
    )
    serve.add_argument(
        "--header-timeout",
        type=positive(float),
        default=default.header_timeout_seconds,
        metavar="SECONDS",
        help="a request's line and headers must arrive within this of its first byte",
    )
    serve.add_argument(
        "--read-timeout",
        type=positive(float),
        default=default.read_timeout_seconds,
        metavar="SECONDS",
        help="a request's body must arrive within this of its headers; idle connections close after it",
    )


def positive(kind: Callable[[str], float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in "invalid int value"
    return parse


def control_switches(serve: argparse.ArgumentParser) -> None:
    """The webhook timeout and the control API's protection (Config says more)."""
    serve.add_argument(
        "--webhook-timeout",
        type=positive(float),
        default=Config().webhook_timeout_seconds,
        metavar="SECONDS",
        help="a receiver answering within this (real time) is never retried; slower answers are retried",
    )
    serve.add_argument(
        "--control-token",
        type=token_text,
        default=os.environ.get("WALLET_SIMULATOR_CONTROL_TOKEN") or None,
        metavar="TOKEN",
        help="require this token on the control API (/_simulator): 'Authorization: Bearer TOKEN' or "
        "'X-Simulator-Control-Token: TOKEN'; default: $WALLET_SIMULATOR_CONTROL_TOKEN",
    )
    serve.add_argument(
        "--no-control", dest="control", action="store_false", help="do not serve the control API (/_simulator) at all"
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        type=host_argument,
        default=[],
        metavar="NAME",
        help="answer requests whose Host is NAME too (repeatable; .example.com: it and its subdomains; *: any); "
        "every port answers localhost, *.localhost, IP addresses and the --host value, and refuses other names "
        "(403), a guard against DNS rebinding",
    )
    serve.add_argument(
        "--scenario-dir",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="a directory the control API may load scenario files from (repeatable), besides the working directory, "
        "the folders of the --scenario files and the shipped scenarios",
    )
    serve.add_argument(
        "--no-inspector",
        dest="inspector",
        action="store_false",
        help="do not serve the inspector page (/_simulator/ui; it needs the control API, so --no-control ends it too)",
    )


def web_app_switches(serve: argparse.ArgumentParser) -> None:
    """Browser origins (CORS) and the auth proxy at start: one command for a web app (Config says more)."""
    default = Config()
    serve.add_argument(
        "--cors-origin",
        action="append",
        type=origin_argument,
        default=[],
        metavar="ORIGIN",
        help="answer browser calls from this origin (scheme://host[:port]; repeatable); default: loopback origins "
        "only (http(s)://localhost, *.localhost, 127.0.0.0/8, [::1], any port); '*': every origin, as the service "
        "does (logged as a warning); the auth proxy enabled by --auth-proxy allows the same origins",
    )
    serve.add_argument(
        "--auth-proxy",
        action="store_true",
        help="enable the auth proxy for the default organization at start; the ready line names it "
        "(authProxyConfigId); any --auth-proxy-* switch turns it on too",
    )
    serve.add_argument(
        "--auth-proxy-config-id",
        type=token_text,
        metavar="ID",
        help=f"its configuration id, the X-Auth-Proxy-Config-Id value (default: {WEB_APP_AUTH_PROXY_CONFIG_ID})",
    )
    serve.add_argument(
        "--auth-proxy-session-seconds",
        type=positive(int),
        metavar="SECONDS",
        help=f"expiry of the sessions its logins make (default: {default.auth_proxy_session_seconds})",
    )
    serve.add_argument(
        "--auth-proxy-otp-length",
        type=int,
        choices=range(6, 10),
        metavar="6-9",
        help=f"length of the codes its otp_init sends (default: {default.auth_proxy_otp_length})",
    )
    serve.add_argument(
        "--auth-proxy-otp-alphanumeric",
        action="store_true",
        default=None,
        help="its codes use letters and digits (default: digits only)",
    )


def web_app_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The Config fields of the switches above; unset ones keep Config's defaults."""
    given = {
        "auth_proxy_config_id": args.auth_proxy_config_id,
        "auth_proxy_session_seconds": args.auth_proxy_session_seconds,
        "auth_proxy_otp_length": args.auth_proxy_otp_length,
        "auth_proxy_otp_alphanumeric": args.auth_proxy_otp_alphanumeric,
    }
    settings: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    return {**settings, "cors_origins": tuple(args.cors_origin), "auth_proxy": args.auth_proxy or bool(settings)}


def origin_argument(text: str) -> str:
    try:
        return origin_text(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def host_argument(text: str) -> str:
    try:
        return host_text(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def token_text(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def control_token_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--control-token",
        default=os.environ.get("WALLET_SIMULATOR_CONTROL_TOKEN"),
        help="the token the simulator's control API requires (default: $WALLET_SIMULATOR_CONTROL_TOKEN)",
    )


def rate_limit_switch(serve: argparse.ArgumentParser) -> None:
    """The service's rate limits, off unless asked (Config.rate_limits, simulator/consensus/throttle.py)."""
    serve.add_argument(
        "--rate-limits",
        nargs="?",
        const="enterprise",
        choices=tuple(PLAN_RPS),
        metavar="PLAN",
        help="answer 429 as the service does past its documented budgets, on the simulator's clock: 10 requests "
        "per second per sub-organization, and the plan's rate (default enterprise: 60; free, pay-as-you-go: 1; "
        "pro: 3) shared by a parent organization and its sub-organizations, as per-minute buckets",
    )


def documented_rules_switch(serve: argparse.ArgumentParser) -> None:
    """The documented rules enforced after 0.2.0, turned off (Config.lenient_documented_rules)."""
    serve.add_argument(
        "--lenient-documented-rules",
        action="store_true",
        help="do not enforce the documented rules added after 0.2.0, as 0.2.0 did not: organization features "
        "(FEATURE_NAME_EMAIL_AUTH, FEATURE_NAME_OTP_EMAIL_AUTH) refusing e-mail auth and OTP, imports only for the "
        "requester's own user, sign_transaction refused to ADDRESS_FORMAT_COMPRESSED accounts, Solana IDLs without "
        "a types key (a scenario's lenientDocumentedRules: true does the same)",
    )


def rate_limits_setting(args: argparse.Namespace) -> RateLimits | None:
    return None if args.rate_limits is None else RateLimits.plan(args.rate_limits)


def data_dir_switches(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help="keep the whole state in DIR across restarts and crashes (created if absent; one simulator at a "
        "time), with the seed it was made with (the directory's seed wins over --seed); without it the state lives in "
        "memory only",
    )
    serve.add_argument(
        "--data-durability",
        choices=("always", "everysec", "no"),
        default="everysec",
        help="with --data-dir: every change is written before its answer, so a killed simulator loses nothing in "
        "any mode; everysec (default) syncs it to disk within a second, always before its answer (slower: an "
        "fsync per change), no leaves it to the OS. A power cut can lose the last second with everysec",
    )
