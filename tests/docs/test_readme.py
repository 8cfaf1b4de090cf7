"""Every fenced block of README.md and of the docs site's pages (docs/**/*.md, but for the pages a
tool writes whole) is executed or checked, so the documentation cannot drift.

What happens to a block is decided by its info string, and only by it (a block whose info string
is not in this table fails the test, so a new block must choose a rule):

=================  ==========================================================================
info string        what the test does
=================  ==========================================================================
``python``         runs it as a script against a running simulator (the plugin's session
                   server, reset to the default scenario); ``http://127.0.0.1:8080`` and
                   ``:8081`` in the text are replaced by that server's addresses
``python pytest``  runs it as the test module of a downstream suite (pytest in a fresh
                   directory, the installed plugin only); every test in it must pass
``js``             runs it with node (CommonJS), the official clients from tests/js/node_modules
                   and ``wallet-simulator-testing`` from js/; the same address replacement
``js check``       syntax-checks it with ``node --check`` (as an ES module when it imports or
                   exports): runner configurations for jest and vitest, not installed here
``js vitest``      runs it as a vitest test file (TypeScript allowed) in a new project whose global
                   setup is the JS helper's ``createGlobalSetup({ seed: 1 })``; every test must pass
``sh``             parses every ``wallet-simulator ...`` (or ``-m simulator ...``) command with
                   the CLI's own parser; nothing is run (installs, servers, test runs)
``json``           parses it; the ready line must have exactly the keys ``serve`` prints
``js file PATH``   written, with the README's other ``js file`` blocks, into a new project outside
                   the repository where the packed helper and package are installed; its vitest
                   and jest suites must pass (tests/js_helper/test_js_install.py); in the web-app tutorial,
                   with its ``ts file``, ``jsx file`` and ``html file`` blocks, the app and the
                   Playwright suite tests/docs/test_webapp_tutorial.py builds and runs in Chromium
``python file``,   in the pytest tutorial: a project tests/docs/test_pytest_tutorial.py writes into a
``yaml file``,     new directory and runs with pytest, serially and with ``-n 2``
``ini file PATH``
``yaml scenario``  loads it as a scenario file, with every check ``serve`` makes
``yaml fragment``  parses it as YAML (a part of a scenario shown alone)
``text``           nothing (sample output)
=================  ==========================================================================
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from support import NODE, node_env, run_js_block, run_pytest_block, run_python_block

from simulator.cli import parser, ready_line
from simulator.scenario import load_scenario

README = ROOT / "README.md"
DOCS = ROOT / "docs"
# written whole by a tool from other sources (their own tests keep them current); no code blocks
GENERATED = {DOCS / "fidelity-ledger.md"}
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```$", re.M | re.S)
RULES = {
    "python",
    "python pytest",
    "js",
    "js check",
    "js vitest",
    "sh",
    "json",
    "yaml scenario",
    "yaml fragment",
    "text",
}
JS = ROOT / "tests" / "js"
# project files other tests write and run: tests/js_helper/test_js_install.py, test_webapp_tutorial.py, test_pytest_tutorial.py
FILE_RULES = ("js file ", "ts file ", "jsx file ", "html file ", "python file ", "yaml file ", "ini file ")


def pages() -> list[Path]:
    """README.md, then every page of the docs site that is not generated whole."""
    return [README] + [p for p in sorted(DOCS.rglob("*.md")) if p not in GENERATED]


def blocks() -> list[tuple[str, str, int, str]]:
    """(page, info string, line, code) of every fenced block, the page relative to the checkout."""
    found = []
    for page in pages():
        text = page.read_text()
        name = page.relative_to(ROOT).as_posix()
        found += [
            (name, m.group(1).strip(), text[: m.start()].count("\n") + 1, m.group(2)) for m in FENCE.finditer(text)
        ]
    return found


def params(*infos: str) -> list:
    return [pytest.param(code, id=f"{page}:{line}") for page, info, line, code in blocks() if info in infos]


def test_every_block_has_a_rule():
    unknown = [
        (f"{page}:{line}", info)
        for page, info, line, _ in blocks()
        if info not in RULES and not info.startswith(FILE_RULES)
    ]
    assert not unknown, f"blocks without a rule in tests/docs/test_readme.py: {unknown}"


def test_the_docs_pages_are_found():
    names = {page for page, *_ in blocks()}
    assert {"README.md", "docs/tutorials/pytest.md", "docs/tutorials/js-suites.md"} <= names


@pytest.mark.parametrize("code", params("python"))
def test_python_blocks_run(code, simulator, tmp_path):
    run = run_python_block(code, simulator, tmp_path)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("code", params("python pytest"))
def test_pytest_blocks_pass_as_a_downstream_suite(code, tmp_path):
    run = run_pytest_block(code, tmp_path)
    assert run.returncode == 0, run.stdout[-4000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout


needs_node = pytest.mark.skipif(
    not (NODE and (JS / "node_modules").is_dir()), reason="node or tests/js/node_modules missing"
)


@needs_node
@pytest.mark.parametrize("code", params("js"))
def test_js_blocks_run(code, simulator, tmp_path):
    run = run_js_block(code, simulator, tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


@needs_node
@pytest.mark.parametrize("code", params("js check"))
def test_js_check_blocks_are_valid_javascript(code, tmp_path):
    module = re.search(r"^\s*(import|export)\b", code, re.M)
    script = tmp_path / ("snippet.mjs" if module else "snippet.cjs")
    script.write_text(code)
    run = subprocess.run([NODE, "--check", str(script)], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr


VITEST_CONFIG = """import { defineConfig } from "vitest/config";
export default defineConfig({ test: { globalSetup: ["./setup.mjs"], include: ["snippet.vitest.ts"] } });
"""
VITEST_SETUP = (
    'import { createGlobalSetup } from "wallet-simulator-testing";\nexport default createGlobalSetup({ seed: 1 });\n'
)


@needs_node
@pytest.mark.skipif(not (JS / "node_modules" / "vitest").is_dir(), reason="vitest missing from tests/js")
@pytest.mark.parametrize("code", params("js vitest"))
def test_vitest_blocks_pass(code, tmp_path):
    env = node_env(tmp_path)  # links wallet-simulator-testing to js/
    modules = tmp_path / "node_modules"
    for name in ("vitest", "@turnkey"):  # as `npm install -D vitest @turnkey/http ...` would leave them
        (modules / name).symlink_to(JS / "node_modules" / name, target_is_directory=True)
    (tmp_path / "vitest.config.mjs").write_text(VITEST_CONFIG)
    (tmp_path / "setup.mjs").write_text(VITEST_SETUP)
    (tmp_path / "snippet.vitest.ts").write_text(code)
    env.update(PYTHONPATH=str(ROOT), CI="true", NO_COLOR="1", FORCE_COLOR="0")
    run = subprocess.run(
        [NODE, str(modules / "vitest" / "vitest.mjs"), "run"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        env=env,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-3000:]
    assert re.search(r"Tests\s+\d+ passed", run.stdout) and "failed" not in run.stdout, run.stdout[-2000:]


@pytest.mark.parametrize("code", params("sh"))
def test_sh_blocks_name_real_commands_and_switches(code):
    commands = [
        line.split("wallet-simulator ", 1)[1] if "wallet-simulator " in line else line.split("-m simulator ", 1)[1]
        for line in code.splitlines()
        if "wallet-simulator " in line or "-m simulator " in line
    ]
    for command in commands:
        words = shlex.split(re.split(r"\||&&", command)[0])
        try:
            parser().parse_args(words)
        except SystemExit:
            pytest.fail(f"the documented command `wallet-simulator {command}` does not parse")


@pytest.mark.parametrize("code", params("json"))
def test_json_blocks_parse_and_the_ready_line_is_real(code, simulator):
    data = json.loads(code)
    if "apiPrivateKey" in data:
        assert set(data) == set(ready_line(simulator))


@pytest.mark.parametrize("code", params("yaml scenario"))
def test_scenario_blocks_load(code, tmp_path):
    path = tmp_path / "readme.yaml"
    path.write_text(code)
    load_scenario(path)


@pytest.mark.parametrize("code", params("yaml fragment"))
def test_yaml_fragments_parse(code):
    assert yaml.safe_load(code)
