"""The fidelity ledger (docs/ledger/*.yaml → docs/fidelity-ledger.md, tools/fidelity_ledger.py) stays in step
with itself and with the tests it names: `python tools/fidelity_ledger.py` rewrites the page."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fidelity_ledger", ROOT / "tools" / "fidelity_ledger.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LEDGER = tool()
ENTRY = {
    "id": "an-entry",
    "behaviour": "Something the service does.",
    "source": "https://docs.turnkey.com/",
    "service": "Does it.",
    "simulator": "Does it too.",
    "status": "implemented",
    "reason": "",
    "tests": ["tests/docs/test_fidelity_ledger.py::test_every_entry_is_complete_and_its_tests_exist"],
}


def problems_of(tmp_path: Path, *entries: dict[str, object]) -> list[str]:
    (tmp_path / "topic.yaml").write_text(yaml.safe_dump(list(entries)))
    found: list[str] = LEDGER.problems(LEDGER.load(tmp_path))
    return found


def test_every_entry_is_complete_and_its_tests_exist() -> None:
    entries = LEDGER.load()
    assert {topic for topic, _ in entries} >= {"rate-limits", "readme-fidelity-notes"}
    assert LEDGER.problems(entries) == []


def test_the_generated_page_is_current() -> None:
    page = ROOT / "docs" / "fidelity-ledger.md"
    assert page.read_text() == LEDGER.render(LEDGER.load()), (
        "docs/fidelity-ledger.md is stale: run python tools/fidelity_ledger.py"
    )
    assert "## Implemented documented behaviours" in page.read_text()
    assert "## Deliberate differences" in page.read_text()


def test_the_fidelity_notes_link_the_ledger_and_its_notes_are_differences() -> None:
    notes = ROOT.joinpath("docs", "reference", "fidelity-notes.md").read_text().split("\n## ", 1)[0]
    assert "(../fidelity-ledger.md)" in notes
    seeded = yaml.safe_load((ROOT / "docs" / "ledger" / "readme-fidelity-notes.yaml").read_text())
    assert seeded and {e["status"] for e in seeded} == {"difference"}


def test_a_complete_entry_passes(tmp_path: Path) -> None:
    assert problems_of(tmp_path, ENTRY) == []
    assert problems_of(tmp_path, {k: v for k, v in ENTRY.items() if k != "reason"}) == []  # optional when implemented


@pytest.mark.parametrize("key", ["id", "behaviour", "source", "service", "simulator", "status", "tests"])
def test_a_missing_key_is_reported(tmp_path: Path, key: str) -> None:
    found = problems_of(tmp_path, {k: v for k, v in ENTRY.items() if k != key})
    assert len(found) == 1 and f"missing {key}" in found[0]


def test_a_difference_needs_its_reason_and_only_a_difference_may_name_no_test(tmp_path: Path) -> None:
    difference = {**ENTRY, "status": "difference", "tests": []}
    assert problems_of(tmp_path, {**difference, "reason": "not public"}) == []
    assert problems_of(tmp_path, {k: v for k, v in difference.items() if k != "reason"}) == [
        "topic: an-entry: missing reason"
    ]
    assert problems_of(tmp_path, {**ENTRY, "tests": []}) == [
        "topic: an-entry: an implemented behaviour needs a test that shows it"
    ]


@pytest.mark.parametrize(
    "node",
    [
        "tests/docs/test_fidelity_ledger.py::test_no_such_test",
        "tests/test_no_such_file.py::test_x",
        "tests/docs/test_fidelity_ledger.py",
        "tests/docs/test_fidelity_ledger.py::ENTRY",
        "tests/docs/test_fidelity_ledger.py::Nope::test_x",
    ],
)
def test_a_test_that_does_not_exist_is_reported(tmp_path: Path, node: str) -> None:
    assert problems_of(tmp_path, {**ENTRY, "tests": [node]}) == [f"topic: an-entry: no test {node}"]


def test_parametrized_ids_and_class_methods_are_found(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        "class TestA:\n    def test_b(self):\n        pass\n\n\ndef test_c(): ...\n"
    )
    assert LEDGER.test_exists("tests/test_x.py::TestA::test_b", tmp_path)
    assert LEDGER.test_exists("tests/test_x.py::test_c[one-two]", tmp_path)
    assert not LEDGER.test_exists("tests/test_x.py::test_b", tmp_path)


def test_bad_values_are_reported(tmp_path: Path) -> None:
    found = problems_of(
        tmp_path, {**ENTRY, "id": "Not Kebab", "status": "done", "behaviour": " ", "extra": 1}, {**ENTRY}, {**ENTRY}
    )
    assert (
        "topic: Not Kebab: unknown keys extra (the keys are id, behaviour, source, service, simulator, status, reason, tests)"
        in found
    )
    assert "topic: Not Kebab: id 'Not Kebab' is not kebab-case" in found
    assert "topic: Not Kebab: behaviour must be non-empty text" in found
    assert "topic: Not Kebab: status must be one of implemented, difference, got 'done'" in found
    assert "topic: an-entry: id used twice" in found


def test_check_mode_fails_on_a_stale_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LEDGER, "OUTPUT", tmp_path / "fidelity-ledger.md")
    assert LEDGER.main(["--check"]) == 1
    assert LEDGER.main([]) == 0
    assert LEDGER.main(["--check"]) == 0
    (tmp_path / "fidelity-ledger.md").write_text("old")
    assert LEDGER.main(["--check"]) == 1
