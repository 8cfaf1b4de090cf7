"""What the web-app and frames browser tests share (no tests here): a bundle built with node and
served on loopback under ``localhost``, and ``wallet-simulator serve`` run as a person runs it.

``localhost``: a passkey's rpId must be a domain, not an IP address, and the simulator's ports are
on 127.0.0.1, so the page is of another origin than the API, as a deployed app is.
"""

from __future__ import annotations

import contextlib
import functools
import json
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from conftest import ROOT
from support import BROWSER_STEP_SECONDS, PROCESS_STOP_SECONDS, serving

MODULES = ROOT / "tests" / "js" / "node_modules"
NODE, CHROMIUM = shutil.which("node"), shutil.which("chromium")
CONFIG_ID = "webapp-config"  # the auth proxy configuration serve --auth-proxy makes for the pages


def missing(*packages: str) -> bool:
    """Whether node, chromium or one of ``packages`` (in tests/js/node_modules) is absent."""
    return not (NODE and CHROMIUM and all((MODULES / name).is_dir() for name in packages))


class QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # the tests report what matters
        pass


@contextlib.contextmanager
def built_and_served(build_script: Path, into: Path, timeout: float) -> Iterator[str]:
    """Run ``node build_script into`` and serve ``into`` on loopback; yields the origin (``http://localhost:<port>``)."""
    run = subprocess.run([str(NODE), str(build_script), str(into)], capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, run.stderr[-3000:]
    with serving(ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietFiles, directory=str(into)))) as origin:
        yield origin


def serve(*switches: str, log: Path, ports: tuple[int, int] = (0, 0)) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """``wallet-simulator serve`` with the web-app switches, on ``ports`` (API, auth proxy; 0: free ones); its ready line."""
    port, proxy_port = (str(p) for p in ports)
    command = [sys.executable, "-m", "simulator", "serve", "--port", port, "--proxy-port", proxy_port, "--seed", "5"]
    with log.open("w") as stderr:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(
            [*command, "--auth-proxy", "--auth-proxy-config-id", CONFIG_ID, *switches],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    assert proc.stdout is not None
    if not select.select([proc.stdout], [], [], BROWSER_STEP_SECONDS)[0]:
        stop(proc)
        raise AssertionError(f"serve printed no ready line within {BROWSER_STEP_SECONDS} s: {log.read_text()[-2000:]}")
    line = proc.stdout.readline()
    if not line:
        stop(proc)
        raise AssertionError(f"serve stopped: {log.read_text()[-2000:]}")
    return proc, json.loads(line)


def stop(proc: subprocess.Popen[str], how: signal.Signals = signal.SIGINT) -> None:
    """Ctrl-C, as a person stops serve (or ``how``: SIGTERM as a service manager, SIGKILL as a crash); killed
    if it has not stopped within PROCESS_STOP_SECONDS."""
    if proc.poll() is None:
        proc.send_signal(how)
    try:
        proc.wait(PROCESS_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(PROCESS_STOP_SECONDS)
    if proc.stdout is not None:
        proc.stdout.close()
