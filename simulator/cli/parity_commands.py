"""``wallet-simulator parity record`` and ``parity diff`` (issue 55: parity a team can prove)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulator.parity import ORGANIZATION_ENV, PUBLIC_KEY_ENV
from simulator.scenario import ScenarioError

ReadyLine = Callable[[Any], dict[str, Any]]


def add_parity_commands(commands: Any, serve_ready_line: ReadyLine) -> None:
    parity = commands.add_parser("parity", help="record a suite's exchanges with Turnkey (or a simulator) and compare")
    actions = parity.add_subparsers(required=True, metavar="ACTION")
    record = actions.add_parser(
        "record",
        help="a forwarding proxy that writes every exchange (secrets redacted) to a file; prints a ready line",
    )
    record.add_argument(
        "--upstream",
        metavar="URL",
        help="the service to forward to (https://api.turnkey.com); default: a simulator started here (the simulated run)",
    )
    record.add_argument(
        "--proxy-upstream",
        metavar="URL",
        help="the auth proxy to forward /v1/... to (default: https://authproxy.turnkey.com for Turnkey's API; "
        "the started simulator's without --upstream)",
    )
    record.add_argument("--out", type=Path, required=True, metavar="FILE", help="the recording (JSON Lines)")
    record.add_argument("--host", default="127.0.0.1", help="loopback address to listen on")
    record.add_argument("--port", type=int, default=8080, help="main interface port (0 picks a free one)")
    record.add_argument("--proxy-port", type=int, default=8081, help="auth proxy port (0 picks a free one)")
    record.add_argument("--seed", type=int, help="without --upstream: the started simulator's seed")
    record.add_argument(
        "--scenario", action="append", type=Path, default=[], metavar="FILE", help="without --upstream: its scenarios"
    )
    record.set_defaults(run=lambda args: record_command(args, serve_ready_line))
    diff = actions.add_parser("diff", help="compare two recordings; exit 1 on a difference the ledger does not record")
    diff.add_argument("real", type=Path, help="the recording made against the real service")
    diff.add_argument("simulated", type=Path, help="the recording made against the simulator")
    diff.add_argument("--json", action="store_true", help="the report as JSON (for CI)")
    diff.add_argument(
        "--ledger",
        action="append",
        type=Path,
        default=None,
        metavar="PATH",
        help="a ledger folder or YAML file of known differences (repeatable; default: ./docs/ledger and the "
        "project's, where they exist)",
    )
    diff.add_argument("--drafts", type=Path, metavar="FILE", help="also write the draft ledger entries to FILE")
    diff.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="OPERATION[:PATH]",
        help="leave out differences of this operation (and answer path), shell-style patterns: "
        "'list_wallets:wallets' (the organization's own wallets), '*:activity.votes.*' (repeatable)",
    )
    diff.set_defaults(run=diff_command)
    replay = actions.add_parser(
        "replay",
        help="send a real recording's requests again to a simulator (recorded to --out) and report the differences",
    )
    replay.add_argument("real", type=Path, help="the recording made against the real service")
    replay.add_argument("--out", type=Path, required=True, metavar="FILE", help="the simulated run's recording")
    replay.add_argument("--seed", type=int, help="the simulator's seed")
    replay.add_argument("--scenario", action="append", type=Path, default=[], metavar="FILE", help="its scenarios")
    for action in diff._actions:  # the report's own switches, as diff takes them
        if action.dest in ("json", "ledger", "drafts", "ignore"):
            replay._add_action(action)
    replay.set_defaults(run=replay_command)


def record_command(args: argparse.Namespace, serve_ready_line: ReadyLine) -> int:
    from simulator.parity.recorder import ParityRecorder, RecorderError

    log = logging.getLogger("simulator")
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    try:
        upstream_server = simulated_upstream(args) if args.upstream is None else None
    except ScenarioError as exc:
        print(f"wallet-simulator: {exc}", file=sys.stderr)
        return 2
    if upstream_server is not None:
        upstream, proxy_upstream = upstream_server.url, upstream_server.proxy_url
    else:
        upstream, proxy_upstream = args.upstream, args.proxy_upstream
    try:
        recorder = ParityRecorder(
            upstream,
            args.out,
            proxy_upstream=proxy_upstream,
            host=args.host,
            port=args.port,
            proxy_port=args.proxy_port,
        )
    except (RecorderError, OSError) as exc:
        if upstream_server is not None:
            upstream_server.stop()
        why = (
            exc
            if isinstance(exc, RecorderError)
            else f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
        )
        print(f"wallet-simulator: {why}", file=sys.stderr)
        return 2
    ready = recorder.ready_line()
    if upstream_server is not None:  # the simulated run: serve's ready line, its addresses the recorder's
        ready = {**serve_ready_line(upstream_server), **ready}
    else:
        ready.update(organizationId=os.environ.get(ORGANIZATION_ENV), apiPublicKey=os.environ.get(PUBLIC_KEY_ENV))
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        print(json.dumps(ready), flush=True)
        log.info("recording to %s: %s -> %s; Ctrl-C stops", args.out, recorder.url, recorder.upstream)
        recorder.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        recorder.stop()
        if upstream_server is not None:
            upstream_server.stop()
        log.info("recorded %d exchanges to %s", recorder.count, args.out)
    return 0


def simulated_upstream(args: argparse.Namespace) -> Any:
    from simulator.config import Config
    from simulator.scenario import resolve_scenario
    from simulator.server import SimulatorServer

    config = Config(seed=args.seed, scenarios=tuple(resolve_scenario(s) for s in args.scenario))
    return SimulatorServer(config=config).start()


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def ignored(operation: str, path: str, patterns: list[str]) -> bool:
    """Whether ``--ignore`` leaves this difference out: OPERATION alone, or OPERATION:PATH (a path pattern
    also covers what lies under it)."""
    from fnmatch import fnmatchcase

    for pattern in patterns:
        op, _, where = pattern.partition(":")
        if fnmatchcase(operation, op) and (not where or fnmatchcase(path, where) or fnmatchcase(path, f"{where}.*")):
            return True
    return False


def diff_command(args: argparse.Namespace) -> int:
    from simulator.parity.exchanges import RecordingError, read_recording
    from simulator.parity.ledger import default_ledgers, known_ids

    try:
        header, real = read_recording(args.real)
        _, simulated = read_recording(args.simulated)
        known = known_ids(args.ledger if args.ledger is not None else default_ledgers())
    except (RecordingError, OSError, ValueError) as exc:
        print(f"wallet-simulator: {exc}", file=sys.stderr)
        return 2
    return report(args, header, real, simulated, known)


def replay_command(args: argparse.Namespace) -> int:
    from simulator.parity.exchanges import RecordingError, read_recording
    from simulator.parity.ledger import default_ledgers, known_ids
    from simulator.parity.replay import replay

    try:
        header, real = read_recording(args.real)
        known = known_ids(args.ledger if args.ledger is not None else default_ledgers())
        server = simulated_upstream(args)
    except (RecordingError, OSError, ValueError, ScenarioError) as exc:
        print(f"wallet-simulator: {exc}", file=sys.stderr)
        return 2
    try:
        left_out = replay(real, server, args.out)
    finally:
        server.stop()
    for why in left_out:
        print(f"not sent again: {why}", file=sys.stderr)
    _, simulated = read_recording(args.out)
    return report(args, header, real, simulated, known)


def report(args: argparse.Namespace, header: dict[str, Any], real: Any, simulated: Any, known: set[str]) -> int:
    from simulator.parity.compare import compare
    from simulator.parity.report import as_json, as_yaml, drafts, table

    differences, aligned = compare(real, simulated)
    differences = [d for d in differences if not ignored(d.operation, d.path, args.ignore)]
    for difference in differences:
        difference.known = difference.ledger_id in known
    upstream = str(header.get("upstream", "?"))
    if args.json:
        print(as_json(differences, aligned, upstream))
    else:
        print(table(differences, aligned))
        entries = drafts(differences, upstream)
        if entries:
            print("\nDraft ledger entries (file them under docs/ledger/, or report them to the project):\n")
            print(as_yaml(entries).rstrip())
    if args.drafts is not None:
        args.drafts.write_text(as_yaml(drafts(differences, upstream)), encoding="utf-8")
    return 1 if any(not d.known for d in differences) else 0
