"""tests/ mirrors the package: a test file sits in the folder of the part of simulator/ it tests.

tests/<folder>/test_*.py for simulator/<folder>/ (tests/datadir for simulator/datadir, ...), or, for
a top-level module or behaviour that crosses the package, in one of the folders of CROSS_CUTTING
(ARCHITECTURE.md, "Where the tests are", says the same). Top-level tests/ holds the shared helpers
(conftest.py, support.py, ...) and this file only. Basenames stay unique: the folders have no
__init__.py, so pytest imports each test file by its basename, and two of the same name collide.
What tests of several folders share is a helper module at the top (support.py, session_helpers.py,
...): a test file imports another test file only from its own folder, whose path pytest adds.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from conftest import ROOT

TESTS = ROOT / "tests"

# folder -> what its tests are about (the package's own folders need no entry: they mirror simulator/; tests/cli,
# tests/control and tests/http are simulator/cli/, control/ and http/'s, and hold the tests across those surfaces)
CROSS_CUTTING = {
    "python_api": "what a Python user imports: the pytest plugin, simulator.testing, old import paths",
    "clients": "the official clients (JS and Python), unmodified, against the simulator",
    "js_helper": "the JS test helper of js/: as a package, installed, its types and trust plugin",
    "browser": "web apps and web pages in headless Chromium (the frames and inspector have their own)",
    "docs": "README, the docs site, tutorials and the fidelity ledger: every snippet runs",
    "project": "promises about the repository as a whole: layers, packaging, what newcomers tripped on",
    "fuzz": "generated hostile input against every operation",
    "compat": "what users wrote against earlier releases: the corpus in tests/compat/",
}

# modules every test imports from the top (conftest puts tests/ on sys.path), and this test
HELPERS_ONLY_AT_TOP = {"test_layout.py"}


def package_folders() -> set[str]:
    return {p.parent.name for p in (ROOT / "simulator").glob("*/__init__.py")}


def files_of_tests() -> list[Path]:
    found = [*TESTS.rglob("test_*.py"), *TESTS.rglob("*_test.py")]
    data = ("compat", "releases")  # earlier releases' published code, kept as data (tests/conftest.py)
    return sorted(
        p for p in found if "node_modules" not in p.relative_to(TESTS).parts and p.relative_to(TESTS).parts[:2] != data
    )


def where(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_every_test_file_sits_in_the_folder_of_what_it_tests():
    allowed = package_folders() | set(CROSS_CUTTING)
    misplaced = []
    for path in files_of_tests():
        parts = path.relative_to(TESTS).parts
        if len(parts) == 1 and parts[0] in HELPERS_ONLY_AT_TOP:
            continue
        if len(parts) != 2 or parts[0] not in allowed:
            misplaced.append(where(path))
    assert not misplaced, (
        f"test files outside their place: {misplaced}. Move each (git mv) to tests/<folder>/ named for "
        f"the simulator/<folder>/ it tests ({', '.join(sorted(package_folders()))}), or, for a top-level "
        f"module or cross-cutting behaviour, to one of {sorted(CROSS_CUTTING)} (tests/test_layout.py "
        "says what each holds); a new folder of that kind goes into CROSS_CUTTING and ARCHITECTURE.md."
    )


def test_test_basenames_are_unique():
    counts = Counter(p.name for p in files_of_tests())
    twice = sorted(where(p) for p in files_of_tests() if counts[p.name] > 1)
    assert not twice, f"the same basename in two folders collides when pytest imports them: rename one of {twice}"


def test_the_cross_cutting_folders_are_documented_and_none_shadows_the_package():
    assert not set(CROSS_CUTTING) & package_folders()
    architecture = (ROOT / "ARCHITECTURE.md").read_text()
    assert "## Where the tests are" in architecture
    section = architecture.split("## Where the tests are", 1)[1].split("\n## ", 1)[0]
    missing = [folder for folder in CROSS_CUTTING if f"tests/{folder}/" not in section]
    assert not missing, f"ARCHITECTURE.md's 'Where the tests are' does not name {missing}"


def test_every_folder_of_tests_is_in_use():
    # a cross-cutting folder without tests is a stale entry here
    used = {p.relative_to(TESTS).parts[0] for p in files_of_tests() if len(p.relative_to(TESTS).parts) == 2}
    assert set(CROSS_CUTTING) <= used, f"no test files in {sorted(set(CROSS_CUTTING) - used)}"


def test_a_test_file_imports_test_files_only_from_its_own_folder():
    crossing = []
    for path in files_of_tests():
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                if name.startswith("test_") and not (path.parent / f"{name}.py").is_file():
                    crossing.append(f"{where(path)} imports {name}")
    assert not crossing, (
        f"{crossing}: a test module is found only when its folder is on the path; move what is shared "
        "into a helper module at the top of tests/ (as tests/session_helpers.py)"
    )
