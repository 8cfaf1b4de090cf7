"""The diff's report: a table a person reads (one row per difference), or JSON for CI, and the draft ledger
entries of the differences the ledger does not record yet."""

from __future__ import annotations

import json
import os
from typing import Any

from simulator.parity.compare import Difference
from simulator.parity.ledger import draft

COLUMNS = (("#", 3), ("operation", 22), ("what", 15), ("where", 32), ("real", 42), ("simulated", 42), ("ledger", 6))


def cell(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def focus(real: str, simulated: str, width: int) -> tuple[str, str]:
    """Two long texts from shortly before where they part, so that a narrow cell shows the difference."""
    if max(len(real), len(simulated)) <= width:
        return real, simulated
    same = len(os.path.commonprefix([real, simulated]))
    if same <= 12:
        return real, simulated
    return "…" + real[same - 12 :], "…" + simulated[same - 12 :]


def table(differences: list[Difference], aligned: int) -> str:
    lines = ["  ".join(name.ljust(width) for name, width in COLUMNS).rstrip()]
    lines.append("  ".join("-" * width for _, width in COLUMNS))
    for d in differences:
        real, simulated = focus(d.real, d.simulated, COLUMNS[4][1])
        values = (str(d.number), d.operation, d.kind, d.path or "-", real, simulated, "known" if d.known else "new")
        lines.append("  ".join(cell(v, w).ljust(w) for v, (_, w) in zip(values, COLUMNS)).rstrip())
    new = sum(not d.known for d in differences)
    lines.append(f"{len(differences)} difference(s), {new} not in the ledger, in {aligned} aligned exchange(s)")
    return "\n".join(lines)


def drafts(differences: list[Difference], upstream: str) -> list[dict[str, Any]]:
    seen: set[str] = set()
    found = []
    for d in differences:
        if not d.known and d.ledger_id not in seen:
            seen.add(d.ledger_id)
            found.append(draft(d, upstream))
    return found


def as_yaml(entries: list[dict[str, Any]]) -> str:
    import yaml

    return yaml.safe_dump(entries, sort_keys=False, allow_unicode=True, width=120)


def as_json(differences: list[Difference], aligned: int, upstream: str) -> str:
    return json.dumps(
        {
            "aligned": aligned,
            "differences": [d.to_json() for d in differences],
            "new": sum(not d.known for d in differences),
            "drafts": drafts(differences, upstream),
        },
        indent=2,
    )
