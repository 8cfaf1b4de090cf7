#!/usr/bin/env python3
"""Write docs/fidelity-ledger.md from the ledger entries in docs/ledger/*.yaml.

python tools/fidelity_ledger.py          # rewrite docs/fidelity-ledger.md
python tools/fidelity_ledger.py --check  # exit 1 when it is stale or an entry is wrong

Each file is a YAML list of entries: ``id`` (kebab-case, unique), ``behaviour`` (one sentence), ``source``
(public only: a Turnkey docs URL, an SDK file with its package and version, Turnkey's public swagger
in tkhq/sdk, or "observed on the real service" for what only captured responses show; the test
tests/project/test_stands_alone.py refuses private paths), ``service`` (what the real service does),
``simulator`` (what the simulator does), ``status`` (``implemented`` or ``difference``), ``reason`` (why;
required for a difference, optional for an implemented behaviour), ``tests`` (pytest node ids ``tests/<folder>/test_x.py::test_y`` that show it; only a difference
that no test can show may list none). ``problems`` finds what is wrong without running pytest: a named
test must be a function (or a method of a ``Test`` class) defined in its file.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
LEDGER = ROOT / "docs" / "ledger"
OUTPUT = ROOT / "docs" / "fidelity-ledger.md"
KEYS = ("id", "behaviour", "source", "service", "simulator", "status", "reason", "tests")
STATUSES = ("implemented", "difference")
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def load(directory: Path | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Every entry as (topic, entry), files in name order, entries in file order."""
    found: list[tuple[str, dict[str, Any]]] = []
    for path in sorted((directory or LEDGER).glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text()) or []
        except yaml.YAMLError as exc:
            raise ValueError(f"docs/ledger/{path.name} is not valid YAML: {exc}") from None
        entries = data if isinstance(data, list) else [data]
        found.extend((path.stem, entry) for entry in entries)
    return found


def problems(entries: list[tuple[str, dict[str, Any]]], root: Path = ROOT) -> list[str]:
    """What is wrong with the entries: missing or unknown keys, bad values, tests that do not exist."""
    found: list[str] = []
    seen: set[str] = set()
    for topic, entry in entries:
        if not isinstance(entry, dict):
            found.append(f"{topic}: an entry is not a mapping: {entry!r}")
            continue
        name = f"{topic}: {entry.get('id', '<no id>')}"
        # `reason` is the why of a difference: an implemented behaviour may leave it out
        missing = [k for k in KEYS if k not in entry and not (k == "reason" and entry.get("status") == "implemented")]
        unknown = sorted(set(entry) - set(KEYS))
        if missing:
            found.append(f"{name}: missing {', '.join(missing)}")
        if unknown:
            found.append(f"{name}: unknown keys {', '.join(unknown)} (the keys are {', '.join(KEYS)})")
        if missing:
            continue
        found.extend(f"{name}: {p}" for p in entry_problems(entry, seen, root))
    return found


def entry_problems(entry: dict[str, Any], seen: set[str], root: Path) -> Iterable[str]:
    if not isinstance(entry["id"], str) or not KEBAB.match(entry["id"]):
        yield f"id {entry['id']!r} is not kebab-case"
    elif entry["id"] in seen:
        yield "id used twice"
    seen.add(str(entry["id"]))
    for key in ("behaviour", "source", "service", "simulator"):
        if not isinstance(entry[key], str) or not entry[key].strip():
            yield f"{key} must be non-empty text"
    if entry["status"] not in STATUSES:
        yield f"status must be one of {', '.join(STATUSES)}, got {entry['status']!r}"
    reason = entry.get("reason", "")
    if not isinstance(reason, str):
        yield "reason must be text"
    elif entry["status"] == "difference" and not reason.strip():
        yield "a difference needs its reason"
    tests = entry["tests"]
    if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
        yield "tests must be a list of pytest node ids"
        return
    if not tests and entry["status"] != "difference":
        yield "an implemented behaviour needs a test that shows it"
    for node in tests:
        if not test_exists(node, root):
            yield f"no test {node}"


def test_exists(node: str, root: Path = ROOT) -> bool:
    """Whether ``path::name`` or ``path::Class::name`` is defined in the file (a parametrized id's
    ``[...]`` is ignored); read with ast, not collected, so the check costs milliseconds."""
    path, _, rest = node.partition("::")
    names = rest.split("[", 1)[0].split("::") if rest else []
    file = root / path
    if not names or not path.endswith(".py") or not file.is_file():
        return False
    scope: list[ast.stmt] = ast.parse(file.read_text()).body
    for name in names[:-1]:
        classes = [n for n in scope if isinstance(n, ast.ClassDef) and n.name == name]
        if not classes:
            return False
        scope = classes[0].body
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    return any(isinstance(n, functions) and n.name == names[-1] and n.name.startswith("test") for n in scope)


# the document ---------------------------------------------------------------------------------------------
def render(entries: list[tuple[str, dict[str, Any]]]) -> str:
    implemented = [(t, e) for t, e in entries if e["status"] == "implemented"]
    differences = [(t, e) for t, e in entries if e["status"] == "difference"]
    lines = [
        "# Fidelity ledger",
        "",
        "<!-- generated by tools/fidelity_ledger.py from docs/ledger/*.yaml: edit those, then run the tool -->",
        "",
        "What the simulator does where Turnkey documents the service's behaviour, and where it deliberately does",
        "otherwise. Each row names its public source and the tests that show the simulator's side;",
        "tests/docs/test_fidelity_ledger.py keeps this page, the entries and the tests in step.",
        "",
        f"## Implemented documented behaviours ({len(implemented)})",
        "",
        "| topic | behaviour | source | what the service does | shown by |",
        "|---|---|---|---|---|",
        *(row(t, e["behaviour"], source(e["source"]), e["service"], tests(e["tests"])) for t, e in implemented),
        "",
        f"## Deliberate differences ({len(differences)})",
        "",
        "| topic | behaviour | source | what the service does | what the simulator does | why | shown by |",
        "|---|---|---|---|---|---|---|",
        *(
            row(t, e["behaviour"], source(e["source"]), e["service"], e["simulator"], e["reason"], tests(e["tests"]))
            for t, e in differences
        ),
        "",
    ]
    return "\n".join(lines)


def row(*cells: str) -> str:
    return "| " + " | ".join(cell(c) for c in cells) + " |"


def cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def source(text: str) -> str:
    url = re.match(r"^(https?://\S+)(.*)$", text.strip())
    return f"<{url.group(1)}>{url.group(2)}" if url else text


def tests(nodes: list[str]) -> str:
    return "<br>".join(f"`{n}`" for n in nodes) or "no test can show it"


def main(argv: list[str]) -> int:
    try:
        entries = load()
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    wrong = problems(entries)
    if wrong:
        print("docs/ledger has problems:\n" + "\n".join(wrong), file=sys.stderr)
        return 1
    text = render(entries)
    if "--check" in argv:
        if not OUTPUT.is_file() or OUTPUT.read_text() != text:
            print("docs/fidelity-ledger.md is stale: run python tools/fidelity_ledger.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT}: {len(entries)} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
