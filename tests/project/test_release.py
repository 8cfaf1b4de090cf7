"""One release number everywhere a user reads it: the Python package, the JS helper shipped in
lockstep, the changelog's newest section, ``wallet-simulator --version`` and the ready line."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from conftest import ROOT

import simulator
from simulator.cli import ready_line

CHANGELOG = ROOT / "docs" / "changelog.md"


def test_the_package_the_js_helper_and_the_code_say_one_version():
    declared = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    helper = json.loads((ROOT / "js" / "package.json").read_text())["version"]
    assert declared == helper == simulator.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", declared)


def test_the_changelogs_newest_section_is_this_release_and_each_release_has_its_own():
    releases = re.findall(r"^## (\S+)(?: \((\d{4}-\d{2}-\d{2})\))?$", CHANGELOG.read_text(), re.M)
    names = [name for name, _ in releases]
    assert names[0] == simulator.__version__, "the changelog's first section is not this release's"
    assert "Unreleased" not in names[:1], "released work stays under 'Unreleased'"
    assert len(names) == len(set(names)) and "0.2.0" in names
    assert releases[0][1], "the newest release's heading carries its date"


def test_wallet_simulator_version_prints_the_release():
    run = subprocess.run(
        [sys.executable, "-m", "simulator", "--version"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"wallet-simulator {simulator.__version__}"


def test_the_ready_line_says_the_release(simulator_server):
    assert ready_line(simulator_server)["version"] == simulator.__version__
