"""The JS helper's types (js/*.d.ts) describe what it does: a TypeScript file using every part of its
public surface (tests/js/types/usage.ts) compiles with ``tsc --strict``."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import ROOT

JS = ROOT / "tests" / "js"
TSC = JS / "node_modules" / ".bin" / "tsc"


@pytest.mark.skipif(not (shutil.which("node") and TSC.exists()), reason="node or tests/js/node_modules missing")
def test_the_helper_types_compile_strictly():
    run = subprocess.run(
        [str(TSC), "-p", str(JS / "types" / "tsconfig.json")], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.skipif(
    not (shutil.which("node") and TSC.exists() and (JS / "node_modules" / "@playwright" / "test").is_dir()),
    reason="node, tsc or @playwright/test missing in tests/js/node_modules",
)
def test_the_playwright_fixture_types_compile_strictly_with_playwright_test():
    """The `test` of wallet-simulator-testing/playwright is typed with @playwright/test's types when it
    is installed; without it (tsconfig.json above resolves none) the rest still compiles."""
    run = subprocess.run(
        [str(TSC), "-p", str(JS / "types" / "tsconfig.playwright.json")], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
