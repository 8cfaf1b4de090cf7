"""Write tests/compat/releases/<release>/: the runnable code a release's README and docs pages published.

A team that followed a release's docs has those suites and snippets in its own repository; an upgrade
must not break them. For each release below this takes, from *that commit's* README.md and docs/ pages:

- ``python pytest`` blocks: a downstream test module, run with pytest;
- ``python`` and ``js`` blocks: scripts run against a simulator (``http://127.0.0.1:8080`` is its url);
- the ``js file PATH`` blocks of a page: one project (the JS tutorial's vitest and jest suites);
- the ``python file`` / ``yaml file`` / ``ini file`` blocks of a page: one pytest project.

tests/compat/test_release_suites.py runs every entry, unchanged, against today's code. Run from the
checkout after a release, adding it to RELEASES (the last commit whose changelog still named it the
newest release):

    python tools/release_suites.py

The output is data: commit what it writes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "compat" / "releases"
# release -> its commit: 0.2.0 is the tree just before the changelog opened "Unreleased" above it; 0.3.0 the
# last commit before 0.4.0's work landed
RELEASES = {"0.2.0": "54770a8", "0.3.0": "841be20"}
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```$", re.M | re.S)
SCRIPTS = {"python pytest": "py", "python": "py", "js": "js"}
PROJECT_FILE = re.compile(r"^(js|python|yaml|ini) file (\S+)$")
RUNNER_CONFIGS = {"vitest.config.mjs", "jest.config.js"}  # a js project with one of these is a test suite


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def pages(commit: str) -> list[str]:
    names = git("ls-tree", "-r", "--name-only", commit).splitlines()
    return [n for n in names if n == "README.md" or (n.startswith("docs/") and n.endswith(".md"))]


def entries(commit: str, into: Path) -> list[dict[str, object]]:
    """Each runnable block (or a page's project) of the release, written under ``into``."""
    found: list[dict[str, object]] = []
    for page in pages(commit):
        text = git("show", f"{commit}:{page}")
        project: dict[str, str] = {}
        project_kind = ""
        for match in FENCE.finditer(text):
            info, code = match.group(1).strip(), match.group(2)
            line = text.count("\n", 0, match.start()) + 1
            stem = f"{page.replace('/', '-').removesuffix('.md')}-{line}"
            if info in SCRIPTS:
                name = f"{stem}.{SCRIPTS[info]}"
                (into / name).write_text(code)
                found.append({"id": f"{page}:{line}", "kind": info, "file": name})
            elif (project_file := PROJECT_FILE.match(info)) is not None:
                project_kind = "js project" if project_file.group(1) == "js" else "pytest project"
                project[project_file.group(2)] = code
        if project:
            if project_kind == "js project" and not RUNNER_CONFIGS & set(project):
                project_kind = "js config"  # a config a page gave (the web app's vite.config.mjs), loaded, not run
            folder = page.replace("/", "-").removesuffix(".md")
            for path, code in project.items():
                (into / folder / path).parent.mkdir(parents=True, exist_ok=True)
                (into / folder / path).write_text(code)
            found.append({"id": page, "kind": project_kind, "folder": folder, "files": sorted(project)})
    return found


def main() -> int:
    for release, commit in RELEASES.items():
        into = OUT / release
        shutil.rmtree(into, ignore_errors=True)
        into.mkdir(parents=True)
        manifest = {"release": release, "commit": git("rev-parse", commit).strip(), "entries": entries(commit, into)}
        (into / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        print(f"{release}: {len(manifest['entries'])} entries in {into.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
