"""The node load generator (bench/nodeload.js) driven from Python: one long-lived node process.

Node's standard library is all it needs, so there is nothing to install: ``node`` (18 or later)
on the PATH is enough. Requests are built and stamped in node (real P-256 signatures, one per
request) under a name, then sent to any port, so that the simulator, the echo and Prism receive
the same bytes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parent / "nodeload.js"


@dataclass(frozen=True)
class Figure:
    rps: float
    p50_ms: float
    p99_ms: float
    client_cpu_us: float = 0.0  # the node load generator's CPU time per request
    server_cpu_us: float = 0.0  # the server process's CPU time per request (when its pid is known)


def available() -> str | None:
    """Why node cannot drive the load here, or None when it can."""
    return None if shutil.which("node") else "node not found on the PATH"


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class NodeLoad:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ["node", str(SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.signer = ""
        self.activity = ""

    def ask(self, **command: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the node load generator exited")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def setup(self, port: int) -> None:
        """The signing wallet (bench-59) whose address and activity the other operations use."""
        answer = self.ask(cmd="send", op="setup", port=port)
        if answer["status"] != 200:
            raise SystemExit(f"node setup create_wallet answered {answer['status']}: {answer['body'][:300]}")
        activity = json.loads(answer["body"])["activity"]
        self.activity = activity["id"]
        self.signer = activity["result"]["createWalletResult"]["addresses"][0]

    def build(self, name: str, op: str, count: int) -> None:
        self.ask(cmd="build", name=name, op=op, count=count, signer=self.signer, activity=self.activity)

    def run(self, name: str, port: int, conns: int, path: str | None = None, pid: int | None = None) -> Figure:
        """Send the batch ``name``; ``pid``: the server's process, whose CPU time per request is noted too."""
        before = cpu_seconds(pid) if pid else 0.0
        answer = self.ask(cmd="run", name=name, port=port, conns=conns, path=path)
        server = (cpu_seconds(pid) - before) * 1e6 / answer["count"] if pid else 0.0
        if answer["failed"]:
            raise RuntimeError(f"a request failed: {answer['failed']}")
        return Figure(answer["rps"], answer["p50_ms"], answer["p99_ms"], answer["cpu_us"], server)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)
