"""The JS helper's types (js/lib/*/*.d.ts) describe what it does: a TypeScript file using every part of
its public surface (tests/js/types/usage.ts, entry-points.ts) compiles with ``tsc --strict``. The
imports resolve as a user's do: ``wallet-simulator-testing`` is a package in node_modules (a link to
js/), so each entry's types come through the package's exports map."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT

JS = ROOT / "tests" / "js"
TSC = JS / "node_modules" / ".bin" / "tsc"


def project(tmp_path: Path) -> Path:
    """tests/js/types copied beside a node_modules holding tests/js's packages and the helper (js/)."""
    modules = tmp_path / "node_modules"
    modules.mkdir()
    for installed in (JS / "node_modules").iterdir():
        (modules / installed.name).symlink_to(installed, target_is_directory=installed.is_dir())
    (modules / "wallet-simulator-testing").symlink_to(ROOT / "js", target_is_directory=True)
    shutil.copytree(JS / "types", tmp_path / "types")
    return tmp_path / "types"


@pytest.mark.skipif(not (shutil.which("node") and TSC.exists()), reason="node or tests/js/node_modules missing")
def test_the_helper_types_compile_strictly(tmp_path):
    types = project(tmp_path)
    run = subprocess.run([str(TSC), "-p", str(types / "tsconfig.json")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.skipif(
    not (shutil.which("node") and TSC.exists() and (JS / "node_modules" / "@playwright" / "test").is_dir()),
    reason="node, tsc or @playwright/test missing in tests/js/node_modules",
)
def test_the_playwright_fixture_types_compile_strictly_with_playwright_test(tmp_path):
    """The `test` of wallet-simulator-testing/playwright is typed with @playwright/test's types when it
    is installed; without it (tsconfig.json above resolves none) the rest still compiles."""
    types = project(tmp_path)
    run = subprocess.run(
        [str(TSC), "-p", str(types / "tsconfig.playwright.json")], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
