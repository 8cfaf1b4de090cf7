#!/usr/bin/env python3
"""Refresh the operations table (docs/reference/operations.md; it was in the README until the docs
site) from the operation catalogue (simulator/operations/catalogue.py).

python tools/readme_operations.py          # rewrite the table between its markers
python tools/readme_operations.py --check  # exit 1 when the page is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

from generated_section import between, write_or_check

from simulator.operations.operation_coverage import markdown

PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "operations.md"
README = PAGE  # the old name of the page this tool writes
START, END = "<!-- operations:start -->", "<!-- operations:end -->"


def refreshed(text: str) -> str:
    return between(text, START, END, f"\n{markdown()}")


def main(argv: list[str]) -> int:
    return write_or_check(PAGE, START, END, refreshed, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
