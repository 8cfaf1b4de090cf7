#!/usr/bin/env python3
"""Write simulator/handler_index.py from the operation catalogue (simulator/operations/catalogue.py): every
handler, preparer and policy context the catalogue names by string, as a reference an editor and a
type checker follow.

python tools/handler_index.py          # rewrite the index
python tools/handler_index.py --check  # exit 1 when the index is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

from simulator.operations import catalogue
from simulator.operations.catalogue import Kind

INDEX = Path(__file__).resolve().parent.parent / "simulator" / "handler_index.py"

HEAD = '''"""Every function the operation catalogue names by string, as a reference an editor and a type checker follow.

Generated from simulator/operations/catalogue.py by ``python tools/handler_index.py`` (tests/http/test_handler_index.py
fails while it is stale); do not edit. The catalogue imports a handler's module on first use, so that
start-up does not pay for every family; the references below sit under ``TYPE_CHECKING`` for the same
reason. ``mypy simulator`` checks that each exists and has its kind's signature (``Handler``,
``Preparer``, ``Query``, ``ProxyHandler``), and an editor goes from a catalogue name to its function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
'''

TABLES = (  # (table name, value type, kind, which field of the operation)
    ("ACTIVITIES", "Handler", Kind.SUBMIT, "handler"),
    ("PREPARERS", "Preparer", Kind.SUBMIT, "preparer"),
    ("POLICY_CONTEXTS", "Handler", Kind.SUBMIT, "policy_context"),
    ("QUERIES", "Query", Kind.QUERY, "handler"),
    ("PROXY", "ProxyHandler", Kind.PROXY, "handler"),
)


def entries(kind: Kind, field: str) -> list[str]:
    return sorted({spec for op in catalogue.of_kind(kind) if (spec := getattr(op, field))})


def module_of(kind: Kind, spec: str) -> str:
    return f"{catalogue.package_of(kind)}.{spec.partition(':')[0]}"


def rendered() -> str:
    modules = sorted({module_of(kind, spec) for _, _, kind, field in TABLES for spec in entries(kind, field)})
    lines = [HEAD.rstrip("\n"), "", *(f"    import {m}" for m in modules)]
    lines += [
        "    from simulator.activities import Handler, Preparer",
        "    from simulator.pipeline import Services",
        "    from simulator.queries import Query",
        "    from simulator.wire import Json",
        "",
        "    ProxyHandler = Callable[[Services, Json, Json], Json]",
    ]
    for table, value_type, kind, field in TABLES:
        lines += ["", f"    {table}: dict[str, {value_type}] = {{"]
        for spec in entries(kind, field):
            function = spec.partition(":")[2]
            lines.append(f'        "{spec}": {module_of(kind, spec)}.{function},')
        lines.append("    }")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = rendered()
    if "--check" in argv:
        return 0 if INDEX.exists() and INDEX.read_text() == text else 1
    INDEX.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
