"""The I/O loop sleeps while a worker writes an answer. Polled for writing then, the socket is always ready and
``handle_write`` cannot take the buffers the worker holds: on a machine whose cores are busy with other work,
the loop spun 25-100 times a request, and took the interpreter from the worker after each of its sends."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from waitress import wasyncore

from simulator.config import Config
from simulator.server import SimulatorServer
from simulator.testing import ApiKeyStamper, SimulatorClient

REQUESTS = 40


def test_the_loop_turns_a_few_times_a_request_on_a_busy_machine(monkeypatch):
    turns = [0]
    poll = wasyncore.poll2

    def counted(timeout: float = 0.0, map: Any = None) -> None:
        turns[0] += 1
        poll(timeout, map)

    monkeypatch.setattr(wasyncore, "poll2", counted)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        with SimulatorServer(config=Config(seed=1)) as server:
            creds = server.simulator.default_credentials()
            client = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
            assert client.query("whoami").status == 200  # warmed: the first request pays for what is made once
            turns[0] = 0
            for _ in range(REQUESTS):
                assert client.query("whoami").status == 200
            per_request = turns[0] / REQUESTS
    finally:
        for process in busy:
            process.kill()
            process.wait(timeout=10)
    # a request takes a read, a wake-up by the worker and a write, and the other port's loop a turn now and then
    assert per_request <= 10, f"{per_request:.1f} turns of the I/O loops a request"
