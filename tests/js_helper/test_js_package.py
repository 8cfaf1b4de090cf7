"""The JS helper as a package (js/package.json): its two products (the test helper in js/lib/helper/,
the key-trust rewrite in js/lib/trust/) behind one exports map, each entry with its types, one
spelling per entry plus the earlier spellings kept as aliases, and the packed tarball passing
publint and arethetypeswrong (both pinned in tests/js/package.json)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT
from support import packed_helper

PACKAGE = ROOT / "js"
MANIFEST = json.loads((PACKAGE / "package.json").read_text())
EXPORTS: dict[str, dict[str, str] | str] = MANIFEST["exports"]
BIN = ROOT / "tests" / "js" / "node_modules" / ".bin"
NODE = shutil.which("node")
# the spellings earlier releases documented or shipped, each an alias of today's entry (never removed)
ALIASES = {
    "./index.js": ".",
    "./register.js": "./register",
    "./core2-shim.js": "./core2-shim",
    "./jest": "./jest-trust",
}
# every entry an earlier release exported: each still resolves
EARLIER = [".", "./index.js", "./register", "./register.js", "./core2-shim", "./core2-shim.js", "./trust"]
EARLIER += [
    "./esbuild",
    "./vite",
    "./webpack",
    "./webpack-loader",
    "./playwright",
    "./playwright-global-setup",
    "./jest",
]
EARLIER += ["./package.json"]


def entries() -> dict[str, dict[str, str]]:
    return {name: target for name, target in EXPORTS.items() if isinstance(target, dict)}


def test_every_entry_has_types_first_and_both_files_exist():
    for name, target in entries().items():
        assert list(target) == ["types", "default"], name  # conditions match in order: types first
        assert (PACKAGE / target["types"]).is_file() and (PACKAGE / target["default"]).is_file(), name
        assert target["types"] == target["default"].removesuffix(".js") + ".d.ts", name


def test_the_two_products_live_in_their_folders_and_nothing_else_in_js():
    assert sorted(p.name for p in PACKAGE.iterdir()) == ["README.md", "lib", "package.json"]
    assert sorted(p.name for p in (PACKAGE / "lib").iterdir()) == ["helper", "trust"]
    helper = {t["default"] for n, t in entries().items() if "/lib/helper/" in t["default"]}
    assert helper == {f"./lib/helper/{n}.js" for n in ("index", "playwright", "playwright-global-setup")}
    # every module of lib/ is an entry, but for the ESM hooks the preload registers by path
    modules = {f"./{p.relative_to(PACKAGE)}" for p in (PACKAGE / "lib").rglob("*.*js")}
    assert modules - {t["default"] for t in entries().values()} == {"./lib/trust/trust-hooks.mjs"}


def test_one_spelling_per_entry_and_the_earlier_ones_are_aliases():
    by_file: dict[str, list[str]] = {}
    for name, target in entries().items():
        by_file.setdefault(target["default"], []).append(name)
    spelled_twice = {file: names for file, names in by_file.items() if len(names) > 1}
    assert spelled_twice == {
        entries()[canonical]["default"]: [canonical, alias] for alias, canonical in ALIASES.items()
    }
    assert all(EXPORTS[alias] == EXPORTS[canonical] for alias, canonical in ALIASES.items())
    assert set(EARLIER) <= set(EXPORTS)


def test_typescripts_older_resolution_finds_the_same_types():
    """``typesVersions`` is what TypeScript's node10 resolution reads in place of the exports map."""
    mapped = MANIFEST["typesVersions"]["*"]
    assert mapped == {name[2:]: [target["types"][2:]] for name, target in entries().items() if name != "."}
    assert MANIFEST["types"] == entries()["."]["types"][2:] and MANIFEST["main"] == entries()["."]["default"][2:]


@pytest.mark.skipif(NODE is None, reason="node missing")
def test_every_spelling_loads_the_same_module_from_commonjs_and_esm(tmp_path):
    """As a user's project does: the package in node_modules (a link to js/), each entry required and
    imported; an alias is the very module its entry is."""
    modules = tmp_path / "node_modules"
    modules.mkdir()
    (modules / "wallet-simulator-testing").symlink_to(PACKAGE, target_is_directory=True)
    # not the global setup (it starts a simulator), nor package.json (JSON: import needs an attribute)
    names = [name for name in EXPORTS if name not in ("./playwright-global-setup", "./package.json")]
    specifiers = ["wallet-simulator-testing" + name[1:] for name in names]
    script = tmp_path / "load.mjs"
    script.write_text(
        'import { createRequire } from "node:module";\n'
        "const require = createRequire(import.meta.url);\n"
        f"const specifiers = {json.dumps(specifiers)};\n"
        "const out = {};\n"
        "for (const s of specifiers) {\n"
        "  const cjs = require(s);\n"
        "  const esm = await import(s);\n"
        "  out[s] = { file: require.resolve(s), same: esm.default === cjs, names: Object.keys(cjs).sort() };\n"
        "}\n"
        "console.log(JSON.stringify(out));\n"
    )
    env = {"PATH": str(Path(NODE).parent), "HOME": str(tmp_path)}
    run = subprocess.run([NODE, str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    loaded = json.loads(run.stdout)
    assert all(v["same"] for v in loaded.values()), loaded
    for alias, canonical in ALIASES.items():
        a, c = (loaded["wallet-simulator-testing" + n[1:]] for n in (alias, canonical))
        assert a == c, alias
    assert loaded["wallet-simulator-testing/jest-trust"]["names"] == [
        "CONSTANTS_PATTERN",
        "getCacheKey",
        "process",
        "withSimulatorTrust",
    ]


def tool(name: str) -> Path:
    path = BIN / name
    if not (NODE and shutil.which("npm") and path.exists()):
        pytest.skip(f"node, npm or {name} missing (npm ci --prefix tests/js)")
    return path


def test_publint_finds_nothing_in_the_packed_tarball(tmp_path):
    publint = tool("publint")
    tarball = packed_helper(tmp_path)
    run = subprocess.run([str(publint), "--strict", str(tarball)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Suggestions" not in run.stdout and "Warnings" not in run.stdout and "Errors" not in run.stdout, run.stdout


def test_arethetypeswrong_finds_only_the_lazy_playwright_exports(tmp_path):
    """Every entry resolves to its types under node10, node16 (CommonJS and ESM) and bundlers.

    The one finding kept: ``test`` and ``expect`` of ``/playwright`` are getters that load the optional
    peer @playwright/test on first use, which Node's ESM import of CommonJS cannot see by name; making
    them visible would load @playwright/test on every import, and fail without it."""
    attw = tool("attw")
    tarball = packed_helper(tmp_path)
    report = tmp_path / "attw.json"
    with report.open("w") as out:  # a file, not a pipe: node exits before a long pipe is drained
        subprocess.run([str(attw), str(tarball), "--format", "json"], stdout=out, timeout=300)
    problems = json.loads(report.read_text())["analysis"]["problems"]
    assert problems == [
        {
            "kind": "NamedExports",
            "implementationFileName": "/node_modules/wallet-simulator-testing/lib/helper/playwright.js",
            "typesFileName": "/node_modules/wallet-simulator-testing/lib/helper/playwright.d.ts",
            "isMissingAllNamed": False,
            "missing": ["test", "expect"],
        }
    ], json.dumps(problems, indent=1)
