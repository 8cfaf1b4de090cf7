"""The structure the code promises: no import cycles, the layers of pyproject.toml, one catalogue."""

from __future__ import annotations

import grimp


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; the components with more than one module are cycles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def module_graph() -> dict[str, set[str]]:
    graph = grimp.build_graph("simulator")
    modules = {m for m in graph.modules if m.startswith("simulator.") or m == "simulator"}
    # a package's __init__ importing its own submodules is not a cycle between layers
    return {m: {i for i in graph.find_modules_directly_imported_by(m) if i in modules} for m in modules}


def test_there_is_no_import_cycle_inside_simulator():
    graph = module_graph()
    packages = {m for m in graph if any(o.startswith(m + ".") for o in graph)}
    without_inits = {m: {i for i in deps if not (m in packages and i.startswith(m + "."))} for m, deps in graph.items()}
    assert strongly_connected(without_inits) == []


def test_the_operations_table_is_the_catalogue():
    """The docs' operations table (docs/reference/operations.md) is generated from the catalogue:
    `python tools/readme_operations.py` refreshes it."""
    import importlib.util
    from pathlib import Path

    tool = Path(__file__).resolve().parents[2] / "tools" / "readme_operations.py"
    spec = importlib.util.spec_from_file_location("readme_operations", tool)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = module.PAGE.read_text()
    assert module.START in text, f"{module.PAGE} lacks the operations table markers"
    assert module.refreshed(text) == text, (
        "docs/reference/operations.md's operations table is stale: run python tools/readme_operations.py"
    )
    assert module.main(["--check"]) == 0


def test_no_two_folders_import_each_other():
    """Folder by folder (``simulator/activities``, ``simulator/consensus``, ... and each top-level
    module on its own) the imports form no cycle; pyproject.toml's acyclic_siblings contract says
    the same to lint-imports."""
    graph = module_graph()

    def folder(module: str) -> str:
        return ".".join(module.split(".")[:2])

    folders: dict[str, set[str]] = {}
    for module, deps in graph.items():
        folders.setdefault(folder(module), set()).update(folder(d) for d in deps if folder(d) != folder(module))
    assert strongly_connected(folders) == []


def test_only_the_dispatch_imports_a_write_handler():
    """A read, the MFA gate, the seed, a shared rule or a stand-in never imports simulator.activities:
    the rules they share with a write handler live in simulator/model/ (pyproject.toml's forbidden
    contract says the same to lint-imports). Only handler_index.py (typed names, for type checkers)
    names the handler modules; the lifecycle reaches them through catalogue.resolve."""
    graph = module_graph()
    outside = sorted(
        (module, imported)
        for module, imports in graph.items()
        if not module.startswith("simulator.activities") and module != "simulator.handler_index"
        for imported in imports
        if imported == "simulator.activities" or imported.startswith("simulator.activities.")
    )
    assert outside == []
