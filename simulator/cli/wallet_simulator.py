"""The ``wallet-simulator`` command: ``serve`` a simulator, ``check``, ``replay`` and drive it."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import warnings
from pathlib import Path
from typing import Any

from simulator import __version__, frames
from simulator.cli.cli_commands import (
    CONTROL_ACTIONS,
    CONTROL_USAGE,
    check_command,
    control_command,
    coverage_command,
    outbox_command,
    replay_command,
    state_command,
    webhooks_command,
)
from simulator.cli.cli_options import (
    control_switches,
    control_token_option,
    data_dir_switches,
    documented_rules_switch,
    rate_limit_switch,
    rate_limits_setting,
    transport_switches,
    web_app_settings,
    web_app_switches,
)
from simulator.cli.parity_commands import add_parity_commands
from simulator.config import TEN_MINUTES_MS, Config
from simulator.crypto import service_keys
from simulator.datadir.files import DataDirError
from simulator.scenario import ScenarioError, ScenarioWarning, resolve_scenario


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    show_scenario_warnings_plainly()
    try:
        return int(args.run(args))
    except BrokenPipeError:
        # The reader went away (`coverage | head`): stop quietly, and keep the exit-time flush quiet too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def show_scenario_warnings_plainly() -> None:
    """A scenario warning is one ``file:line: ...`` line on stderr, like a refusal (not Python's
    ``module:line: Category: ...`` with the warning call's source line under it)."""
    plain = warnings.formatwarning

    def format(message: Any, category: Any, *rest: Any, **more: Any) -> str:
        if issubclass(category, ScenarioWarning):
            return f"{message}\n"
        return plain(message, category, *rest, **more)

    warnings.formatwarning = format


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="wallet-simulator", description="A local simulator of Turnkey's public API.")
    top.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = top.add_subparsers(required=True, metavar="COMMAND")
    serve = commands.add_parser("serve", help="serve the main interface and the auth proxy")
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on; beyond loopback (0.0.0.0, a LAN address) the control API requires a token: "
        "--control-token, else one generated and printed in the ready line (controlToken), unless --no-control",
    )
    serve.add_argument("--port", type=int, default=8080, help="main interface port (0 picks a free one)")
    serve.add_argument("--proxy-port", type=int, default=8081, help="auth proxy port (0 picks a free one)")
    serve.add_argument(
        "--scenario",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="scenario YAML to load (repeatable); default: the embedded default scenario",
    )
    serve.add_argument(
        "--seed",
        type=int,
        help="seed for ids, keys, mnemonics and names (random when absent); a --data-dir holding a state goes on with "
        "the seed it was made with, and a different --seed is ignored with a warning",
    )
    serve.add_argument(
        "--auth", choices=("verify", "off"), default="verify", help="verify stamps, or trust every request"
    )
    serve.add_argument("--allow-unknown-fields", action="store_true", help="accept body fields the schemas do not know")
    serve.add_argument(
        "--strict-responses",
        action="store_true",
        default=Config().strict_responses,
        help="check every answer against the public swagger's response schema; a mismatch answers 500 "
        "naming the violations (default: on when $WALLET_SIMULATOR_STRICT_RESPONSES is 1)",
    )
    serve.add_argument(
        "--strict-email",
        action="store_true",
        help="refuse an e-mail address whose domain cannot receive mail (.test, .example, .invalid, .localhost, "
        ".local, .onion, .arpa) with the service's 400 'could not reach email' (INVALID_FQDN); default: accept it "
        "with a warning in the log and the request's journal entry (its syntax is always checked)",
    )
    serve.add_argument(
        "--timestamp-window",
        type=float,
        default=TEN_MINUTES_MS / 1000,
        metavar="SECONDS",
        help="how far timestampMs may be from real time (see --liveness-clock); 0 turns the check off",
    )
    serve.add_argument(
        "--liveness-clock",
        choices=("auto", "real", "simulated"),
        default="auto",
        help="check timestampMs against real time (moving the simulated clock never breaks clients) or against "
        "the simulated clock; auto (default): real time, unless --frozen-clock is given",
    )
    serve.add_argument("--frozen-clock", type=int, metavar="MS", help="freeze the simulator clock at this epoch ms")
    serve.add_argument("--webhook-retries", type=int, default=5, help="retries after a 5xx or network error")
    serve.add_argument(
        "--webhook-backoff",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="first webhook retry delay on the simulator clock, doubling each time",
    )
    control_switches(serve)
    rate_limit_switch(serve)
    documented_rules_switch(serve)
    serve.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write the session's requests as a replayable scenario to FILE when stopped",
    )
    serve.add_argument(
        "--log-format",
        choices=("text", "json"),
        default="text",
        help="log lines on stderr: text (coloured only on a terminal) or one JSON object per line",
    )
    transport_switches(serve)
    web_app_switches(serve)
    data_dir_switches(serve)
    serve.set_defaults(run=serve_command)
    outbox = commands.add_parser("outbox", help="list the OTP codes a running simulator has sent")
    outbox.add_argument("--url", default="http://127.0.0.1:8080", help="the simulator's main address")
    outbox.add_argument("--contact", help="only codes sent to this e-mail address or phone number")
    control_token_option(outbox)
    outbox.set_defaults(run=outbox_command)
    replay = commands.add_parser("replay", help="run a scenario's steps and report each, with a diff on mismatch")
    replay.add_argument("file", type=Path)
    replay.add_argument("--url", help="run against this simulator (it loads the file's scenario first)")
    replay.add_argument(
        "--no-load", dest="load", action="store_false", help="with --url: keep the running state, load nothing"
    )
    control_token_option(replay)
    replay.set_defaults(run=replay_command)
    control = commands.add_parser(
        "control",
        help=f"drive a running simulator: {', '.join(CONTROL_ACTIONS)}",
    )
    control.add_argument("action", choices=tuple(CONTROL_ACTIONS))
    control.add_argument(
        "args",
        nargs="*",
        help=CONTROL_USAGE,
    )
    control.add_argument("--url", default="http://127.0.0.1:8080")
    control_token_option(control)
    control.set_defaults(run=control_command)
    hooks = commands.add_parser("webhooks", help="list, fire or resend webhook deliveries of a running simulator")
    hooks.add_argument("action", choices=("list", "fire", "resend"))
    hooks.add_argument("--url", default="http://127.0.0.1:8080", help="the simulator's main address")
    hooks.add_argument("--activity", help="fire: the activity to deliver (default: a synthetic event)")
    hooks.add_argument("--to", help="fire: deliver to this URL instead of the organization's receivers")
    hooks.add_argument("--event", help="resend: the event id")
    control_token_option(hooks)
    hooks.set_defaults(run=webhooks_command)
    cover = commands.add_parser("coverage", help="list the public operations: implemented, partial or absent")
    cover.add_argument("--status", choices=("implemented", "partial", "absent"), help="only these")
    cover.set_defaults(run=coverage_command)
    check = commands.add_parser("check", help="check scenario files and report every problem with its line")
    check.add_argument("files", nargs="+", help="scenario files, or names of shipped scenarios")
    check.set_defaults(run=check_command)
    state = commands.add_parser(
        "state", help="export or import a running simulator's whole state, or check a --data-dir offline"
    )
    state.add_argument("action", choices=("export", "import", "check"))
    state.add_argument("target", metavar="FILE_OR_DIR", help="export/import: a JSON file; check: a data directory")
    state.add_argument("--url", default="http://127.0.0.1:8080", help="export/import: the simulator's main address")
    control_token_option(state)
    state.set_defaults(run=state_command)
    add_parity_commands(commands, ready_line)
    return top


