"""Scenario replay: run a scenario's ``steps`` against a fresh simulator (or a running one).

A step is a request made as a named user, with expectations on the answer:

    steps:
      - name: make a wallet
        as: Root User                  # whose declared or generated key stamps it
        submit: create_wallet          # or  query: list_wallets
        type: ACTIVITY_TYPE_CREATE_WALLET
        parameters: {walletName: w, accounts: []}     # submit; a query takes  body: {...}
        expect:
          status: 200
          fields: {activity.status: ACTIVITY_STATUS_COMPLETED}
          webhooks: [{status: ACTIVITY_STATUS_COMPLETED}]   # deliveries logged for this activity
        capture: {wallet: activity.result.createWalletResult.walletId}
      - query: get_wallet
        body: {walletId: "${wallet}"}
        expect: {fields: {wallet.walletName: w}}

``${name}`` anywhere in a later step is replaced by a captured value; ``timestampMs`` is made
at replay time from the simulator's clock; the body's ``organizationId`` defaults to the user's
organization. A step that cannot run (a capture that found nothing, a refused connection) is a
failed step with the reason, never an exception.
"""

from __future__ import annotations

import difflib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simulator.scenario import Scenario, load_scenario
from simulator.scenario.flow_checks import VARIABLE, used_variables
from simulator.testing import ApiKeyStamper, SimulatorClient
from simulator.wire import Json

CURVES = {"API_KEY_CURVE_SECP256K1": "secp256k1", "API_KEY_CURVE_ED25519": "ed25519"}
MISSING = object()


class ReplayError(RuntimeError):
    """The replay cannot start (the running simulator cannot load the file, or is unreachable)."""


@dataclass
class StepResult:
    name: str
    ok: bool
    problems: list[str] = field(default_factory=list)


@dataclass
class Run:
    url: str
    credentials: list[Json]
    now_ms: Callable[[], int]
    variables: dict[str, Any] = field(default_factory=dict)
    unset: dict[str, str] = field(default_factory=dict)  # variable -> why its capture found nothing
    last_ms: int = 0


def replay(path: Path | str, url: str | None = None, *, load: bool = True) -> list[StepResult]:
    """Run every step against a fresh simulator of the scenario, or the simulator at ``url``.

    With ``url``, the file's scenario (its organizations and includes) is loaded there first and
    the state reset, unless ``load`` is false (then the running state must already fit the steps).
    """
    scenario = load_scenario(path)
    steps = scenario.data.get("steps", [])
    if url is not None:
        return run_steps(steps, remote_run(scenario, url, load))
    from simulator.config import Config
    from simulator.server import SimulatorServer

    config = Config(seed=scenario.data.get("seed", 0), scenarios=(scenario.path,))
    with SimulatorServer(config=config) as server:
        return run_steps(steps, Run(server.url, server.simulator.credentials, server.simulator.clock.now_ms))


def remote_run(scenario: Scenario, url: str, load: bool) -> Run:
    from simulator.control.control_client import ControlClient, ControlError

    control = ControlClient(url)
    try:
        if load:
            credentials = control.load_scenarios([scenario.path.resolve()])
        else:
            credentials = local_credentials(scenario)
        started_ms, started = control.advance_clock(0), time.monotonic()
    except ControlError as exc:
        raise ReplayError(
            f"the simulator at {url} cannot load {scenario.path}: {exc} (it reads the file itself, so it must run "
            "on this machine; else load the scenario there and replay with --no-load)"
        ) from None
    except OSError as exc:
        raise ReplayError(f"cannot reach the simulator at {url}: {exc}") from None
    return Run(url, credentials, lambda: started_ms + int((time.monotonic() - started) * 1000))


def local_credentials(scenario: Scenario) -> list[Json]:
    """The scenario's key pairs, from a local copy: what --no-load stamps with."""
    from simulator.config import Config
    from simulator.core import Simulator

    sim = Simulator(Config(seed=scenario.data.get("seed", 0), scenarios=(scenario.path,)))
    sim.close()
    return sim.credentials


def run_steps(steps: list[Json], run: Run) -> list[StepResult]:
    results = []
    for index, step in enumerate(steps):
        name = step.get("name") or f"step {index + 1}: {step.get('submit') or step.get('query')}"
        try:
            results.append(run_step(name, step, run))
        except Exception as exc:  # a replay reports every step; an unexpected failure is that step's result
            results.append(StepResult(name, False, [f"the step could not run: {type(exc).__name__}: {exc}"]))
    return results


