"""The strict response check gives the same verdicts interpreted (jsonschema) and compiled (fastjsonschema)."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulator.operations import response_check as responses
from simulator.operations.response_check import ResponseSchemas

ROOT = Path(__file__).resolve().parents[2] / "schemas" / "responses"
GOOD = {"organizationId": "o", "organizationName": "n", "userId": "u", "username": "name"}
BROKEN = {"organizationId": 7, "userId": "u", "username": "name"}


def test_an_operation_is_checked_by_jsonschema_until_compiling_would_have_cost_as_much(monkeypatch) -> None:
    checks = ResponseSchemas(ROOT)
    interpreted = checks.violations("submit/create_wallet", BROKEN)
    assert "submit/create_wallet" not in checks._checks  # one check does not spend a 34 ms compile's budget
    monkeypatch.setattr(responses, "COMPILE_SECONDS_PER_BYTE", 0.0)
    assert checks.violations("submit/create_wallet", BROKEN) == interpreted  # spent: this one compiles
    assert "submit/create_wallet" in checks._checks
    assert (
        checks.violations("submit/create_wallet", BROKEN) == interpreted
    )  # the compiled check fails, jsonschema explains
    assert "$.activity" in {v["field"] for v in interpreted}
    assert checks.violations("query/whoami", GOOD) == [] and checks.violations("query/whoami", GOOD) == []
    assert {v["field"] for v in checks.violations("query/whoami", BROKEN)} == {"$.organizationId", "$.organizationName"}


@pytest.mark.parametrize("operation", ["query/get_activity", "submit/create_wallet"])
def test_large_schemas_are_not_compiled_for_a_few_checks(operation: str) -> None:
    checks = ResponseSchemas(ROOT)
    for _ in range(3):
        assert checks.violations(operation, {}) != []
    assert operation not in checks._checks
