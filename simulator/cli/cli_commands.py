"""The commands that drive a running simulator or read the catalogue: outbox, replay, control,
webhooks, coverage, check."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from simulator.config import Config
from simulator.control.control_surface import TABLE, Endpoint
from simulator.scenario import ScenarioError, resolve_scenario


def outbox_command(args: argparse.Namespace) -> int:
    from simulator.control.control_client import ControlClient, ControlError

    try:
        messages = ControlClient(args.url, token=args.control_token).outbox(args.contact)
    except ControlError as exc:
        print(f"wallet-simulator: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"wallet-simulator: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 2
    for message in messages:
        print(f"{message['contact']}\t{message['channel']}\t{message['code']}\t{message['otpId']}")
    return 0


def replay_command(args: argparse.Namespace) -> int:
    from simulator.testing.replay import ReplayError, replay, report

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    if args.control_token:  # the control clients replay builds read it from the environment
        os.environ["WALLET_SIMULATOR_CONTROL_TOKEN"] = args.control_token
    try:
        results = replay(args.file, args.url, load=args.load)
    except (ScenarioError, ReplayError) as exc:
        print(f"wallet-simulator: {exc}", file=sys.stderr)
        return 2
    print(report(results))
    return 0 if all(r.ok for r in results) else 1


def load_scenarios(client: Any, args: list[str]) -> Any:
    """``control load NAME...``: the shipped ``default`` when no name is given."""
    return client.load_scenarios(args or ["default"])


def table_action(endpoint: Endpoint) -> Callable[[Any, list[str]], Any]:
    """The CLI action of a row of the control surface: its client method, with the words after the
    action as its positional arguments (converted to the argument's type; an optional one may be left out)."""
    if endpoint.cli_call:
        return cast("Callable[[Any, list[str]], Any]", globals()[endpoint.cli_call])
    positional = [a for a in endpoint.args if a.at != "fields" and not a.js_option]

    def run(client: Any, words: list[str]) -> Any:
        values = []
        for i, arg in enumerate(positional):
            if arg.default is not None and i >= len(words):
                break
            values.append(float(words[i]) if arg.py == "float" else words[i])
        return getattr(client, str(endpoint.python))(*values)

    return run


def add_fault(client: Any, args: list[str]) -> Any:
    """``control fault-add '{"kind": "reset", "match": {"operation": "create_wallet"}}'``, or the short
    form ``control fault-add KIND [OPERATION]``."""
    if args[0].lstrip().startswith("{"):
        spec = json.loads(args[0])
        return client.add_fault(spec.pop("kind", ""), **spec)
    match = {"operation": args[1]} if len(args) > 1 else {}
    return client.add_fault(args[0], match=match)


# `wallet-simulator control ACTION ...`: one per row of simulator/control/control_surface.py whose `cli` says so
CONTROL_ACTIONS: dict[str, Any] = {e.cli_action: table_action(e) for e in TABLE if e.cli_action}
# the words each action takes, for --help
CONTROL_USAGE = " | ".join(" ".join(words[1:]) for e in TABLE if e.cli_action and len(words := str(e.cli).split()) > 2)


def control_command(args: argparse.Namespace) -> int:
    from simulator.control.control_client import ControlClient, ControlError

    try:
        result = CONTROL_ACTIONS[args.action](ControlClient(args.url, token=args.control_token), args.args)
    except (IndexError, ValueError):
        print(f"wallet-simulator: control {args.action}: missing or bad arguments (see --help)", file=sys.stderr)
        return 2
    except (ControlError, OSError) as exc:
        print(f"wallet-simulator: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2) if result is not None else "ok")
    return 0


def webhooks_command(args: argparse.Namespace) -> int:
    from simulator.control.control_client import ControlClient, ControlError

    client = ControlClient(args.url, token=args.control_token)
    try:
        if args.action == "list":
            result = client.call("GET", "/webhooks/deliveries")["deliveries"]
        elif args.action == "fire":
            result = client.call("POST", "/webhooks/fire", {"activityId": args.activity, "url": args.to})["deliveries"]
        else:
            result = client.call("POST", f"/webhooks/{args.event}/resend", {})
    except (ControlError, OSError) as exc:
        print(f"wallet-simulator: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2))
    return 0


def coverage_command(args: argparse.Namespace) -> int:
    from simulator.operations.operation_coverage import coverage, summary
    from simulator.operations.validation import Schemas

    rows = coverage(Schemas())
    for row in rows:
        if args.status in (None, row["status"]):
            note = f"  ({row['note']})" if row["note"] else ""
            print(f"{row['status']:<12} {row['operation']}{note}")
    print(", ".join(f"{n} {status}" for status, n in summary(rows).items()))
    return 0


def check_command(args: argparse.Namespace) -> int:
    """Each file as ``serve`` loads it (every check, then the seeding), so both refuse alike. Its warnings are
    shown; those about a name that names nothing (a fault on no operation: it would never fire) fail it."""
    from simulator.core import Simulator
    from simulator.scenario import ScenarioNameWarning, ScenarioWarning

    failed = 0
    for ref in args.files:
        try:
            path = resolve_scenario(ref)
            with warnings.catch_warnings(record=True) as shown:
                warnings.simplefilter("always", ScenarioWarning)
                Simulator(Config(seed=0, scenarios=(path,))).close()
        except ScenarioError as exc:
            failed += 1
            print(exc, file=sys.stderr)
            continue
        for warning in shown:  # a scenario's as its own `file:line: ...` line (cli.show_scenario_warnings_plainly)
            if issubclass(warning.category, ScenarioWarning):
                print(warning.message, file=sys.stderr)
            else:
                warnings.showwarning(warning.message, warning.category, warning.filename, warning.lineno)
        naming_nothing = sum(issubclass(w.category, ScenarioNameWarning) for w in shown)
        if naming_nothing:
            failed += 1
            print(f"{path}: {naming_nothing} name(s) that name nothing (see the warnings above)", file=sys.stderr)
        else:
            print(f"{path}: ok")
    return 1 if failed else 0


def state_command(args: argparse.Namespace) -> int:
    """``state export FILE`` / ``state import FILE`` through a running simulator's control API;
    ``state check DIR`` reads a data directory offline, changing nothing."""
    if args.action == "check":
        return check_data_dir(args.target)
    from simulator.control.control_client import ControlClient, ControlError

    client = ControlClient(args.url, token=args.control_token)
    try:
        if args.action == "export":
            document = client.state()
            # the document holds private keys and mnemonics: readable by its owner only
            descriptor = os.open(args.target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w") as out:
                json.dump(document, out)
            print(f"exported the state to {args.target} (it holds private keys: keep it private)")
        else:
            with open(args.target) as source:
                document = json.load(source)
            client.import_state(document)
            print(f"imported the state from {args.target}")
    except ValueError as exc:
        print(f"wallet-simulator: {args.target}: not a JSON state document: {exc}", file=sys.stderr)
        return 2
    except (ControlError, OSError) as exc:
        print(f"wallet-simulator: {exc}", file=sys.stderr)
        return 1
    return 0


def check_data_dir(target: str) -> int:
    from simulator.core import Simulator
    from simulator.datadir import files

    try:
        loaded = files.load(Path(target))
        for note in loaded.notes:
            print(note)
        if loaded.document is None:
            print(f"{target}: ok (empty: no state kept yet)")
            return 0
        sim = Simulator(Config(seed=0))
        sim.import_kept_state(loaded.document)
        sim.close()
    except files.DataDirError as exc:
        print(f"wallet-simulator: {exc}", file=sys.stderr)
        return 1
    except (KeyError, TypeError, ValueError) as exc:
        print(f"wallet-simulator: {target}: the kept state does not load: {exc!r}", file=sys.stderr)
        return 1
    counts = ", ".join(f"{n} {name}" for name, n in sim.store.counts().items())
    print(f"{target}: ok ({files.size_of(Path(target))} bytes, {loaded.records} log record(s); {counts})")
    return 0
