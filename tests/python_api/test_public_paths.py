"""What a user can reach keeps working when the code behind it moves: the fixture's objects'
methods, and the import paths the documentation names (old names kept as aliases)."""

from __future__ import annotations

import json
from typing import Any

from simulator.testing import ApiKeyStamper


def test_the_simulators_own_stamp_check_and_authentication_stay_reachable(simulator: Any, simulator_credentials: Any):
    sim = simulator.simulator
    body = json.dumps({"organizationId": simulator_credentials["organizationId"]}).encode()
    name, value = ApiKeyStamper(simulator_credentials["apiPrivateKey"]).stamp(body)
    stamp = sim.check_stamp({name: value}, body)
    assert stamp is not None
    principal = sim.authenticate(
        stamp, {name: value}, body, simulator_credentials["organizationId"], sim.clock.now_ms()
    )
    assert principal.user.user_id == simulator_credentials["userId"]


def test_the_clock_can_still_be_unfrozen(simulator: Any):
    clock = simulator.clock
    clock.freeze()
    clock.unfreeze()
    assert clock.state()[1] is None


def test_base64url_helpers_stay_importable_from_the_stamps_module():
    from simulator import wire
    from simulator.auth.stamps import b64url_decode, b64url_encode

    assert b64url_encode is wire.b64url_encode and b64url_decode is wire.b64url_decode
    assert b64url_decode(b64url_encode(b"\xff\x00")) == b"\xff\x00"


def test_the_webhook_signatures_old_import_path_is_the_new_module():
    """docs/how-to/webhooks.md named ``simulator.events.signing``; webhooks/ is its home now (the old
    path warns that it is deprecated)."""
    import sys

    import pytest

    for old in ("simulator.events", "simulator.events.signing"):
        sys.modules.pop(old, None)
    vars(sys.modules["simulator"]).pop("events", None)
    with pytest.deprecated_call(match="simulator.webhooks"):
        from simulator.events.signing import verify_delivery
    from simulator.webhooks import signing

    assert verify_delivery is signing.verify_delivery