def run_step(name: str, step: Json, run: Run) -> StepResult:
    unset = sorted(v for v in used_variables({k: v for k, v in step.items() if k != "capture"}) if v in run.unset)
    if unset:
        return StepResult(name, False, [f"${{{v}}} is not set: {run.unset[v]}" for v in unset])
    step = substitute(step, run.variables)
    try:
        client = client_for(run.credentials, run.url, step.get("as"), step.get("organization"))
    except LookupError as exc:
        return StepResult(name, False, [str(exc)])
    if "submit" in step:
        run.last_ms = max(run.now_ms(), run.last_ms + 1)  # never two identical bodies
        reply = client.submit(step["submit"], step["type"], step.get("parameters", {}), timestampMs=str(run.last_ms))
    else:
        reply = client.query(step["query"], **step.get("body", {}))
    expect = step.get("expect", {"status": 200})
    problems = check(expect, reply.status, reply.body)
    if "webhooks" in expect:
        problems += check_webhooks(expect["webhooks"], run.url, reply.body)
    problems += capture(step.get("capture", {}), reply.body, run)
    return StepResult(name, not problems, problems)


def capture(wanted: Json, body: Any, run: Run) -> list[str]:
    problems = []
    for var, dotted in wanted.items():
        found = lookup(body, dotted)
        if found is MISSING:
            why = f"capture {var}: {dotted} is not in the answer ({shape(body)})"
            problems.append(why)
            run.unset[var] = why
        else:
            run.variables[var] = found
            run.unset.pop(var, None)
    return problems


def client_for(credentials: list[Json], url: str, user: str | None, organization: str | None) -> SimulatorClient:
    pairs = [c for c in credentials if c.get("apiPrivateKey") and user in (None, c["userName"], c["userId"])]
    if not pairs:
        known = sorted({c["userName"] for c in credentials if c.get("apiPrivateKey")})
        raise LookupError(f"no API key pair for user {user!r} in the scenario; users with one: {known}")
    pair = pairs[0]
    stamper = ApiKeyStamper(pair["apiPrivateKey"], CURVES.get(pair.get("curve", ""), "p256"))
    return SimulatorClient(url, stamper, organization or pair["organizationId"])


def check(expect: Json, status: int, body: Any) -> list[str]:
    problems = []
    if "status" in expect and expect["status"] != status:
        problems.append(f"status: expected {expect['status']}, got {status}: {json.dumps(body)[:300]}")
    for dotted, wanted in expect.get("fields", {}).items():
        found = lookup(body, dotted)
        if found != wanted:
            problems.append(mismatch(dotted, wanted, found))
    return problems


def mismatch(dotted: str, wanted: Any, found: Any) -> str:
    if found is MISSING:
        return f"{dotted}: expected {json.dumps(wanted)}, got (missing)"
    if isinstance(wanted, (dict, list)) and isinstance(found, (dict, list)):
        lines = difflib.unified_diff(
            json.dumps(wanted, indent=1, sort_keys=True).splitlines(),
            json.dumps(found, indent=1, sort_keys=True).splitlines(),
            "expected",
            "got",
            lineterm="",
        )
        return f"{dotted}:\n" + "\n".join(f"         {line}" for line in lines)
    return f"{dotted}: expected {json.dumps(wanted)}, got {json.dumps(found)[:200]}"


def shape(body: Any) -> str:
    if isinstance(body, dict):
        return f"its fields: {', '.join(list(body)[:12]) or 'none'}"
    return f"it is {json.dumps(body)[:120]}"


def check_webhooks(expected: list[Json], url: str, body: Any) -> list[str]:
    """Each expected delivery (dotted fields of the delivered activity) must be in the webhook
    log for this step's activity; deliveries are queued at once, so the log is read as it is."""
    activity_id = lookup(body, "activity.id")
    from simulator.control.control_client import ControlClient

    logged = ControlClient(url).call("GET", "/webhooks/deliveries")["deliveries"]
    delivered = [json.loads(d["body"]) for d in logged]
    mine = [d for d in delivered if activity_id is MISSING or d.get("id") == activity_id]
    problems = []
    for wanted in expected:
        if not any(all(lookup(d, k) == v for k, v in wanted.items()) for d in mine):
            seen = [{k: lookup(d, k) for k in wanted} for d in mine]
            problems.append(
                f"webhooks: no delivery with {json.dumps(wanted)}; delivered: {json.dumps(seen, default=str)}"
            )
    return problems


def lookup(body: Any, dotted: str) -> Any:
    for part in str(dotted).split("."):
        if isinstance(body, list) and part.isdigit() and int(part) < len(body):
            body = body[int(part)]
        elif isinstance(body, dict) and part in body:
            body = body[part]
        else:
            return MISSING
    return body


def substitute(value: Any, variables: dict[str, Any]) -> Any:
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]
    if isinstance(value, str):
        whole = VARIABLE.fullmatch(value)
        if whole and whole.group(1) in variables:
            return variables[whole.group(1)]  # keeps lists and numbers as they were captured
        return VARIABLE.sub(lambda m: str(variables.get(m.group(1), m.group(0))), value)
    return value


def report(results: list[StepResult]) -> str:
    lines = []
    for result in results:
        lines.append(f"{'ok  ' if result.ok else 'FAIL'} {result.name}")
        lines.extend(f"       {problem}" for problem in result.problems)
    failed = sum(not r.ok for r in results)
    lines.append(f"{len(results) - failed} passed, {failed} failed")
    return "\n".join(lines)
