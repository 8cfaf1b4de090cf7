"""serve --data-dir's group commit: a request that finishes while another state-changing request is still running
waits for it, and one record covers both; a request alone writes at once. Driven through the gate serve puts
in front of the application (``WriteGate``), in process, with a request held running by a test middleware."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from conftest import ETH_ACCOUNT
from support import stamped_activity
from werkzeug.test import Client

from simulator import Config, Simulator, create_app
from simulator.datadir import files
from simulator.datadir.directory import DataDir
from simulator.datadir.gate import WriteGate
from simulator.server import data_dir_writer

HOLD = "X-Test-Hold"  # the middleware below holds a request carrying it until the test lets it go


class Holding:
    """Holds a request that carries ``HOLD`` before the application runs it (it counts as running meanwhile)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.holding = threading.Event()
        self.release = threading.Event()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if "HTTP_X_TEST_HOLD" in environ:
            self.holding.set()
            self.release.wait(10)
        return self.app(environ, start_response)


def create_wallet(gate: Any, sim: Simulator, name: str, hold: bool = False) -> int:
    parameters = {"walletName": name, "accounts": [ETH_ACCOUNT]}
    raw, headers = stamped_activity(sim, "ACTIVITY_TYPE_CREATE_WALLET", parameters)
    if hold:
        headers[HOLD] = "1"
    answer = Client(gate).post("/public/v1/submit/create_wallet", data=raw, headers=headers)
    return answer.status_code


def records(directory: Path) -> int:
    return files.load(directory).records


def test_a_request_finishing_beside_a_running_one_waits_for_it_and_one_record_covers_both(tmp_path):
    sim = Simulator(Config(seed=1, timestamp_window_ms=None))
    directory = tmp_path / "data"
    data_dir = DataDir(directory)
    data_dir.open()
    writer = data_dir_writer(sim, data_dir, loaded=False)
    writer.siblings_wait_s = 30.0  # longer than the test: the wait ends when the sibling finishes, not by time
    holding = Holding(create_app(sim))
    gate = WriteGate(holding, writer)
    threads: list[threading.Thread] = []
    try:
        started = time.monotonic()
        assert create_wallet(gate, sim, "alone") == 200  # no sibling running: written at once
        assert time.monotonic() - started < 10
        assert records(directory) == 1

        answers: dict[str, int] = {}
        held = threading.Thread(target=lambda: answers.setdefault("held", create_wallet(gate, sim, "held", True)))
        threads.append(held)
        held.start()
        assert holding.holding.wait(10)
        beside = threading.Thread(target=lambda: answers.setdefault("beside", create_wallet(gate, sim, "beside")))
        threads.append(beside)
        beside.start()
        beside.join(0.5)
        # its wallet is made, its answer waits for the sibling still running: nothing written yet
        assert beside.is_alive()
        assert "beside" in [w.name for w in next(iter(sim.store.orgs.values())).wallets.values()]
        assert records(directory) == 1

        holding.release.set()
        held.join(10)
        beside.join(10)
        assert answers == {"held": 200, "beside": 200}
        assert records(directory) == 2  # one record for the two
        document = files.load(directory).document
        assert document is not None
        fresh = Simulator(Config(seed=1))
        fresh.import_kept_state(document)
        names = {w.name for org in fresh.store.orgs.values() for w in org.wallets.values()}
        assert {"alone", "held", "beside"} <= names
    finally:
        holding.release.set()
        for thread in threads:
            thread.join(10)
        writer.close()
