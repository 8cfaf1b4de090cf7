"""A client's bad input never yields a 500: seeded mutations of every example body, stamped."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from conftest import ROOT

EXAMPLES = sorted((ROOT / "fixtures" / "requests").glob("*/*.json"))
ODD_VALUES = [
    None,
    0,
    -1,
    2**70,
    1.5,
    "",
    "x" * 3000,
    "\u0000\ud7ff",
    [],
    {},
    [None],
    {"a": {"b": []}},
    True,
    "m/44'/60'/0'/0/0",
    "ADDRESS_FORMAT_TON_V5R1",
    "00" * 33,
    "sha256:" + "0" * 64,
]
MUTATIONS_PER_BODY = 12


def paths(value, prefix=()):
    """Every (path) to a member or element of a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, prefix + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from paths(child, prefix + (i,))


def odd(rng: random.Random):
    return json.loads(json.dumps(rng.choice(ODD_VALUES)))


def mutate(body: dict, rng: random.Random) -> dict:
    body = json.loads(json.dumps(body))
    for _ in range(rng.randint(1, 3)):
        target = rng.choice([p for p in paths(body) if p])
        parent = body
        for part in target[:-1]:
            parent = parent[part]
        action = rng.random()
        if action < 0.25 and isinstance(parent, dict):
            del parent[target[-1]]
        elif action < 0.35 and isinstance(parent, dict):
            parent[f"unknown{rng.randint(0, 9)}"] = odd(rng)
        else:
            parent[target[-1]] = odd(rng)
        if not isinstance(body, dict) or not body:
            break
    return body


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_mutated_bodies_are_answered_without_a_server_error(client, simulator, example: Path):
    kind, op = example.parent.name, example.stem
    body = json.loads(example.read_text())
    body["organizationId"] = client.organization_id
    if "timestampMs" in body:
        body["timestampMs"] = str(int(time.time() * 1000))
    rng = random.Random(f"{kind}/{op}")
    for _ in range(MUTATIONS_PER_BODY):
        raw = json.dumps(mutate(body, rng)).encode()
        response = client.post(f"/public/v1/{kind}/{op}", raw)
        assert response.status < 500 or response.body["code"] == 12, (raw, response.body)
        assert set(response.body) >= ({"code", "message", "details"} if response.status != 200 else set())
    assert simulator.simulator.crashes == []


@pytest.mark.parametrize("header", ["X-Stamp", "X-Stamp-WebAuthn"])
def test_garbage_stamps_are_answered_without_a_server_error(unstamped, header):
    rng = random.Random(header)
    raw = json.dumps({"organizationId": unstamped.organization_id}).encode()
    for _ in range(40):
        value = "".join(rng.choice('{}[]":,abcXYZ019-_=+/ ') for _ in range(rng.randint(0, 120)))
        response = unstamped.post("/public/v1/query/whoami", raw, {header: value})
        assert response.status in (400, 401, 404), (value, response.body)
