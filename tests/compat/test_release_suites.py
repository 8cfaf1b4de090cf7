"""What each earlier release's docs published, run unchanged against today's code: the upgrade test.

tests/compat/releases/<release>/ holds that release's runnable blocks (tools/release_suites.py took
them from the release's own README and docs pages): its downstream pytest modules, its Python and JS
scripts against a running simulator, and the JS tutorial's vitest and jest suites in a new project
with the packed helper installed. A team that wrote its suite from those pages keeps a green suite.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from support import JS_MODULES, NODE, project_with_the_helper, run_js_block, run_pytest_block, run_python_block

RELEASES = ROOT / "tests" / "compat" / "releases"
MANIFESTS = [json.loads(path.read_text()) for path in sorted(RELEASES.glob("*/manifest.json"))]
needs_node = pytest.mark.skipif(
    not (NODE and shutil.which("npm") and (JS_MODULES / "vitest").is_dir()),
    reason="node, npm or tests/js/node_modules missing (npm ci --prefix tests/js)",
)


def published(*kinds: str) -> list:
    return [
        pytest.param(RELEASES / manifest["release"], entry, id=f"{manifest['release']}:{entry['id']}")
        for manifest in MANIFESTS
        for entry in manifest["entries"]
        if entry["kind"] in kinds
    ]


def test_every_release_since_0_2_0_has_its_published_code_here():
    releases = {manifest["release"] for manifest in MANIFESTS}
    assert "0.2.0" in releases
    for manifest in MANIFESTS:
        kinds = {entry["kind"] for entry in manifest["entries"]}
        assert {"python pytest", "python", "js", "js project"} <= kinds, manifest["release"]


@pytest.mark.parametrize(("release", "entry"), published("python pytest"))
def test_a_published_pytest_module_passes(release, entry, tmp_path):
    run = run_pytest_block((release / entry["file"]).read_text(), tmp_path)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout


@pytest.mark.parametrize(("release", "entry"), published("python"))
def test_a_published_python_script_runs(release, entry, simulator, tmp_path):
    run = run_python_block((release / entry["file"]).read_text(), simulator, tmp_path)
    assert run.returncode == 0, run.stderr[-4000:]


@needs_node
@pytest.mark.parametrize(("release", "entry"), published("js"))
def test_a_published_js_script_runs(release, entry, simulator, tmp_path):
    run = run_js_block((release / entry["file"]).read_text(), simulator, tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


def runner_of(app: Path, name: str) -> list[str]:
    entry = {"vitest": ["vitest", "vitest.mjs"], "jest": ["jest", "bin", "jest.js"]}[name]
    return [str(NODE), str(app.joinpath("node_modules", *entry)), *({"vitest": ["run"], "jest": ["--ci"]}[name])]


@needs_node
@pytest.mark.parametrize(("release", "entry"), published("js project"))
def test_a_published_js_project_passes_with_the_packed_helper(release, entry, site, tmp_path):
    """The files as the page gave them, the helper from ``npm pack``, the wheel installed alone."""
    app = project_with_the_helper(tmp_path, "upgraded")
    for path in entry["files"]:
        (app / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(release / entry["folder"] / path, app / path)
    env = {
        **os.environ,
        "PYTHONPATH": str(site),
        "WALLET_SIMULATOR_COMMAND": json.dumps([sys.executable, "-m", "simulator"]),
        "CI": "true",
        "NO_COLOR": "1",
        "FORCE_COLOR": "0",
    }
    configs = {"vitest": "vitest.config.mjs", "jest": "jest.config.js"}
    runners = [name for name, config in configs.items() if config in entry["files"]]
    assert runners, entry
    for name in runners:
        (app / "node_modules" / name).symlink_to(JS_MODULES / name)
        run = subprocess.run(runner_of(app, name), cwd=app, env=env, capture_output=True, text=True, timeout=180)
        summary = run.stdout + run.stderr
        assert run.returncode == 0, f"{name}:\n{summary[-4000:]}"
        assert re.search(r"Tests:?\s+\d+ passed", summary) and not re.search(r"\d+ failed", summary), summary[-2000:]


@needs_node
@pytest.mark.parametrize(("release", "entry"), published("js config"))
def test_a_published_vite_config_loads_with_the_packed_helper(release, entry, tmp_path):
    """A config a page gave (the web-app tutorial's vite.config.mjs) loads with today's packed helper and puts
    the trust plugin in a test build and none in a production one, as the page says."""
    app = project_with_the_helper(tmp_path, "upgraded")
    (app / "node_modules" / "vite").symlink_to(JS_MODULES / "vite")
    for path in entry["files"]:
        shutil.copyfile(release / entry["folder"] / path, app / path)
    probe = (
        "const m = await import('./vite.config.mjs');"
        "const names = (mode) => m.default({ mode }).plugins.map((p) => p.name);"
        "console.log(JSON.stringify({ test: names('test'), production: names('production') }));"
    )
    run = subprocess.run(
        [str(NODE), "--input-type=module", "-e", probe], cwd=app, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr[-3000:]
    plugins = json.loads(run.stdout.strip().splitlines()[-1])
    assert plugins["production"] == [] and len(plugins["test"]) == 1, plugins