def config_from(args: argparse.Namespace) -> Config:
    window = int(args.timestamp_window * 1000) or None
    return Config(
        seed=args.seed,
        scenarios=tuple(resolve_scenario(s) for s in args.scenario),
        auth=args.auth,
        allow_unknown_fields=args.allow_unknown_fields,
        strict_responses=args.strict_responses,
        strict_email=args.strict_email,
        timestamp_window_ms=window,
        liveness_clock=args.liveness_clock,
        frozen_clock_ms=args.frozen_clock,
        webhook_retries=args.webhook_retries,
        webhook_backoff_seconds=args.webhook_backoff,
        webhook_timeout_seconds=args.webhook_timeout,
        control=args.control,
        inspector=args.inspector,
        control_token=args.control_token,
        allowed_hosts=tuple(args.allowed_host),
        scenario_dirs=tuple(args.scenario_dir),
        threads=args.threads,
        max_connections=args.max_connections,
        max_body_bytes=args.max_body_bytes,
        max_activities=args.max_activities,
        header_timeout_seconds=args.header_timeout,
        read_timeout_seconds=args.read_timeout,
        server=args.server,
        rate_limits=rate_limits_setting(args),
        data_dir=args.data_dir,
        data_durability=args.data_durability,
        lenient_documented_rules=args.lenient_documented_rules,
        **web_app_settings(args),
    )


