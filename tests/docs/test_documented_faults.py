"""Every fault the docs show fires, and every operation they name is one (issue 52).

A fault naming no operation used to be accepted and never fire, so a page could teach one and its test
pass while testing nothing (the retries how-to's ``get_wallets``). tests/docs/test_readme.py runs or loads
each block; this module gathers every fault a block starts (a scenario's ``faults:``, ``fault(...)`` and
``add_fault(...)`` in Python, ``withFault``/``addFault`` in JS, ``control fault-add`` in shell), adds it to
a served simulator and sends requests its ``match`` selects until its hit counter shows it fired; each
``rateLimited`` rule naming an operation is loaded and answers its 429. Every operation a block names (a
fault's, a rule's, a journal assertion's) must be the catalogue's own name, not a client method's alias.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import shlex
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
import requests
import yaml
from conftest import ROOT
from test_readme import blocks

from simulator.faults import drawn
from simulator.operations import catalogue
from simulator.operations.activity_types import kind_of
from simulator.operations.operation_names import resolve
from simulator.scenario import ScenarioWarning
from simulator.scenario.api_names import catalog
from simulator.testing import ApiKeyStamper, SimulatorClient

FIXTURES = ROOT / "fixtures" / "requests"
PY_CALLS = ("fault", "add_fault")
JS_CALL = re.compile(r"\b(?:withFault|addFault)\(\s*\"(\w+)\"\s*,\s*")
ATTEMPTS = 200  # enough requests for any documented probability: the test computes the one that is hit


# gathering ------------------------------------------------------------------------------------------------
def scenario_blocks() -> list[tuple[str, Any]]:
    return [(f"{page}:{line}", yaml.safe_load(code)) for page, info, line, code in blocks() if info == "yaml scenario"]


def python_faults(code: str) -> list[dict[str, Any]]:
    """``x.fault("kind", match=..., ...)`` and ``x.add_fault({...})`` calls whose arguments are literals."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in PY_CALLS):
            continue
        try:
            if len(node.args) == 1 and isinstance(node.args[0], ast.Dict):
                found.append(ast.literal_eval(node.args[0]))
            else:
                spec = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
                found.append({"kind": ast.literal_eval(node.args[0]), **spec})
        except ValueError:
            raise AssertionError(f"a documented fault this test cannot read: {ast.unparse(node)}") from None
    return found


def js_faults(code: str) -> list[dict[str, Any]]:
    """``withFault("kind", { ... }, ...)`` and ``addFault("kind", { ... })`` with an object literal."""
    found = []
    for call in JS_CALL.finditer(code):
        depth, end = 0, call.end()
        for end in range(call.end(), len(code)):
            depth += {"{": 1, "}": -1}.get(code[end], 0)
            if depth == 0:
                break
        literal = re.sub(r"([{,]\s*)(\w+)\s*:", r'\1"\2":', code[call.end() : end + 1])
        found.append({"kind": call.group(1), **json.loads(literal)})
    return found


def sh_faults(code: str) -> list[dict[str, Any]]:
    """``wallet-simulator control fault-add KIND [OPERATION]`` or ``... fault-add SPEC_JSON``."""
    found = []
    for line in code.splitlines():
        if "control fault-add " not in line:
            continue
        words = shlex.split(line.split("control fault-add ", 1)[1])
        if words[0].startswith("{"):
            found.append(json.loads(words[0]))
        else:
            found.append({"kind": words[0], **({"match": {"operation": words[1]}} if len(words) > 1 else {})})
    return found


def documented_faults() -> list[Any]:
    found = []
    for page, info, line, code in blocks():
        where = f"{page}:{line}"
        if info == "yaml scenario":
            specs = (yaml.safe_load(code) or {}).get("faults") or []
        elif info in ("python", "python pytest") or info.startswith("python file "):
            specs = python_faults(code)
        elif info in ("js", "js vitest") or info.startswith(("js file ", "ts file ", "jsx file ")):
            specs = js_faults(code)
        elif info == "sh":
            specs = sh_faults(code)
        else:
            continue
        found += [pytest.param(spec, id=f"{where}[{i}]") for i, spec in enumerate(specs)]
    return found


def documented_rules() -> list[Any]:
    """Each scenario block's rules that name an operation (rateLimited ones), with the block."""
    return [
        pytest.param(data, i, id=f"{where}:rules[{i}]")
        for where, data in scenario_blocks()
        for i, rule in enumerate((data or {}).get("rules") or [])
        if "operation" in (rule.get("match") or {})
    ]


NAMED = (  # what names an operation in a block: a match, a journal assertion, a CLI word
    re.compile(r"""["']?operation["']?\s*:\s*["']?([A-Za-z0-9_]+)"""),
    re.compile(r"""(?:assert_called|assert_not_called|calls|assertCalled|assertNotCalled)\(\s*["'](\w+)["']"""),
    re.compile(r"""control\.journal\(\s*["'](\w+)["']"""),
    re.compile(r"control fault-add [A-Za-z]+ (\w+)"),
    re.compile(r"control journal (\w+)"),
)


