"""Prism (``@stoplight/prism-cli``), the generic OpenAPI mock, serving the public swagger: the
baseline the simulator must beat by 4x. Used only when ``node`` and ``npm`` are on the PATH.

Prism is installed once with npm into ``$WALLET_SIMULATOR_BENCH_CACHE`` (default
``~/.cache/wallet-simulator-bench``), pinned, and started with its request log off so that it
is measured at its best. The swagger is Turnkey's public one as tkhq/sdk publishes it, fetched once
into the same cache; ``$WALLET_SIMULATOR_BENCH_SWAGGER`` names a local copy instead (offline).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

PRISM = "@stoplight/prism-cli@5.16.0"
# pinned to a release tag, so that every run mocks the same bytes
SWAGGER_URL = (
    "https://raw.githubusercontent.com/tkhq/sdk/v2026.8.4/"
    "packages/http/src/__generated__/services/coordinator/public/v1/public_api.swagger.json"
)
CACHE = Path(os.environ.get("WALLET_SIMULATOR_BENCH_CACHE", Path.home() / ".cache" / "wallet-simulator-bench"))


def swagger() -> Path:
    """The swagger Prism serves: ``$WALLET_SIMULATOR_BENCH_SWAGGER``, else the cached public one."""
    local = os.environ.get("WALLET_SIMULATOR_BENCH_SWAGGER")
    return Path(local) if local else CACHE / "public_api.swagger.json"


def available() -> str | None:
    """Why Prism cannot run here, or None when it can (the public swagger fetched on first use)."""
    if not shutil.which("node") or not shutil.which("npm"):
        return "node/npm not found"
    path = swagger()
    if os.environ.get("WALLET_SIMULATOR_BENCH_SWAGGER"):
        return None if path.is_file() else f"{path} (WALLET_SIMULATOR_BENCH_SWAGGER) not found"
    if not path.is_file():
        try:
            with urllib.request.urlopen(SWAGGER_URL, timeout=60) as answer:
                body = answer.read()
        except OSError as exc:
            return f"{SWAGGER_URL} could not be fetched ({exc}); set WALLET_SIMULATOR_BENCH_SWAGGER to a local copy"
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".part")
        partial.write_bytes(body)
        partial.replace(path)  # a fetch cut short never passes for the swagger
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
        [str(install()), "mock", "-h", "127.0.0.1", "-p", str(port), "-v", "error", str(swagger())],
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
