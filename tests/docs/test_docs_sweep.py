"""The documentation sweep (docs/conformance/*.yaml → docs/reference/docs-conformance.md,
tools/docs_conformance.py) stays in step with itself, the fidelity ledger and the tests it names:
``python tools/docs_conformance.py`` rewrites the page."""

from __future__ import annotations

from pathlib import Path

import docs_conformance as sweep
import yaml
from conftest import ROOT

STATEMENT = {
    "page": "features/authentication/email.mdx",
    "heading": "Opting out",
    "url": "https://docs.turnkey.com/features/authentication/email#opting-out",
    "statement": "A statement a test can check.",
    "verdict": "holds",
    "tests": ["tests/docs/test_docs_sweep.py::test_every_statement_is_complete_and_its_evidence_exists"],
}


def problems_of(tmp_path: Path, *statements: dict[str, object]) -> list[str]:
    (tmp_path / "area.yaml").write_text(yaml.safe_dump(list(statements)))
    return sweep.problems(sweep.load(tmp_path))


def test_every_statement_is_complete_and_its_evidence_exists() -> None:
    statements = sweep.load()
    assert statements, "docs/conformance/ holds no statement"
    assert sweep.problems(statements) == []


def test_the_generated_page_is_current() -> None:
    page = ROOT / "docs" / "reference" / "docs-conformance.md"
    assert page.read_text() == sweep.render(sweep.load()), (
        "docs/reference/docs-conformance.md is stale: run python tools/docs_conformance.py"
    )


def test_a_statement_without_evidence_is_named(tmp_path: Path) -> None:
    assert problems_of(tmp_path, STATEMENT) == []
    no_test = {**STATEMENT, "tests": ["tests/docs/test_docs_sweep.py::test_no_such_test"]}
    assert any("no test tests/docs/test_docs_sweep.py::test_no_such_test" in p for p in problems_of(tmp_path, no_test))
    unledgered = {**STATEMENT, "verdict": "ledgered", "ledger": "no-such-entry"}
    assert any("fidelity-ledger entry" in p for p in problems_of(tmp_path, unledgered))
    elsewhere = {**STATEMENT, "url": "https://example.com/docs"}
    assert any("url must be a page of https://docs.turnkey.com/" in p for p in problems_of(tmp_path, elsewhere))
    assert any("verdict must be one of" in p for p in problems_of(tmp_path, {**STATEMENT, "verdict": "maybe"}))
