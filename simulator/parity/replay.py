"""``parity replay REAL --out SIMULATED``: the requests of a recording made against the real service, sent again
to a simulator through a recorder, so that one run against Turnkey is enough to compare.

Each request is the recorded one with the values the real service produced replaced by the simulator's (learnt
by walking each pair of answers side by side: the same path holds the same role), the real organization and
API key by the simulator's default ones, ``timestampMs`` made now, and the stamp the simulator's default key's.
A request whose recording lost a secret (``[redacted: ...]``: an OTP code, a token) cannot be sent again: it is
left out and named, and shows in the diff as an exchange the simulated run lacks. Every main-interface request
is stamped with the default key, so a suite that stamps as other users (sub-organizations, sessions) replays
only where the default user may act; the auth proxy's need a configuration in the simulator's scenario. For
those, record the simulated run of the suite itself (``parity record --out``, the plugin's switch).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import urllib3

from simulator.parity.exchanges import Exchange
from simulator.parity.recorder import ParityRecorder
from simulator.parity.roles import looks_produced

REDACTED = "[redacted: "


def redacted(value: Any) -> bool:
    if isinstance(value, dict):
        return any(redacted(v) for v in value.values())
    if isinstance(value, list):
        return any(redacted(v) for v in value)
    return isinstance(value, str) and value.startswith(REDACTED)


class Substitution:
    """Real values -> the simulator's, learnt from answers walked side by side."""

    def __init__(self, organization: tuple[str, str]) -> None:
        self.values: dict[str, str] = {organization[0]: organization[1]}

    def learn(self, real: Any, simulated: Any, key: str = "") -> None:
        if isinstance(real, dict) and isinstance(simulated, dict):
            for name in real.keys() & simulated.keys():
                self.learn(real[name], simulated[name], name)
        elif isinstance(real, list) and isinstance(simulated, list):
            for a, b in zip(real, simulated):
                self.learn(a, b, key)
        elif (
            isinstance(real, str)
            and isinstance(simulated, str)
            and real != simulated
            and looks_produced(real, key)
            and real not in self.values
        ):
            self.values[real] = simulated

    def apply(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self.apply(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.apply(v) for v in value]
        if isinstance(value, str):
            if value in self.values:
                return self.values[value]
            for real in sorted((r for r in self.values if len(r) >= 20 and r in value), key=len, reverse=True):
                value = value.replace(real, self.values[real])
        return value


def replay(exchanges: list[Exchange], server: Any, out: Path) -> list[str]:
    """Send ``exchanges`` again to the started simulator ``server`` through a recorder writing ``out``; the
    exchanges left out, each with why."""
    from simulator.testing import ApiKeyStamper

    creds = server.simulator.default_credentials()
    real_org = next(
        (
            e.request["body"]["organizationId"]
            for e in exchanges
            if isinstance(e.request.get("body"), dict) and isinstance(e.request["body"].get("organizationId"), str)
        ),
        creds["organizationId"],
    )
    names = Substitution((real_org, creds["organizationId"]))
    stamper = ApiKeyStamper(creds["apiPrivateKey"])
    left_out: list[str] = []
    http = urllib3.PoolManager()
    last_ms = 0
    with ParityRecorder(server.url, out, proxy_upstream=server.proxy_url) as recorder:
        for ex in exchanges:
            body = ex.request.get("body")
            if redacted(body):
                left_out.append(f"#{ex.index} {ex.operation}: its request held a secret the recording redacted")
                continue
            body = names.apply(body)
            if isinstance(body, dict) and "timestampMs" in body:
                last_ms = max(int(time.time() * 1000), last_ms + 1)
                body["timestampMs"] = str(last_ms)
            raw = json.dumps(body).encode()
            headers = {"Content-Type": "application/json"}
            if ex.interface == "api":
                name, value = stamper.stamp(raw)
                headers[name] = value
            else:
                headers.update(
                    {k: names.apply(v) for k, v in ex.request["headers"].items() if k == "x-auth-proxy-config-id"}
                )
            base = recorder.url if ex.interface == "api" else recorder.proxy_url
            reply = http.request("POST", base + ex.path, body=raw, headers=headers, retries=False, redirect=False)
            try:
                answer = json.loads(reply.data) if reply.data else None
            except ValueError:
                answer = None
            names.learn(ex.answer, answer)
    http.clear()
    return left_out