def named_operations() -> list[Any]:
    found = []
    for page, info, line, code in blocks():
        if info == "text":
            continue
        for pattern in NAMED:
            for m in pattern.finditer(code):
                if re.search(r"#|//", code[code.rfind("\n", 0, m.start()) + 1 : m.start()]):
                    continue  # a comment's words (`# operation: as in the URL`)
                at = line + code[: m.start()].count("\n") + 1
                found.append(pytest.param(m.group(1), id=f"{page}:{at}:{m.group(1)}"))
    return found


def test_the_docs_show_faults_and_rules_to_fire():
    assert len(documented_faults()) >= 10 and documented_rules()


@pytest.mark.parametrize("name", named_operations())
def test_every_operation_the_docs_name_is_one(name):
    found = resolve(name)
    assert found.operation == name, found.problem or f"{name!r} is an alias: the docs name {found.operation}"


# firing -------------------------------------------------------------------------------------------------
def request_for(match: dict[str, Any], organization_id: str) -> tuple[str, dict[str, Any]]:
    """A path and a body the fault's ``match`` selects (faults are decided before any stamp is read)."""
    if match.get("interface") == "authProxy":
        return f"/v1/{first(match['operation'])}", {}
    wanted_type = first(match["type"]) if "type" in match else None
    op = first(match["operation"]) if "operation" in match else submit_taking(wanted_type) if wanted_type else "whoami"
    kind = "submit" if catalogue.get("submit", op) else "query"
    body = json.loads((FIXTURES / kind / f"{op}.json").read_text())
    body["organizationId"] = organization_id
    if wanted_type:
        accepted = catalog().submit_types[op]
        body["type"] = next(t for t in accepted if wanted_type in (t, kind_of(t)))
    if "parameters" in match:
        body["parameters"] = {**body.get("parameters", {}), **match["parameters"]}
    return f"/public/v1/{kind}/{op}", body


def first(value: str | list[str]) -> str:
    return value if isinstance(value, str) else value[0]


def submit_taking(wanted: str) -> str:
    return next(op for op, types in catalog().submit_types.items() if any(wanted in (t, kind_of(t)) for t in types))


def send(url: str, body: dict[str, Any]) -> None:
    with contextlib.suppress(requests.RequestException):  # held, reset or dropped: only the count is read
        requests.post(url, data=json.dumps(body), headers={"Content-Type": "application/json"}, timeout=0.5)


@pytest.mark.parametrize("spec", documented_faults())
def test_every_documented_fault_fires(spec, simulator):
    fault = {**spec, "name": "documented"}
    simulator.add_fault(fault)  # refused, naming the closest operations, when it names none
    match = fault.get("match") or {}
    path, body = request_for(match, simulator.simulator.default_organization_id())
    base = simulator.proxy_url if match.get("interface") == "authProxy" else simulator.url
    needed = match.get("occurrence", 1)
    if "probability" in fault:  # the seed decides which match is hit: send up to it
        seed = simulator.simulator.faults.seed
        needed = next(n for n in range(needed, ATTEMPTS) if drawn(seed, "documented", n, fault["probability"]))
    for _ in range(needed):
        send(base + path, body)
    listing = next(f for f in simulator.fault_listing() if f["name"] == "documented")
    assert listing["hits"] >= 1, f"{spec} matched {listing['matched']} of {needed} request(s) to {path} and hit none"


@pytest.mark.parametrize("data, index", documented_rules())
def test_every_documented_rule_naming_an_operation_answers(data, index, simulator, tmp_path):
    rule = data["rules"][index]
    match = rule["match"]
    assert rule.get("outcome") == "rateLimited" and set(match) <= {"operation", "occurrence"}, (
        f"teach this test to fire {rule}"
    )
    scenario = tmp_path / "documented.yaml"
    scenario.write_text(yaml.safe_dump(data))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ScenarioWarning)  # a documented scenario loads without a warning
        simulator.simulator.use_scenarios([Path(scenario)])
    credentials = simulator.simulator.default_credentials()
    client = SimulatorClient(simulator.url, ApiKeyStamper(credentials["apiPrivateKey"]), credentials["organizationId"])
    op = first(match["operation"])
    kind = "submit" if catalogue.get("submit", op) else "query"
    body = json.loads((FIXTURES / kind / f"{op}.json").read_text())
    body["organizationId"] = credentials["organizationId"]
    if kind == "submit":
        body["timestampMs"] = str(int(time.time() * 1000))
    statuses = [client.post(f"/public/v1/{kind}/{op}", json.dumps(body).encode()).status for _ in range(3)]
    occurrence = match.get("occurrence")
    assert statuses[occurrence - 1 if occurrence else 0] == 429, statuses
