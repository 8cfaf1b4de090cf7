"""The pytest tutorial as a Python backend developer follows it (docs/tutorials/pytest.md): its
``file`` blocks (pytest.ini, tests/test_payouts.py, tests/scenarios/payouts.yaml) written, unchanged,
into a new directory outside the repository and run with pytest, serially and with ``-n 2``: the
official client end to end, users and policies, a scenario, webhooks on ``/hooks``, and an end
user's e-mail OTP login (init_otp, verify_otp V2, otp_login) through turnkey-http.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import ROOT, preloaded_env

TUTORIAL = ROOT / "docs" / "tutorials" / "pytest.md"
FILE_BLOCK = re.compile(r"^```(?:python|yaml|ini) file (\S+)\n(.*?)^```$", re.M | re.S)


def tutorial_files() -> dict[str, str]:
    return {path: code for path, code in FILE_BLOCK.findall(TUTORIAL.read_text())}


def test_the_tutorial_gives_a_whole_project():
    assert {"pytest.ini", "tests/test_payouts.py", "tests/scenarios/payouts.yaml"} <= set(tutorial_files())


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    where = tmp_path_factory.mktemp("payouts")
    for path, code in tutorial_files().items():
        (where / path).parent.mkdir(parents=True, exist_ok=True)
        (where / path).write_text(code)
    return where


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_the_suite_from_the_docs_passes(project, workers):
    env = preloaded_env()
    env["PYTHONPATH"] = ":".join(filter(None, [env["PYTHONPATH"], str(ROOT)]))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *workers],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=project,
        env=env,
    )
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-2000:]
    assert re.search(r"\b6 passed\b", run.stdout) and "skipped" not in run.stdout, run.stdout[-2000:]
