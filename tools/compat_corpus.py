"""Build tests/compat/: what users wrote against every earlier release, taken from the repository's history.

For each commit that changed README.md or the docs site's pages, this takes their YAML blocks (the scenario files and
fragments it showed) and the ``wallet-simulator`` command lines of its shell blocks, and the shipped
scenario files of that commit. A YAML fragment is tried the ways a user would have used it: alone,
after ``include: [default]``, and including the README's own full example. Each candidate is loaded
by *that commit's* code (its ``simulator/`` and data, unpacked from git into a temporary folder);
only what loaded then enters the corpus, with where it came from. tests/compat/test_compat.py then requires
that every file of the corpus still loads (a later check may warn, never refuse) and every command
still parses.

Run from the checkout, after a release that changed the README's examples:

    python tools/compat_corpus.py

The corpus is data: commit what it writes.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "compat"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```$", re.M | re.S)
COMMAND = re.compile(r"^\s*(?:\$\s*)?((?:wallet-simulator|python -m simulator)\s[^\n#|&;>]*)", re.M)
# The README's placeholders, filled in as a user would have (any valid value serves).
FILLED = {
    '"<64 hex>"': '"' + "1f" * 32 + '"',
    '"<hex>"': '"' + "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a" + '"',
    '"<base64url>"': '"Y3JlZGVudGlhbC0x"',
    '"abandon abandon ... about"': '"' + "abandon " * 11 + 'about"',
}
CONTROL_CALL = re.compile(r"\b(GET|POST|PUT|DELETE)\s+`?(/_simulator/[A-Za-z0-9_/<>{}:.-]*)")

# Runs inside the old release: loads each candidate with that release's checks, prints what loaded.
PROBE = """
import json, sys
from pathlib import Path
from simulator.scenario import load_scenario
loaded = []
for path in sys.argv[1:]:
    try:
        load_scenario(Path(path))
        loaded.append(path)
    except Exception:
        pass
print(json.dumps(loaded))
"""
PARSE_PROBE = """
import json, shlex, sys
from simulator.cli import parser
parsed = []
for line in json.loads(sys.stdin.read()):
    words = shlex.split(line)
    words = words[1:] if words[0] == "wallet-simulator" else words[3:]
    try:
        parser().parse_args(words)
        parsed.append(line)
    except SystemExit:
        pass
print(json.dumps(parsed))
"""


def git(*args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True).stdout


def readme_commits() -> list[tuple[str, str]]:
    """The commits that changed what users read: README.md, and the docs site's pages since it exists."""
    lines = git("log", "--reverse", "--format=%h %ad", "--date=short", "--", "README.md", "docs").decode().split("\n")
    return [(c, d) for c, d in (line.split() for line in lines if line)]


def documentation(commit: str) -> str:
    """README.md and every docs/ page of ``commit``, as one text (the fenced blocks are what is read)."""
    names = git("ls-tree", "-r", "--name-only", commit, "--", "README.md", "docs").decode().split()
    return "\n".join(git("show", f"{commit}:{name}").decode() for name in names if name.endswith(".md"))


