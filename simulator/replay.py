"""Scenario replay: run a scenario's ``steps`` against a fresh simulator (or a given URL).

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
at replay time; the body's ``organizationId`` defaults to the user's organization.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simulator.config import Config
from simulator.core import Simulator
from simulator.scenario import load_scenario
from simulator.testing import ApiKeyStamper, SimulatorClient

Json = dict[str, Any]
VARIABLE = re.compile(r"\$\{([A-Za-z0-9_.-]+)\}")


@dataclass
class StepResult:
    name: str
    ok: bool
    problems: list[str] = field(default_factory=list)


def replay(path: Path, url: str | None = None) -> list[StepResult]:
    """Run every step; against a fresh simulator of the scenario, or the simulator at ``url``."""
    data = load_scenario(path).data
    steps, config = data.get("steps", []), Config(seed=data.get("seed", 0), scenarios=(path,))
    if url is not None:
        return run_steps(steps, url, Simulator(config))  # a local copy only for the users' key pairs
    from simulator.server import SimulatorServer

    with SimulatorServer(config=config) as server:
        return run_steps(steps, server.url, server.simulator)


def run_steps(steps: list[Json], url: str, sim: Simulator) -> list[StepResult]:
    variables: dict[str, Any] = {}
    return [run_step(i, step, url, sim, variables) for i, step in enumerate(steps)]


def run_step(index: int, step: Json, url: str, sim: Simulator, variables: dict[str, Any]) -> StepResult:
    step = substitute(step, variables)
    name = step.get("name") or f"step {index + 1}: {step.get('submit') or step.get('query')}"
    try:
        client = client_for(sim, url, step.get("as"), step.get("organization"))
    except LookupError as exc:
        return StepResult(name, False, [str(exc)])
    if "submit" in step:
        stamp_ms = max(int(time.time() * 1000), variables.get("__last_ms", 0) + 1)  # never two identical bodies
        variables["__last_ms"] = stamp_ms
        reply = client.submit(step["submit"], step["type"], step.get("parameters", {}), timestampMs=str(stamp_ms))
    else:
        reply = client.query(step["query"], **step.get("body", {}))
    expect = step.get("expect", {"status": 200})
    problems = check(expect, reply.status, reply.body)
    if "webhooks" in expect:
        problems += check_webhooks(expect["webhooks"], url, reply.body)
    for var, dotted in step.get("capture", {}).items():
        found = lookup(reply.body, dotted)
        if found is MISSING:
            problems.append(f"capture {var}: {dotted} is not in the answer")
        variables[var] = found
    return StepResult(name, not problems, problems)


def client_for(sim: Simulator, url: str, user: str | None, organization: str | None) -> SimulatorClient:
    pairs = [c for c in sim.credentials if c.get("apiPrivateKey") and user in (None, c["userName"], c["userId"])]
    if not pairs:
        raise LookupError(f"no API key pair for user {user!r} in the scenario")
    pair = pairs[0]
    return SimulatorClient(url, ApiKeyStamper(pair["apiPrivateKey"]), organization or pair["organizationId"])


def check(expect: Json, status: int, body: Any) -> list[str]:
    problems = []
    if "status" in expect and expect["status"] != status:
        problems.append(f"status: expected {expect['status']}, got {status}: {json.dumps(body)[:300]}")
    for dotted, wanted in expect.get("fields", {}).items():
        found = lookup(body, dotted)
        if found != wanted:
            shown = "(missing)" if found is MISSING else json.dumps(found)[:200]
            problems.append(f"{dotted}: expected {json.dumps(wanted)}, got {shown}")
    return problems


MISSING = object()


def check_webhooks(expected: list[Json], url: str, body: Any) -> list[str]:
    """Each expected delivery (dotted fields of the delivered activity) must be in the webhook
    log for this step's activity; deliveries are queued at once, so the log is read as it is."""
    activity_id = lookup(body, "activity.id")
    from simulator.control_client import ControlClient

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
    for part in dotted.split("."):
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