def serve_command(args: argparse.Namespace) -> int:
    from simulator.http import logs
    from simulator.server import SimulatorServer
    from simulator.server.granian_server import GranianMissing

    logs.configure(args.log_format, background=True)

    try:
        server = SimulatorServer(host=args.host, port=args.port, proxy_port=args.proxy_port, config=config_from(args))
    except (ScenarioError, DataDirError, GranianMissing) as exc:
        print(f"wallet-simulator: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"wallet-simulator: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 2
    if args.record:
        server.simulator.start_recording(args.record)
    signal.signal(signal.SIGTERM, _interrupt)
    # A shell starting serve in the background (`serve &` in a script, a CI step) has it ignore SIGINT, and
    # Python then keeps ignoring it: the JS helper's and the tests' stop (SIGINT) would wait for their kill
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:  # from the ready line on, a Ctrl-C (the JS helper's stop) stops cleanly and saves the recording
        print(json.dumps(ready_line(server)), flush=True)
        logging.getLogger("simulator").info(
            "serving on %s (seed %s); Ctrl-C stops", server.url, server.simulator.source.seed
        )
        warn_if_exposed(args.host, server.simulator.config)
        server.serve_forever()
    except KeyboardInterrupt:
        logging.getLogger("simulator").info("stopped")
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the shutdown short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        server.stop()
        if server.simulator.recorder is not None:
            saved = server.simulator.recorder.save()
            logging.getLogger("simulator").info("recorded %d steps to %s", len(server.simulator.recorder.steps), saved)
    return 0


def warn_if_exposed(host: str, config: Config) -> None:
    from simulator.control import exposure_warning

    warning = exposure_warning(host, config)
    if warning:
        logging.getLogger("simulator").warning(warning)


def ready_line(server: Any) -> dict[str, Any]:
    sim = server.simulator
    creds = sim.default_credentials()
    return {
        "url": server.url,
        "organizationId": creds["organizationId"],
        "userId": creds["userId"],
        "apiPublicKey": creds["apiPublicKey"],
        "apiPrivateKey": creds["apiPrivateKey"],
        "proxyUrl": server.proxy_url,
        "seed": sim.source.seed,
        "signerPublicKey": service_keys.public_hex("signer"),
        "inspectorUrl": inspector_url(server),
        "authProxyConfigId": sim.auth_proxy_config_id(),  # the X-Auth-Proxy-Config-Id for proxyUrl; None: off
        **frames.urls(server.url),  # exportIframeUrl, importIframeUrl, authIframeUrl: the local iframe pages
        # the control API's token when serve generated one (--host beyond loopback without --control-token); else None
        "controlToken": getattr(server, "generated_control_token", None),
        "dataDir": str(sim.config.data_dir.resolve()) if sim.config.data_dir is not None else None,
        "version": __version__,  # the JS helper warns when it is not its own
    }


def inspector_url(server: Any) -> str | None:
    """The inspector page's address, or None when it is not served."""
    config = server.simulator.config
    return f"{server.url}/_simulator/ui" if config.control and config.inspector else None


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
