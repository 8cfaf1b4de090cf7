"""Which scenario files the control API loads, and what it says when one does not load.

``POST /_simulator/scenarios`` names files by path, and whoever sends it is a program on this machine, or a web
page that got past the Host and origin checks: either way not necessarily the person who started the
simulator. So it loads shipped scenarios by name, and files under the directories the process was told about:
the working directory, each ``--scenario-dir`` (``Config.scenario_dirs``), the folders of the scenarios given at
start and the shipped scenarios' folder. Any other path is refused with the same answer whether a file is there
or not, and a file that does not load is described by its line, its keys and the kind of problem, never by a
value read from it (``wallet-simulator check FILE`` shows everything to whoever may read the file).
"""

from __future__ import annotations

import re
from pathlib import Path

from simulator.config import Config
from simulator.errors import InvalidArgument
from simulator.paths import data_dir
from simulator.scenario import ScenarioError
from simulator.scenario.names import SUFFIXES, shipped_scenarios

SHOWN_PATH_CHARACTERS = 300


def allowed_dirs(config: Config) -> list[Path]:
    found = [Path.cwd(), *config.scenario_dirs, *(Path(p).parent for p in config.scenarios), data_dir("scenarios")]
    return [d.resolve() for d in found]


def checked_path(ref: str, config: Config) -> Path:
    """The path to load for ``ref``: a shipped name, or a file under an allowed directory; else a 400."""
    path = Path(ref)
    if not path.is_absolute() and path.parent in (Path("."), Path("scenarios")) and not path.exists():
        stem = path.stem if path.suffix in SUFFIXES else path.name
        if stem in shipped_scenarios():
            return path  # a shipped name: the loader finds it
    try:
        resolved = path.resolve()  # symbolic links followed: a link out of the folder leads out of it
    except (OSError, RuntimeError, ValueError):
        resolved = None
    if resolved is not None and any(resolved.is_relative_to(d) for d in allowed_dirs(config)):
        return resolved
    shown = ref[:SHOWN_PATH_CHARACTERS]
    raise InvalidArgument(
        f"scenario {shown!r} is not a shipped scenario ({', '.join(shipped_scenarios())}) nor a path under the "
        "working directory or a --scenario-dir: the control API loads files only from the directories the "
        "simulator was told about; start it with --scenario-dir DIR to allow another one"
    )


# "<file>:<line>: <where>: <message>", the form every scenario problem takes (simulator/scenario/problems.py)
PROBLEM = re.compile(r"^(?P<at>.*?:\d+): (?P<where>[A-Za-z0-9_.\[\]() -]*?): (?P<message>.*)$")
UNKNOWN_FIELD = re.compile(r"^unknown field '[A-Za-z0-9_.$-]{1,100}'; allowed here: [A-Za-z0-9_, ]*$")


def value_free(error: ScenarioError, paths: list[Path]) -> InvalidArgument:
    """The refusal for a scenario file that does not load, with no value from the file in it."""
    if "cannot read scenario file" in str(error):
        return InvalidArgument(str(error))  # names the path the client sent and the shipped names; nothing was read
    lines = []
    for line in str(error).splitlines():
        problem = PROBLEM.match(line)
        if problem is None:
            continue
        message = problem["message"]
        if not UNKNOWN_FIELD.match(message):
            message = "does not pass the scenario checks"
        lines.append(f"{problem['at']}: {problem['where']}: {message}")
    files = ", ".join(str(p)[:SHOWN_PATH_CHARACTERS] for p in paths)
    detail = ("\n" + "\n".join(lines)) if lines else ""
    return InvalidArgument(
        f"cannot load the scenarios ({files}): run `wallet-simulator check FILE` to see each problem in full (the "
        f"control API never repeats a value read from a file){detail}"
    )
