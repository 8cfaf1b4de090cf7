"""A TypeScript team's install, as the docs say it: the JS helper packed with ``npm pack``, the
Python package built as a wheel, both installed into a new project outside the repository, and the
``js file`` blocks of the JS tutorial (docs/tutorials/js-suites.md: a vitest suite and a jest suite)
written into it, unchanged, and run.

Nothing is fetched: the helper installs offline from its tarball (it has no dependencies); vitest,
jest and their dependencies are linked from tests/js/node_modules, where ``npm ci`` put them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from support import project_with_the_helper

JS = ROOT / "tests" / "js"
NODE = shutil.which("node")
TUTORIAL = ROOT / "docs" / "tutorials" / "js-suites.md"
FILE_BLOCK = re.compile(r"^```js file (\S+)\n(.*?)^```$", re.M | re.S)
pytestmark = pytest.mark.skipif(
    not (NODE and shutil.which("npm") and (JS / "node_modules" / "vitest").is_dir()),
    reason="node, npm or tests/js/node_modules missing (npm ci --prefix tests/js)",
)


def tutorial_files() -> dict[str, str]:
    return {path: code for path, code in FILE_BLOCK.findall(TUTORIAL.read_text())}


@pytest.fixture(scope="module")
def project(site, tmp_path_factory):
    """A new project with the packed helper installed and the tutorial's files written, unchanged."""
    where = tmp_path_factory.mktemp("downstream")
    app = project_with_the_helper(where, "payouts")
    for tool in ("vitest", "jest"):  # the runners, as `npm install -D vitest jest` would leave them
        (app / "node_modules" / tool).symlink_to(JS / "node_modules" / tool)
    for path, code in tutorial_files().items():
        (app / path).parent.mkdir(parents=True, exist_ok=True)
        (app / path).write_text(code)
    env = {
        **os.environ,
        "PYTHONPATH": str(site),  # the installed wheel, not the checkout
        "WALLET_SIMULATOR_COMMAND": json.dumps([sys.executable, "-m", "simulator"]),
        "CI": "true",
        "NO_COLOR": "1",  # plain summaries to read
        "FORCE_COLOR": "0",
    }
    return app, env


def test_the_tutorial_gives_a_vitest_and_a_jest_suite():
    assert {"vitest.config.mjs", "jest.config.js"} <= set(tutorial_files())


def test_the_packed_helper_is_the_one_installed(project):
    app, _ = project
    installed = json.loads((app / "node_modules" / "wallet-simulator-testing" / "package.json").read_text())
    assert installed["version"] == json.loads((ROOT / "js" / "package.json").read_text())["version"]
    declared = json.loads((app / "package.json").read_text())["devDependencies"]["wallet-simulator-testing"]
    assert declared.startswith("file:") and "/work/" not in declared.replace(str(app.parent), "")


def test_the_vitest_suite_from_the_docs_passes(project):
    app, env = project
    run = subprocess.run(
        [NODE, str(app / "node_modules" / "vitest" / "vitest.mjs"), "run"],
        cwd=app,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert re.search(r"Tests\s+2 passed", run.stdout), run.stdout[-2000:]


def test_the_jest_suite_from_the_docs_passes(project):
    app, env = project
    run = subprocess.run(
        [NODE, str(app / "node_modules" / "jest" / "bin" / "jest.js"), "--ci"],
        cwd=app,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert re.search(r"Tests:\s+1 passed, 1 total", run.stderr), run.stderr[-2000:]


def test_the_helper_version_moves_with_the_package():
    """npm serves a tarball of an unchanged version from its cache: the helper's version is the
    package's, and the changelog names it."""
    python = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert json.loads((ROOT / "js" / "package.json").read_text())["version"] == python
    assert f"## {python}" in (ROOT / "docs" / "changelog.md").read_text()
