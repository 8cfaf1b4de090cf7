"""Prism (``@stoplight/prism-cli``), the generic OpenAPI mock, serving the public swagger: the
baseline the simulator must beat by 4x. Used only when ``node`` and ``npm`` are on the PATH.

Prism is installed once with npm into ``$WALLET_SIMULATOR_BENCH_CACHE`` (default
``~/.cache/wallet-simulator-bench``), pinned, and started with its request log off so that it
is measured at its best.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

PRISM = "@stoplight/prism-cli@5.16.0"
SWAGGER = Path(__file__).resolve().parent.parent / "schemas" / "source" / "public_api.swagger.json"
CACHE = Path(os.environ.get("WALLET_SIMULATOR_BENCH_CACHE", Path.home() / ".cache" / "wallet-simulator-bench"))


def available() -> str | None:
    """Why Prism cannot run here, or None when it can."""
    if not shutil.which("node") or not shutil.which("npm"):
        return "node/npm not found"
    if not SWAGGER.exists():
        return f"{SWAGGER} not found"
    return None


def install() -> Path:
    binary = CACHE / "prism" / "node_modules" / ".bin" / "prism"
    if not binary.exists():
        (CACHE / "prism").mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", PRISM],
            cwd=CACHE / "prism",
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return binary


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(timeout: float = 90.0) -> tuple[subprocess.Popen[bytes], int]:
    """Prism mocking the swagger on a free loopback port, once it accepts connections."""
    port = free_port()
    process = subprocess.Popen(
        [str(install()), "mock", "-h", "127.0.0.1", "-p", str(port), "-v", "error", str(SWAGGER)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, port
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.2)
    process.kill()
    process.wait()
    raise RuntimeError("Prism did not start listening")
