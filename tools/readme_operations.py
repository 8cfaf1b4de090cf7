#!/usr/bin/env python3
"""Refresh the operations table (docs/reference/operations.md; it was in the README until the docs
site) from the operation catalogue (simulator/catalogue.py).

python tools/readme_operations.py          # rewrite the table between its markers
python tools/readme_operations.py --check  # exit 1 when the page is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

from simulator.operation_coverage import markdown

PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "operations.md"
README = PAGE  # the old name of the page this tool writes
START, END = "<!-- operations:start -->", "<!-- operations:end -->"


def refreshed(text: str) -> str:
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{markdown()}{END}{tail}"


def main(argv: list[str]) -> int:
    text = PAGE.read_text()
    if START not in text or END not in text:
        print(f"{PAGE} has no {START} ... {END} markers", file=sys.stderr)
        return 1
    new = refreshed(text)
    if "--check" in argv:
        return 0 if new == text else 1
    PAGE.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
