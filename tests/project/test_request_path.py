"""The request path goes one way (issue 54): the main interface's view hands the request to the pipeline,
which works on the ``pipeline.Services`` it is given and never calls the Simulator back. Checked by running
requests through the app with a profiler hook on the request's thread: no code of simulator/core.py runs but
the mnemonic stream the Simulator handed down to the wallet pool (simulator/model/mnemonic_pool.py)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from simulator import Config, Simulator, create_app
from simulator.testing import ApiKeyStamper

HANDED_DOWN = {"stream"}  # core.live_stream's closure, called by the mnemonic pool for the current store


@contextmanager
def calls_into_core() -> Iterator[set[str]]:
    found: set[str] = set()

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename.replace("\\", "/").endswith("simulator/core.py"):
            found.add(frame.f_code.co_name)

    sys.setprofile(hook)
    try:
        yield found
    finally:
        sys.setprofile(None)


def test_a_request_through_the_app_runs_no_method_of_the_simulator() -> None:
    sim = Simulator(Config(seed=5))
    client = create_app(sim).test_client()
    creds = sim.default_credentials()
    stamper = ApiKeyStamper(creds["apiPrivateKey"])
    org = creds["organizationId"]
    now = str(int(time.time() * 1000))
    requests = [
        (
            "submit/create_wallet",
            {
                "type": "ACTIVITY_TYPE_CREATE_WALLET",
                "timestampMs": now,
                "organizationId": org,
                "parameters": {"walletName": "one way", "accounts": []},
            },
        ),
        ("query/whoami", {"organizationId": org}),
        ("query/get_wallet", {"organizationId": org, "walletId": "not-a-wallet"}),  # refused: 4xx, journaled
    ]
    statuses = []
    for path, body in requests:
        raw = json.dumps(body).encode()
        name, value = stamper.stamp(raw)
        with calls_into_core() as called:
            answer = client.post(
                f"/public/v1/{path}", data=raw, headers={name: value, "Content-Type": "application/json"}
            )
        statuses.append(answer.status_code)
        assert called <= HANDED_DOWN, f"{path} ran simulator/core.py's {sorted(called - HANDED_DOWN)}"
    assert statuses[:2] == [200, 200] and statuses[2] >= 400
    assert [e["op"] for e in sim.journal.entries()][-3:] == ["create_wallet", "whoami", "get_wallet"]
