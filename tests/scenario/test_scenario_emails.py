"""A scenario user's e-mail address whose domain cannot receive mail, which the service refuses: `check` (and every
load) warns about it, with its line; under the file's strictEmail: true it is a problem that refuses the file
(issue 52). The address's syntax is the API's to judge, as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from simulator import Config, ScenarioError, ScenarioWarning, Simulator

SCENARIO = """version: 1
{strict}organizations:
  - name: Acme
    users:
      - name: alice
        email: alice@mail.test
      - name: bob
        email: bob@example.com
      - name: carol
        email: not an address
"""


def check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "simulator", "check", str(path)], capture_output=True, text=True, timeout=60
    )


def test_check_warns_about_each_unreachable_address_and_accepts_the_file(tmp_path):
    path = tmp_path / "users.yaml"
    path.write_text(SCENARIO.format(strict=""))
    run = check(path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"{path}: ok"
    lines = run.stderr.splitlines()
    unreachable = f"{path}:6: organizations[0].users[0].email: could not reach email: 'alice@mail.test'"
    assert any(line.startswith(unreachable) and "strictEmail: true" in line for line in lines), run.stderr
    assert lines[0].endswith("[warning]") and len(lines) == 1, run.stderr  # example.com and the syntax: no word


def test_under_strict_email_the_file_is_refused_naming_each_address(tmp_path):
    path = tmp_path / "strict.yaml"
    path.write_text(SCENARIO.format(strict="strictEmail: true\n"))
    run = check(path)
    assert run.returncode == 1
    assert f"1 problem(s) in scenario {path}" in run.stderr
    assert f"{path}:7: organizations[0].users[0].email: could not reach email: 'alice@mail.test'" in run.stderr
    with pytest.raises(ScenarioError):
        Simulator(Config(seed=0, scenarios=(path,)))


def test_an_included_file_is_read_under_the_including_files_strict_email(tmp_path):
    (tmp_path / "people.yaml").write_text(SCENARIO.format(strict="").replace("not an address", "carol@corp.com"))
    loose = tmp_path / "loose.yaml"
    loose.write_text("include: [people.yaml]\n")
    with pytest.warns(ScenarioWarning, match="could not reach email: 'alice@mail.test'"):
        Simulator(Config(seed=0, scenarios=(loose,))).close()
    strict = tmp_path / "strict.yaml"
    strict.write_text("strictEmail: true\ninclude: [people.yaml]\n")
    with pytest.raises(ScenarioError, match="could not reach email: 'alice@mail.test'"):
        Simulator(Config(seed=0, scenarios=(strict,)))
