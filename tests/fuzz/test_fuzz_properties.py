"""Property-based fuzzing of every implemented operation: no 5xx, every error in the one shape.

For each operation, hypothesis (seeded: ``derandomize``) draws bodies from its request schema
(hypothesis-jsonschema, one activity type's parameters at a time, in the envelope a client would
send) and mutates its example body; each is stamped with the default key and posted in process.
The whole file runs in a few seconds: MAX_EXAMPLES bounds every operation.
"""

from __future__ import annotations

import json
import os
import time
from functools import cache
from typing import Any

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from test_fuzz_hostile import HOSTILE

from simulator.operations import catalogue
from simulator.operations.catalogue import Kind, Status

SCHEMAS, EXAMPLES = ROOT / "schemas", ROOT / "fixtures" / "requests"
MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "3"))  # more for a longer local campaign
SETTINGS = settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,  # the same bodies on every run: a failure reproduces
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),  # large schemas are slow to draw from; MAX_EXAMPLES bounds the cost
)
OPERATIONS = [
    f"{kind.value}/{op.name}"
    for kind in (Kind.SUBMIT, Kind.QUERY)
    for op in catalogue.of_kind(kind)
    if op.status is not Status.ABSENT
]
# operation -> what the strict response check finds wrong today (see tests/http/test_catalogue.py)
CONTRACT_GAPS: dict[str, str] = {}
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | st.sampled_from(HOSTILE),  # not-finite and oversized numbers, zero and out-of-order scalars, ...
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def load(path: Any) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def bodies(key: str) -> st.SearchStrategy[Any]:
    """Schema-valid bodies: for an activity, one accepted type with parameters drawn from its branch."""
    schema = load(SCHEMAS / f"{key}.json")
    if key.startswith("query/"):
        return from_schema(schema)
    branches = [
        st.fixed_dictionaries(
            {"type": st.just(b["if"]["properties"]["type"]["const"]), "parameters": from_schema(param_schema(b))}
        )
        for b in schema["allOf"]
    ]
    return st.one_of(branches)


def param_schema(branch: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": "http://json-schema.org/draft-07/schema#", **branch["then"]["properties"]["parameters"]}


def paths_in(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a member or element of a JSON value (the root excluded)."""
    found = [prefix] if prefix else []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found += paths_in(child, (*prefix, key))
    return found


@st.composite
def mutated(draw: st.DrawFn, body: dict[str, Any]) -> dict[str, Any]:
    """The example with one member replaced, removed, joined by an unknown one, or given a sibling's value."""
    body = json.loads(json.dumps(body))
    target = draw(st.sampled_from(paths_in(body)))
    parent = body
    for part in target[:-1]:
        parent = parent[part]
    siblings = [k for k in parent if k != target[-1]] if isinstance(parent, dict) else []
    actions = ["replace", "remove", "add"] + (["copy"] if siblings else []) if isinstance(parent, dict) else ["replace"]
    action = draw(st.sampled_from(actions))
    if action == "copy":  # a sibling's value in this member: equal old and new derivations, equal ids, ...
        parent[target[-1]] = json.loads(json.dumps(parent[draw(st.sampled_from(siblings))]))
    elif action == "remove":
        del parent[target[-1]]
    elif action == "add":
        parent[draw(st.text(min_size=1, max_size=8))] = draw(JSON_VALUES)
    else:
        parent[target[-1]] = draw(JSON_VALUES)
    return body


def stamped_as_the_client(key: str, body: dict[str, Any], org_id: str) -> bytes:
    """The body as a client sends it: its own organization and, for an activity, a current timestampMs."""
    body = {**body, "organizationId": org_id}
    if key.startswith("submit/"):
        body["timestampMs"] = str(int(time.time() * 1000))
    return json.dumps(body).encode()


def check_answer(client: Any, key: str, raw: bytes) -> None:
    response = client.post(f"/public/v1/{key}", raw)
    assert response.status < 500, (key, raw[:500], response.body)
    if response.status != 200:
        body = response.body
        assert set(body) == {"code", "message", "details", "turnkeyErrorCode"}, body
        assert isinstance(body["message"], str) and body["message"], body
        assert body["details"][0]["@type"] == "type.googleapis.com/errors.v1.TurnkeyErrorDetail", body


def known_gap(key: str) -> Any:
    gap = CONTRACT_GAPS.get(key)
    return pytest.param(key, marks=pytest.mark.xfail(reason=gap, strict=False)) if gap else key


@pytest.mark.parametrize("key", [known_gap(k) for k in OPERATIONS])
def test_bodies_from_the_schema_get_no_server_error(simulator_app_client: Any, simulator: Any, key: str) -> None:
    @SETTINGS
    @given(body=bodies(key))
    def run(body: dict[str, Any]) -> None:
        check_answer(simulator_app_client, key, stamped_as_the_client(key, body, simulator_app_client.organization_id))

    run()


@pytest.mark.parametrize("key", [known_gap(k) for k in OPERATIONS])
def test_mutated_examples_get_no_server_error(simulator_app_client: Any, simulator: Any, key: str) -> None:
    if not (EXAMPLES / f"{key}.json").exists():
        pytest.skip("no example body yet (tests/http/test_catalogue.py asks for one)")
    example = load(EXAMPLES / f"{key}.json")

    @SETTINGS
    @given(body=mutated(example))
    def run(body: dict[str, Any]) -> None:
        check_answer(simulator_app_client, key, stamped_as_the_client(key, body, simulator_app_client.organization_id))

    run()
