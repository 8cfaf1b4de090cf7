"""The client version matrix: one release per major line of the official clients, each driving the
same backend script against the simulator (tests/js/matrix.js for the JS packages,
client_matrix_driver.py for every turnkey-http release on PyPI). A step the release lacks is skipped
by name, and exactly the skips the matrix expects may happen; any other step must pass.

The JS releases are npm aliases in tests/js/package.json, or the copy a pinned alias ships (sdk-server
5.3.0 ships http 3.18.1, ...), so `npm ci --prefix tests/js` installs them all. The Python releases
cannot share one environment: each is installed once with `pip install --target` into a cache
outside the work tree ($XDG_CACHE_HOME, default ~/.cache) and run in a subprocess with that
directory first on PYTHONPATH. docs/how-to/official-clients.md lists the same matrix.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version
from pathlib import Path

import pytest
from conftest import ROOT

from simulator.crypto import service_keys

JS = ROOT / "tests" / "js"
DRIVER = Path(__file__).with_name("client_matrix_driver.py")
DOC = ROOT / "docs" / "how-to" / "official-clients.md"
EMAIL = "matrix@example.com"
NO_OTP_LOGIN = ("otp_login",)  # init_otp/verify_otp/otp_login arrived in sdk-server 4.x and http 3.x


@dataclass(frozen=True)
class Release:
    package: str
    version: str
    covers: str
    skipped: tuple[str, ...] = ()
    path: tuple[str, ...] = ()  # tests/js/node_modules/<path[0]>, then each next package as Node finds it
    kind: str = ""  # http, sdk-server, viem or ethers: how matrix.js drives it

    @property
    def id(self) -> str:
        return f"{self.package}@{self.version}"


HTTP = "backend steps through TurnkeyClient and createActivityPoller, with the activity types its types declare"
SDK = "backend steps through Turnkey().apiClient(), with the activity types it sends"
PY = "backend steps through TurnkeyClient, bodies from its turnkey-sdk-types"
MATRIX = (
    Release("@turnkey/http", "2.22.0", HTTP, NO_OTP_LOGIN, ("turnkey-http-v2",), "http"),
    Release("@turnkey/http", "3.18.1", HTTP, (), ("turnkey-sdk-server-v5", "@turnkey/http"), "http"),
    Release("@turnkey/http", "4.1.1", HTTP, (), ("turnkey-sdk-server-v6", "@turnkey/http"), "http"),
    Release("@turnkey/http", "5.0.0", HTTP, (), ("turnkey-sdk-server-v7", "@turnkey/http"), "http"),
    Release("@turnkey/http", "6.6.0", HTTP, (), ("@turnkey/http",), "http"),
    Release("@turnkey/sdk-server", "1.7.3", SDK, NO_OTP_LOGIN, ("turnkey-sdk-server-v1",), "sdk-server"),
    Release("@turnkey/sdk-server", "2.6.1", SDK, NO_OTP_LOGIN, ("turnkey-sdk-server-v2",), "sdk-server"),
    Release("@turnkey/sdk-server", "3.3.1", SDK, NO_OTP_LOGIN, ("turnkey-sdk-server-v3",), "sdk-server"),
    Release("@turnkey/sdk-server", "4.12.2", SDK, (), ("turnkey-sdk-server-v4",), "sdk-server"),
    Release("@turnkey/sdk-server", "5.3.0", SDK, (), ("turnkey-sdk-server-v5",), "sdk-server"),
    Release("@turnkey/sdk-server", "6.1.1", SDK, (), ("turnkey-sdk-server-v6",), "sdk-server"),
    Release("@turnkey/sdk-server", "7.0.0", SDK, (), ("turnkey-sdk-server-v7",), "sdk-server"),
    Release("@turnkey/sdk-server", "8.2.1", SDK, (), ("@turnkey/sdk-server",), "sdk-server"),
    Release(
        "@turnkey/viem",
        "0.9.10",
        "backend steps through the sdk-server 4.2.0 it ships; createAccount's signMessage and signTransaction checked by viem",
        (),
        ("turnkey-viem-v0-9",),
        "viem",
    ),
    Release(
        "@turnkey/viem",
        "0.14.37",
        "backend steps through the sdk-server 8.2.1 it ships; createAccount's signMessage and signTransaction checked by viem",
        (),
        ("@turnkey/viem",),
        "viem",
    ),
    Release(
        "@turnkey/ethers",
        "1.3.29",
        "backend steps through the sdk-server 6.0.0 it ships; TurnkeySigner's signMessage and signTransaction checked by ethers",
        (),
        ("@turnkey/ethers",),
        "ethers",
    ),
    *(Release("turnkey-http", v, PY) for v in ("0.1.0", "0.2.0", "0.2.1", "0.2.2")),
)


def failures(out: dict[str, object], release: Release) -> None:
    """Fails naming the first failed step; the skips must be exactly the ones the matrix lists."""
    steps = out["steps"]
    assert isinstance(steps, list) and steps, out
    failed = [s for s in steps if s["status"] == "failed"]
    report = "\n".join(f"step {s['step']} failed:\n{s['detail']}" for s in failed)
    assert not failed, f"{release.id}: step {failed[0]['step'] if failed else ''} failed\n{report}"
    skipped = tuple(s["step"] for s in steps if s["status"] == "skipped")
    assert skipped == release.skipped, [s["detail"] for s in steps if s["status"] == "skipped"]
    assert (out["package"], out["version"]) == (release.package, release.version)


def given(simulator, credentials) -> dict[str, str]:
    return {
        **credentials,
        "url": simulator.url,
        "email": EMAIL,
        "enclaveKey": service_keys.public_hex("enclave"),
    }


@pytest.mark.parametrize("release", [r for r in MATRIX if r.kind], ids=lambda r: r.id)
def test_js_release_runs_the_backend_script(release, simulator, simulator_credentials):
    if not (shutil.which("node") and (JS / "node_modules").is_dir()):
        pytest.skip("node or tests/js/node_modules missing (npm ci --prefix tests/js)")
    if not (JS / "node_modules" / release.path[0]).is_dir():
        pytest.fail(
            f"tests/js/node_modules has no {release.path[0]}: an install from before the matrix (npm ci --prefix tests/js)"
        )
    client = {"package": release.package, "version": release.version, "path": release.path, "kind": release.kind}
    request = {**given(simulator, simulator_credentials), "client": client}
    run = subprocess.run(
        ["node", str(JS / "matrix.js"), json.dumps(request)], capture_output=True, text=True, timeout=180
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    failures(out, release)
    if out["sdkServer"]:  # viem and ethers sign through the sdk-server they ship: the table names it
        assert f"the sdk-server {out['sdkServer']} it ships" in release.covers
    assert simulator.simulator.crashes == []


def python_release_path(version: str) -> str | None:
    """The directory holding this turnkey-http release (None: the test environment's own), installed
    on first use with the turnkey-sdk-types of its minor line; the rest comes from the environment."""
    try:
        if installed_version("turnkey-http") == version:
            return None
    except PackageNotFoundError:
        pass
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wallet-simulator" / "client-matrix"
    target = cache / f"turnkey-http-{version}"
    if (target / "turnkey_http").is_dir():
        return str(target)
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        pytest.skip(f"turnkey-http {version} needs a cache directory to be installed into: {exc}")
    minor = ".".join(version.split(".")[:2])
    scratch = tempfile.mkdtemp(dir=cache, prefix=".installing-")
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps"]
    run = subprocess.run(
        [*pip, "--target", scratch, f"turnkey-http=={version}", f"turnkey-sdk-types=={minor}.*"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if run.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        pytest.skip(f"turnkey-http {version} could not be installed here: {run.stderr.strip()[-400:]}")
    try:
        os.rename(scratch, target)  # atomic: a parallel worker that got there first wins
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)
    return str(target)


@pytest.mark.parametrize("release", [r for r in MATRIX if not r.kind], ids=lambda r: r.id)
def test_python_release_runs_the_backend_script(release, simulator, simulator_credentials):
    pytest.importorskip("turnkey_http")
    first = python_release_path(release.version)
    tests = str(ROOT / "tests")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (first, tests, str(ROOT)) if p)}
    run = subprocess.run(
        [
            sys.executable,
            str(DRIVER),
            json.dumps({**given(simulator, simulator_credentials), "version": release.version}),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    failures(json.loads(run.stdout), release)
    assert simulator.simulator.crashes == []


def test_the_docs_list_the_matrix():
    """docs/how-to/official-clients.md's table of tested client versions is the matrix, row for row."""
    text = DOC.read_text()
    section = text.split("## Tested client versions", 1)[1].split("\n## ", 1)[0]
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("|") and not re.match(r"^\|[\s|:-]+\|$", line.strip())
    ][1:]  # the header
    listed = [(r[0].strip("`"), r[1].strip("`"), r[2], r[3]) for r in rows]
    expected = [(r.package, r.version, r.covers, ", ".join(r.skipped) or "none") for r in MATRIX]
    assert listed == expected
