"""A wheel built from the checkout carries schemas, scenarios and fixtures and works elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        check=True,
        timeout=300,
    )
    return next(out.glob("*.whl"))


def test_the_wheel_carries_the_data_folders(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for needed in (
        "simulator/_data/schemas/submit/create_wallet.json",
        "simulator/_data/schemas/scenario.json",
        "simulator/_data/scenarios/default.yaml",
        "simulator/_data/fixtures/default_credentials.json",
    ):
        assert needed in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "wallet-simulator = simulator.cli:main" in text and "simulator.pytest_plugin" in text


def test_the_installed_wheel_serves_outside_the_checkout(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        timeout=300,
    )
    script = (
        "import json, simulator; from simulator import Simulator; s = Simulator(); "
        "print(json.dumps([simulator.__file__, str(s.schemas.root), s.default_credentials()['organizationId']]))"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    module, schemas, org = json.loads(result.stdout)
    assert module.startswith(str(target)) and schemas.startswith(str(target))
    assert org == json.loads((ROOT / "fixtures" / "default_credentials.json").read_text())["organizationId"]
