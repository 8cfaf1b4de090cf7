#!/usr/bin/env python3
"""Run Turnkey's documented policy examples through the simulator's engine; write the conformance page.

python tools/policy_conformance.py          # rewrite docs/reference/policy-conformance.md
python tools/policy_conformance.py --check  # exit 1 when the page is stale or an example's outcome differs

The examples are tests/policy/docs_examples.yaml: every policy on Turnkey's policy pages (language,
quickstart, time-based policies, smart contract interfaces, the examples pages, delegated access, and
the smart-contract-management solution), each with the docs' URL, the policy as printed there, and
the activities the text says it allows or denies. ``fill`` replaces a placeholder the docs left
unquoted (``o.address == <BITCOIN_ADDRESS>``), which no parser accepts as printed. Each case is
evaluated by the engine itself (simulator.consensus.engine.policy_verdict) on the activity's policy
view as a request builds it; ``created`` is what create_policy does with the policy (accepted,
accepted with warnings, or refused), through the handler's own check.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tests" / "policy" / "docs_examples.yaml"
OUTPUT = ROOT / "docs" / "reference" / "policy-conformance.md"
NOT_APPLICABLE = "NOT_APPLICABLE"  # the condition does not match: the policy takes no part


@dataclass
class Result:
    example: dict[str, Any]
    created: str
    warnings: list[str]
    outcomes: list[tuple[dict[str, Any], str, str | None]] = field(default_factory=list)  # case, outcome, why

    @property
    def passed(self) -> bool:
        return self.created == self.example.get("created", "accepted") and all(
            outcome == case["expect"] for case, outcome, _ in self.outcomes
        )


def load() -> list[dict[str, Any]]:
    data = yaml.safe_load(EXAMPLES.read_text())
    return list(data)


def policy_of(example: dict[str, Any]) -> dict[str, str]:
    """The policy's fields with the example's ``fill`` applied."""
    fields = {}
    for key in ("effect", "condition", "consensus", "time"):
        text = example["policy"].get(key)
        if text is None:
            continue
        for placeholder, value in (example.get("fill") or {}).items():
            text = text.replace(placeholder, value)
        fields[key] = text
    return fields


@lru_cache(maxsize=1)
def operations_by_type() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted((ROOT / "schemas" / "submit").glob("*.json")):
        for activity_type in json.loads(path.read_text()).get("x-activity-types", {}):
            found.setdefault(activity_type, path.stem)
    return found


def context_of(case: dict[str, Any]) -> dict[str, Any]:
    """The context the engine evaluates a policy in for this case, built as a request builds it."""
    from simulator.consensus.engine import approver
    from simulator.handler_support.activity_view import policy_view
    from simulator.operations import catalogue
    from simulator.policy.time_window import timestamp
    from simulator.state.records import User

    activity_type = case["activity"]
    spec = catalogue.get("submit", operations_by_type()[activity_type])
    assert spec is not None, activity_type
    approvers = []
    for who in case.get("approvers", []):
        who = {"id": who} if isinstance(who, str) else who
        user = User(who["id"], who.get("name", "user"), 0)
        user.tag_ids = list(who.get("tags", []))
        approvers.append(approver(user))
    context: dict[str, Any] = {
        **(case.get("keywords") or {}),
        "activity": policy_view(spec, activity_type, case.get("params") or {}),
        "approvers": approvers,
        "credentials": case.get("credentials", []),
    }
    if case.get("now"):
        context["time"] = {"now": timestamp(case["now"])}
    return context


def created_as(policy: dict[str, str]) -> tuple[str, list[str]]:
    """What create_policy does with the policy: accepted, warned (accepted, with log warnings) or refused."""
    from simulator.errors import ApiError
    from simulator.model.policy_records import check_expressions
    from simulator.policy.lint import warnings_of

    try:
        check_expressions(policy)
    except ApiError as exc:
        return "refused", [str(exc)]
    warnings = warnings_of(policy)
    return ("warned" if warnings else "accepted"), warnings


def run(example: dict[str, Any]) -> Result:
    from simulator.consensus.engine import policy_verdict
    from simulator.state.records import Policy

    fields = policy_of(example)
    created, warnings = created_as(fields)
    policy = Policy(
        "policy",
        example["title"],
        fields.get("effect", "EFFECT_ALLOW"),
        0,
        condition=fields.get("condition", ""),
        consensus=fields.get("consensus", ""),
        time=fields.get("time", ""),
    )
    result = Result(example, created, warnings)
    for case in example.get("cases", []):
        outcome, why = policy_verdict(policy, context_of(case))
        result.outcomes.append((case, outcome or NOT_APPLICABLE, why))
    return result


def run_all() -> list[Result]:
    return [run(example) for example in load()]


def render(results: list[Result]) -> str:
    cases = sum(len(r.outcomes) for r in results)
    passed = sum(r.passed for r in results)
    pages = sorted({r.example["url"].split("#")[0] for r in results})
    lines = [
        "# Policy language conformance",
        "",
        "<!-- generated by tools/policy_conformance.py from tests/policy/docs_examples.yaml: edit that, then run the tool -->",
        "",
        f"Every policy example on Turnkey's policy documentation ({len(pages)} pages), run through the",
        "simulator's policy engine with the activities the docs' text says it allows or denies.",
        "`tests/policy/test_docs_conformance.py` runs the same examples and fails when an outcome changes;",
        "the outcome names are the service's (`NOT_APPLICABLE`: the condition does not match, so the policy",
        "takes no part). *created* is what `create_policy` does with the policy as printed: `accepted`,",
        "`warned` (accepted, with a warning in the simulator's log and in `explain`: the example can never",
        "match as written, see the [fidelity ledger](../fidelity-ledger.md)) or `refused`.",
        "",
        f"**{len(results)} examples, {cases} activities; {passed} of {len(results)} as expected.**",
        "",
        "| # | example | policy | created | activity (the docs' words) | outcome |",
        "|---|---|---|---|---|---|",
    ]
    for number, result in enumerate(results, 1):
        example = result.example
        fields = policy_of(example)
        policy = "<br>".join(f"{k}: `{code(v)}`" for k, v in fields.items() if k != "effect")
        policy = f"{fields.get('effect', '')}<br>{policy}" if fields.get("effect") else policy
        created = result.created + "".join(f"<br>*{cell(w)}*" for w in result.warnings)
        title = f"[{cell(example['title'])}]({example['url']})"
        if not result.outcomes:
            lines.append(f"| {number} | {title} | {policy} | {created} | (a fragment: no activity) | |")
        for index, (case, outcome, why) in enumerate(result.outcomes):
            shown = outcome + (f"<br>*{cell(why)}*" if why else "")
            if outcome != case["expect"]:
                shown += f" (expected {case['expect']})"
            head = f"| {number} | {title} | {policy} | {created} " if index == 0 else "| | | | "
            lines.append(f"{head}| {cell(case['says'])} | {shown} |")
    lines.append("")
    return "\n".join(lines)


def code(text: str) -> str:
    """Text for a code span in a table cell, on one line (the table extension does not split a code span
    at its pipes, and a code span shows < > as they are)."""
    return " ".join(str(text).split())


def cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def main(argv: list[str]) -> int:
    results = run_all()
    text = render(results)
    wrong = [r.example["id"] for r in results if not r.passed]
    if "--check" in argv:
        if wrong:
            print("examples whose outcome differs: " + ", ".join(wrong), file=sys.stderr)
            return 1
        if not OUTPUT.is_file() or OUTPUT.read_text() != text:
            print(
                "docs/reference/policy-conformance.md is stale: run python tools/policy_conformance.py", file=sys.stderr
            )
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT}: {len(results)} examples, {len(wrong)} differing")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
