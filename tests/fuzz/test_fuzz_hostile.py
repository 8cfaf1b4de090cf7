"""Hostile values in every member of every example body get no server error (issue 34).

Where tests/fuzz/test_fuzz.py draws odd values at random, this puts each member of each example through
the values that reached a 500 before, or could: numbers that are not finite or do not fit (as JSON
and as strings), scalars that are zero or past the curve order, points that are not on the curve,
wrong types; and it copies one member over its sibling (equal old and new derivations, equal
ids); the auth proxy's endpoints get the same values. Seeded; HOSTILE_MUTATIONS (default 24 per
operation) sets a longer local campaign.
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

EXAMPLES = sorted((ROOT / "fixtures" / "requests").glob("*/*.json"))
ORDER = "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"  # secp256k1's n
HOSTILE: list[Any] = [
    "NaN",
    "-NaN",
    "sNaN",
    "Infinity",
    "-Infinity",
    "inf",
    "1e999999",
    "-1e999999",
    "1e-999999",
    "0x",
    "0xzz",
    "-0",
    "-1",
    "18446744073709551616",
    "9" * 5000,
    "1_000",
    " 12 ",
    "١٢",  # Arabic-Indic digits: str.isdigit() and int() accept them
    "²",  # str.isdigit() accepts it, int() refuses it
    "12\n",  # a schema pattern's $ matches before a final newline
    10**400,
    -(2**63) - 1,
    2**64,
    1e308,
    -0.0,
    "00" * 32,  # the zero scalar
    ORDER,
    ORDER.lower(),
    "ff" * 32,
    "02" + "00" * 32,  # not a point
    "04" + "00" * 64,
    "00" * 33,
    "0" * 63,
    "m/44'/60'/0'/0/99999999999999999999",
    "m/NaN",
    True,
    None,
    [],
    {},
    1.5,
]
MUTATIONS = int(os.environ.get("HOSTILE_MUTATIONS", "24"))


def leaves(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a member or element."""
    found = [prefix] if prefix else []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found += leaves(child, (*prefix, key))
    return found


def at(body: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        body = body[part]
    return body


def mutate(body: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    body = json.loads(json.dumps(body))
    targets = [p for p in leaves(body) if p[0] not in ("organizationId", "timestampMs", "type")]
    if not targets:
        return body
    target = rng.choice(targets)
    parent = at(body, target[:-1])
    siblings = [k for k in parent if k != target[-1]] if isinstance(parent, dict) else []
    if siblings and rng.random() < 0.2:
        parent[target[-1]] = json.loads(json.dumps(parent[rng.choice(siblings)]))  # e.g. new = old derivation
    else:
        parent[target[-1]] = rng.choice(HOSTILE)
    return body


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_hostile_values_get_no_server_error(client, simulator, example: Path):
    assert_no_server_error(client, simulator, example)


def assert_no_server_error(client: Any, simulator: Any, example: Path) -> None:
    kind, op = example.parent.name, example.stem
    body = json.loads(example.read_text())
    body["organizationId"] = client.organization_id
    rng = random.Random(f"hostile {kind}/{op}")
    for _ in range(MUTATIONS):
        if "timestampMs" in body:
            body["timestampMs"] = str(int(time.time() * 1000))
        raw = json.dumps(mutate(body, rng)).encode()
        response = client.post(f"/public/v1/{kind}/{op}", raw)
        assert response.status < 500 or response.body["code"] == 12, (raw[:600], response.body)
        if response.status != 200:
            assert set(response.body) == {"code", "message", "details", "turnkeyErrorCode"}, response.body
    assert simulator.simulator.crashes == []


PROXY_SCHEMAS = sorted((ROOT / "schemas" / "proxy").glob("*.json"))


def proxy_body(schema: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Some of the schema's top-level members, each with a hostile value."""
    names = sorted(schema.get("properties", {}))
    return {name: rng.choice(HOSTILE) for name in names if rng.random() < 0.6}


@pytest.mark.simulator_scenario("../scenarios/auth_proxy.yaml")
@pytest.mark.parametrize("schema", PROXY_SCHEMAS, ids=lambda p: p.stem)
def test_hostile_values_get_no_server_error_from_the_auth_proxy(simulator, schema: Path):
    assert_no_server_error_from_the_proxy(simulator, schema)


def assert_no_server_error_from_the_proxy(simulator: Any, schema: Path) -> None:
    from simulator.testing import SimulatorClient

    proxy = SimulatorClient(simulator.proxy_url, None, "")
    headers = {"X-Auth-Proxy-Config-Id": "proxy-config-1", "Origin": "http://localhost:3000"}
    document = json.loads(schema.read_text())
    rng = random.Random(f"hostile proxy {schema.stem}")
    for _ in range(MUTATIONS):
        raw = json.dumps(proxy_body(document, rng)).encode()
        response = proxy.post(f"/v1/{schema.stem}", raw, headers)
        assert response.status < 500 or response.body["code"] == 12, (raw[:600], response.body)
    assert simulator.simulator.crashes == []


# the same inputs through granian (serve --server granian): every eighth example and every third proxy endpoint
@pytest.fixture(scope="module")
def granian_server() -> Any:
    pytest.importorskip("granian", reason="granian is not installed: pip install 'wallet-simulator[granian]'")
    from simulator import Config, SimulatorServer

    scenarios = (ROOT / "tests" / "scenarios" / "auth_proxy.yaml",)  # the default organization, and the proxy on
    with SimulatorServer(config=Config(seed=1, server="granian", scenarios=scenarios)) as server:
        yield server


@pytest.mark.parametrize("example", EXAMPLES[::8], ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_hostile_values_get_no_server_error_over_granian(granian_server, example: Path):
    from simulator.testing import ApiKeyStamper, SimulatorClient

    creds = granian_server.default_credentials()
    client = SimulatorClient(granian_server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
    assert_no_server_error(client, granian_server, example)


@pytest.mark.parametrize("schema", PROXY_SCHEMAS[::3], ids=lambda p: p.stem)
def test_hostile_values_get_no_server_error_from_the_auth_proxy_over_granian(granian_server, schema: Path):
    assert_no_server_error_from_the_proxy(granian_server, schema)
