"""The control API's one table (tools/control_surface.py) against everything that serves or calls it:
the routes, the Python client, the JS helper and its types, the CLI and the docs' table
(docs/reference/control-api.md)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess

import pytest
from conftest import ROOT
from control_surface import PAGE, TABLE, rendered

from simulator import Config, create_app
from simulator.cli import parser
from simulator.cli_commands import CONTROL_ACTIONS
from simulator.control_client import ControlClient


def served_routes() -> set[tuple[str, str]]:
    app = create_app(config=Config(seed=0))
    found = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith("control.") and rule.rule.startswith("/_simulator/"):
            for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}:
                found.add((method, rule.rule.removeprefix("/_simulator")))
    return found


def test_every_served_route_is_in_the_table_and_nothing_else():
    assert served_routes() == {(e.method, e.route) for e in TABLE}


def test_the_python_client_has_every_method_the_table_names():
    missing = [e.python for e in TABLE if e.python and not callable(getattr(ControlClient, e.python, None))]
    assert missing == []


@pytest.mark.skipif(not shutil.which("node"), reason="node missing")
def test_the_js_client_and_its_types_have_every_method_the_table_names():
    script = f"console.log(JSON.stringify(Object.getOwnPropertyNames(require({json.dumps(str(ROOT / 'js'))}).ControlClient.prototype)))"
    run = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=30, check=True)
    methods = set(json.loads(run.stdout))
    types = (ROOT / "js" / "index.d.ts").read_text()
    declared = set(
        re.findall(r"^\s+(\w+)\(", types.split("export declare class ControlClient", 1)[1].split("\n}", 1)[0], re.M)
    )
    named = {e.js for e in TABLE if e.js}
    assert named - methods == set()
    assert named - declared == set()


def test_every_cli_command_the_table_names_parses():
    for e in TABLE:
        if e.cli is None:
            continue
        words = shlex.split(re.sub(r"\[([^\]]*)\]", r"\1", e.cli).replace("NAME...", "default"))
        words = [w if w.isupper() is False else "x" for w in words]
        if words[0] == "control":
            assert words[1] in CONTROL_ACTIONS, e.cli
        parser().parse_args(
            words + (["--url", "http://127.0.0.1:1"] if words[0] in ("control", "webhooks", "outbox") else [])
        )


def test_the_docs_table_is_generated_from_the_table():
    text = PAGE.read_text()
    assert rendered(text) == text, "run: python tools/control_surface.py"
