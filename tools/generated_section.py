"""One way for the tools under tools/ to keep a generated part of a docs page: the text between
a start and an end marker is rewritten (``python tools/NAME.py``) or compared (``--check``, what
the tests run), and the rest of the page stays as a person wrote it."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def between(text: str, start: str, end: str, inner: str) -> str:
    """``text`` with what stands between ``start`` and ``end`` replaced by ``inner``."""
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    return f"{head}{start}{inner}{end}{tail}"


def write_or_check(page: Path, start: str, end: str, refreshed: Callable[[str], str], argv: list[str]) -> int:
    """Rewrite ``page`` with ``refreshed``; with ``--check`` in ``argv``, exit 1 where it would change."""
    text = page.read_text()
    if start not in text or end not in text:
        print(f"{page} has no {start} ... {end} markers", file=sys.stderr)
        return 1
    new = refreshed(text)
    if "--check" in argv:
        return 0 if new == text else 1
    page.write_text(new)
    return 0
