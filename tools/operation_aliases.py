#!/usr/bin/env python3
"""Write simulator/operations/operation_aliases.py: each official client's method name and the operation it calls,
read from the clients themselves, so that a fault, a rule or a journal assertion naming a method
(``get_wallets``, ``getWallets``) finds the operation (``list_wallets``) or is refused naming it.

The clients read:
- turnkey-http (Python), ``turnkey_http/generated/client.py`` as installed: each ``TurnkeyClient`` method
  and the ``/public/v1/...`` path its body names;
- @turnkey/http, @turnkey/sdk-server, @turnkey/sdk-browser and @turnkey/core, as tests/js/node_modules
  holds them: each ``this.NAME = async (...) => {...}`` of their generated clients and the first
  ``/public/v1/...`` or auth-proxy ``/v1/...`` path it names.

``stamp...`` methods (they make a signed request, they call nothing) are left out. A name is an alias
when every client that has it calls one operation with it, and it is not itself an operation's name
(an operation's own name always means that operation); a name two clients send to different operations
is ambiguous, kept apart so that a refusal can name both.

python tools/operation_aliases.py          # rewrite simulator/operations/operation_aliases.py
python tools/operation_aliases.py --check  # exit 1 when it is stale (tests/http/test_operation_names.py)
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from simulator.operations import catalogue

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "simulator" / "operations" / "operation_aliases.py"
NODE_MODULES = ROOT / "tests" / "js" / "node_modules"
API_PATH = re.compile(r"^/public/v1/(?:submit|query)/(\w+)$")
JS_CLIENTS = (  # package, its generated client
    ("@turnkey/http", "dist/__generated__/services/coordinator/public/v1/public_api.client.js"),
    ("@turnkey/sdk-server", "dist/__generated__/sdk-client-base.js"),
    ("@turnkey/sdk-browser", "dist/__generated__/sdk-client-base.js"),
    ("@turnkey/core", "dist/__generated__/sdk-client-base.js"),
)
JS_METHOD = re.compile(r"^\s*this\.(\w+) = async \(", re.M)
JS_PATH = re.compile(r'"(/public/v1/(?:submit|query)/\w+|/v1/\w+)"')


def python_client() -> tuple[str, dict[str, str]]:
    """turnkey-http's version, and its method names -> the operation each posts to."""
    spec = importlib.util.find_spec("turnkey_http.generated.client")
    assert spec is not None and spec.origin is not None, "turnkey-http is not installed"
    tree = ast.parse(Path(spec.origin).read_text())
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef) or node.name.startswith(("_", "stamp_")):
            continue
        paths = [
            m.group(1)
            for c in ast.walk(node)
            if isinstance(c, ast.Constant) and isinstance(c.value, str) and (m := API_PATH.match(c.value))
        ]
        if paths:
            found[node.name] = paths[0]
    return f"turnkey-http {importlib.metadata.version('turnkey-http')}", found


def js_client(package: str, relative: str) -> tuple[str, dict[str, str]]:
    """A JS client's version, and its method names -> the operation each calls."""
    folder = NODE_MODULES / package
    version = json.loads((folder / "package.json").read_text())["version"]
    text = (folder / relative).read_text()
    starts = list(JS_METHOD.finditer(text))
    found: dict[str, str] = {}
    for i, start in enumerate(starts):
        name = start.group(1)
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        path = JS_PATH.search(text, start.end(), end)
        if path is not None and not name.startswith("stamp"):
            found[name] = path.group(1).rsplit("/", 1)[1]
    return f"{package} {version}", found


def tables() -> tuple[list[str], dict[str, str], dict[str, dict[str, list[str]]]]:
    """The clients read, the aliases (name -> operation) and the ambiguous names (name -> operation -> clients)."""
    sources = [python_client()] + [js_client(p, r) for p, r in JS_CLIENTS]
    operations = {op.name for op in catalogue.OPERATIONS}
    meant: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for client, methods in sources:
        for name, operation in methods.items():
            if name != operation and operation in operations:  # one the simulator does not know names nothing here
                meant[name][operation].append(client.rsplit(" ", 1)[0])
    aliases = {n: next(iter(ops)) for n, ops in meant.items() if len(ops) == 1 and n not in operations}
    ambiguous = {n: {o: sorted(c) for o, c in ops.items()} for n, ops in meant.items() if len(ops) > 1}
    return [client for client, _ in sources], dict(sorted(aliases.items())), dict(sorted(ambiguous.items()))


def rendered() -> str:
    clients, aliases, ambiguous = tables()
    lines = [
        '"""The official clients\' method names, and the operation each calls: what a fault, a rule or a journal',
        "assertion may name instead of the operation (``get_wallets``, ``getWallets``: ``list_wallets``).",
        "",
        "Generated from the clients by ``python tools/operation_aliases.py`` (tests/http/test_operation_names.py",
        "fails while it is stale); do not edit. Read from:",
        "",
        *(f"- {client}" for client in clients),
        "",
        "``AMBIGUOUS``: names the clients send to different operations; a name that is one operation's and",
        "another's method (none today) would mean the operation. simulator/operations/operation_names.py reads both.",
        '"""',
        "",
        *table("ALIASES: dict[str, str]", [f"{q(name)}: {q(op)}" for name, op in aliases.items()]),
        "",
        *table(
            "AMBIGUOUS: dict[str, dict[str, tuple[str, ...]]]",
            [f"{q(name)}: {{{meanings(ops)}}}" for name, ops in ambiguous.items()],
        ),
        "",
    ]
    return "\n".join(lines)


def q(text: str) -> str:
    """A string literal as ruff format writes it."""
    return json.dumps(text)


def meanings(ops: dict[str, list[str]]) -> str:
    return ", ".join(
        f"{q(op)}: ({', '.join(map(q, clients))}{',' * (len(clients) == 1)})" for op, clients in ops.items()
    )


def table(head: str, rows: list[str]) -> list[str]:
    return [f"{head} = {{}}"] if not rows else [f"{head} = {{", *(f"    {row}," for row in rows), "}"]


def main(argv: list[str]) -> int:
    text = rendered()
    if "--check" in argv:
        return 0 if OUT.read_text() == text else 1
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
