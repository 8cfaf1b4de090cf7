"""Turnkey's documented policy examples, each with the activities its page says it allows or denies.

The examples (tests/policy/docs_examples.yaml) quote every policy on the policy pages of
https://docs.turnkey.com/features/policies/ (language, quickstart, time-based policies, smart contract
interfaces, the examples pages, delegated access) and the smart-contract-management solution, with the
page's URL; each case is evaluated by the engine (policy_verdict over the activity's policy view),
and each policy goes through create_policy's own check. docs/reference/policy-conformance.md lists them
(tools/policy_conformance.py writes it; the last test fails while it is stale).
"""

from __future__ import annotations

from typing import Any

import policy_conformance as conformance
import pytest

EXAMPLES = conformance.load()


def test_every_documented_example_is_here() -> None:
    pages = {e["url"].split("#")[0] for e in EXAMPLES}
    assert len(EXAMPLES) >= 117 and all(e["cases"] for e in EXAMPLES)
    for page in ("language", "quickstart", "time-based-policies", "smart-contract-interfaces"):
        assert f"https://docs.turnkey.com/features/policies/{page}" in pages
    examples = ("access-control", "bitcoin", "ethereum", "signing-control", "solana", "spark", "tempo", "tron")
    for page in (*examples, "time-based-policies"):
        assert f"https://docs.turnkey.com/features/policies/examples/{page}" in pages
    for page in ("agentic-wallets", "backend", "frontend", "overview"):
        assert f"https://docs.turnkey.com/features/policies/delegated-access/{page}" in pages


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_the_documented_example_decides_as_its_page_says(example: dict[str, Any]) -> None:
    result = conformance.run(example)
    assert result.created == example.get("created", "accepted"), (example["url"], result.warnings)
    for case, outcome, why in result.outcomes:
        assert outcome == case["expect"], (example["url"], case["says"], why)


def test_the_conformance_page_is_current() -> None:
    text = conformance.render(conformance.run_all())
    assert conformance.OUTPUT.read_text() == text, "run python tools/policy_conformance.py"
