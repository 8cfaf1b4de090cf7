"""``explain`` answers camelCase keys throughout, as its documentation (docs/how-to/consensus-policies.md)
says; the snake_case keys earlier releases wrote for each policy evaluation stay as deprecated
aliases with the same values, so code that read them keeps working."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import requests
from conftest import ROOT

from simulator.consensus.explain import DEPRECATED_EVALUATION_KEYS
from simulator.testing import ApiKeyStamper

DAVE_KEY = "da4e000000000000000000000000000000000000000000000000000000000001"  # scenarios/policy_deny.yaml
CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$|^@type$")


def keys_outside_the_aliases(value: Any) -> set[str]:
    """Every key of the answer, nested ones too, but for the deprecated aliases of an evaluation."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in DEPRECATED_EVALUATION_KEYS or key == "created_ms":
                continue
            found.add(key)
            found |= keys_outside_the_aliases(item)
    elif isinstance(value, list):
        for item in value:
            found |= keys_outside_the_aliases(item)
    return found


@pytest.fixture
def denied(simulator, simulator_client) -> str:
    """An activity Dave's request made, denied by the policy "nobody deletes policies"."""
    dave = type(simulator_client)(simulator.url, ApiKeyStamper(DAVE_KEY), simulator_client.organization_id)
    answer = dave.submit("delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", {"policyIds": []})
    assert answer.status == 403
    return str(answer.body["details"][-1]["activityId"])


@pytest.mark.simulator_scenario("policy_deny")
def test_every_key_of_explain_over_http_is_camel_case(simulator, denied):
    why = requests.get(f"{simulator.url}/_simulator/activities/{denied}/explain", timeout=10).json()
    assert why["decidedBy"] == "denied by policy nobody deletes policies"
    assert {k for k in keys_outside_the_aliases(why) if not CAMEL.match(k)} == set()
    [evaluation] = why["policyEvaluations"]
    assert {"id", "activityId", "organizationId", "voteId", "policyEvaluations", "createdAt"} <= set(evaluation)
    assert evaluation["activityId"] == denied
    assert evaluation["policyEvaluations"][0]["outcome"] == "OUTCOME_DENY_EXPLICIT"


@pytest.mark.simulator_scenario("policy_deny")
def test_the_old_snake_case_keys_stay_as_aliases_with_the_same_values(simulator, denied):
    why = requests.get(f"{simulator.url}/_simulator/activities/{denied}/explain", timeout=10).json()
    [evaluation] = why["policyEvaluations"]
    for old, new in DEPRECATED_EVALUATION_KEYS.items():
        assert evaluation[old] == evaluation[new], old
    created = evaluation["createdAt"]
    assert evaluation["created_ms"] == int(created["seconds"]) * 1000 + int(created["nanos"]) // 1_000_000


@pytest.mark.simulator_scenario("policy_deny")
def test_python_explain_is_the_same_plain_json(simulator, denied):
    mine = simulator.simulator.explain(denied)
    over_http = requests.get(f"{simulator.url}/_simulator/activities/{denied}/explain", timeout=10).json()
    assert json.loads(json.dumps(mine)) == over_http  # plain JSON values, no records


def test_the_docs_name_each_deprecated_alias_and_its_replacement():
    page = (ROOT / "docs" / "how-to" / "consensus-policies.md").read_text()
    section = page.split("(`explain`)", 1)[1]
    assert "**Deprecated:**" in section
    for old, new in {**DEPRECATED_EVALUATION_KEYS, "created_ms": "createdAt"}.items():
        assert f"`{old}`" in section and f"`{new}`" in section, old
