"""bench/phases.py, the breakdown bench/floors.py prints under a missed own-work target: its map of the
simulator's functions to phases follows the code (a function renamed or moved would silently fall out
of the breakdown), and metering a request leaves the simulator as it found it, answers unchanged."""

from __future__ import annotations

import importlib
import json
import sys

import pytest
from conftest import ROOT


@pytest.fixture(scope="module")
def phases():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        yield importlib.import_module("phases")
    finally:
        sys.path.remove(str(ROOT / "bench"))


def test_every_function_the_phases_name_exists(phases):
    for phase in phases.PHASES:
        assert phase.why, phase.name
        for target in phase.targets:
            phases.resolve(target)  # raises, naming the target, when it went stale


def test_a_metered_request_answers_the_same_and_the_wrappers_go_away(phases):
    from hotspots import call
    from workload import Workload, scenario_file

    from simulator import Config, Simulator, create_app
    from simulator.auth import stamps
    from simulator.pipeline import run_activity

    app = create_app(Simulator(Config(seed=1, scenarios=(scenario_file(),))))
    work = Workload()
    work.learn(json.loads(call(app, work.setup_requests())[1]))
    hooks = [list(h) for h in app.before_request_funcs.values()]
    breakdown = phases.measure(app, work, "sign_raw_payload", requests=12)
    assert {"handler", "activity envelope", "journal entry", phases.REST} <= set(breakdown.phases)
    assert all(us >= 0 for name, us in breakdown.phases.items() if name != phases.REST)
    assert all(breakdown.why(name) for name in breakdown.phases)
    assert not hasattr(stamps.verify_api_key_stamp, "__wrapped__") and not hasattr(run_activity, "__wrapped__")
    assert [list(h) for h in app.before_request_funcs.values()] == hooks
    status, body = call(app, work.whoami())
    assert status == 200 and json.loads(body)["organizationId"] == "bench-59"