def unpack(commit: str, into: Path) -> None:
    archive = git("archive", "--format=tar", commit, "simulator", "schemas", "scenarios")
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def run_old(release: Path, script: str, args: list[str], stdin: str = "") -> list[str]:
    env = {"PYTHONPATH": str(release), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run(
        [sys.executable, "-c", script, *args], input=stdin, capture_output=True, text=True, env=env, cwd=release
    )
    return json.loads(run.stdout) if run.returncode == 0 and run.stdout.strip() else []


def candidates(blocks: list[str], work: Path, commit: str) -> dict[Path, str]:
    """Each YAML block as a user would have saved it, keyed by the file written for it."""
    written: dict[Path, str] = {}
    for placeholder, value in FILLED.items():
        blocks = [code.replace(placeholder, value) for code in blocks]
    mappings = [(code, yaml.safe_load(code)) for code in blocks]
    full = [code for code, data in mappings if isinstance(data, dict) and "organizations" in data]
    for code, data in mappings:
        if not isinstance(data, dict):
            continue
        texts = [code]
        if "organizations" not in data and "include" not in data:
            texts.append("include: [default]\n" + code)
            texts += [f"include: [example-{i}.yaml]\n" + code for i in range(len(full))]
        for text in texts:
            name = f"{commit}-{hashlib.sha256(text.encode()).hexdigest()[:10]}.yaml"
            written[work / name] = text
    for i, code in enumerate(full):
        (work / f"example-{i}.yaml").write_text(code)
    for path, text in written.items():
        path.write_text(text)
    return written


def shipped(commit: str, work: Path) -> dict[Path, str]:
    """That commit's shipped scenario files, as a user who copied one into their project has it."""
    names = git("ls-tree", "--name-only", commit, "scenarios/").decode().split()
    written = {}
    for name in names:
        if name.endswith(".yaml") and not name.endswith("default.yaml"):  # default: included by name
            text = git("show", f"{commit}:{name}").decode()
            path = work / f"{commit}-{hashlib.sha256(text.encode()).hexdigest()[:10]}.yaml"
            path.write_text(text)
            written[path] = text
    return written


def replayed(release: Path, path: Path) -> bool:
    env = {"PYTHONPATH": str(release), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "simulator", "replay", str(path)],
        env=env,
        cwd=path.parent,
        capture_output=True,
        timeout=300,
    )
    return run.returncode == 0


def main() -> int:
    scenarios_out, seen = OUT / "scenarios", set()
    scenarios_out.mkdir(parents=True, exist_ok=True)
    commands: dict[str, str] = {}
    calls: dict[str, str] = {}
    replays: dict[str, str] = {}
    for commit, date in readme_commits():
        readme = documentation(commit)
        blocks = [m.group(2) for m in FENCE.finditer(readme) if m.group(1).strip().startswith("yaml")]
        shell = "\n".join(m.group(2) for m in FENCE.finditer(readme) if m.group(1).strip() in ("sh", "bash", ""))
        with tempfile.TemporaryDirectory() as tmp:
            release, work = Path(tmp) / "release", Path(tmp) / "work"
            release.mkdir()
            work.mkdir()
            unpack(commit, release)
            from_shipped = shipped(commit, work)
            written = candidates(blocks, work, commit) | from_shipped
            for loaded in run_old(release, PROBE, [str(p) for p in written]):
                text = written[Path(loaded)]
                digest = hashlib.sha256(text.encode()).hexdigest()
                if digest in seen:
                    continue
                seen.add(digest)
                example = re.search(r"include: \[(example-\d+\.yaml)\]", text)
                if example:  # the README's own full example travels with the fragment that includes it
                    full_text = (work / example.group(1)).read_text()
                    header = f"# From README.md at {commit} ({date}): its full example, which the next file includes.\n"
                    (scenarios_out / f"{commit}-{example.group(1)}").write_text(header + full_text)
                    text = text.replace(example.group(1), f"{commit}-{example.group(1)}", 1)
                origin = "scenarios/ (shipped)" if Path(loaded) in from_shipped else "README.md"
                header = f"# From {origin} at {commit} ({date}); loaded by that release.\n"
                (scenarios_out / Path(loaded).name).write_text(header + text)
                if "steps" in yaml.safe_load(text) and replayed(release, Path(loaded)):
                    replays[Path(loaded).name] = f"{commit} ({date})"
            lines = [" ".join(m.group(1).split()) for m in COMMAND.finditer(shell)]
            for line in run_old(release, PARSE_PROBE, [], json.dumps(sorted(set(lines)))):
                commands.setdefault(line, f"{commit} ({date})")
        for method, path in CONTROL_CALL.findall(readme):
            calls.setdefault(f"{method} {path.rstrip('.`')}", f"{commit} ({date})")
    (OUT / "cli.json").write_text(json.dumps(commands, indent=1, sort_keys=True) + "\n")
    (OUT / "replays.json").write_text(json.dumps(replays, indent=1, sort_keys=True) + "\n")
    (OUT / "control.json").write_text(json.dumps(calls, indent=1, sort_keys=True) + "\n")
    print(
        f"{len(seen)} scenario files ({len(replays)} replayed), {len(commands)} command lines, "
        f"{len(calls)} control calls in {OUT}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
