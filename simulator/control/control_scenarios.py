"""Which scenario files the control API loads, and what it says when one does not load.

``POST /_simulator/scenarios`` names files by path. A request a browser sends (it carries ``Origin`` or
``Sec-Fetch-Site``: the inspector, a page listed with ``--cors-origin``, or one that got past the other checks)
loads shipped scenarios by name, and files under the directories the process was told about: the working
directory, each ``--scenario-dir`` (``Config.scenario_dirs``), the folders of the scenarios given at start and
the shipped scenarios' folder. Any other path is refused with the same answer whether a file is there or not.
A program on this machine (no browser header, a loopback peer: the CLI's ``replay --url`` and ``control load``,
the clients) or a caller holding the control token is trusted with any path, as it could read the file itself.
Whoever asks, a file that does not load is described by its line, its keys and the kind of problem, never by
a value read from it (``wallet-simulator check FILE`` shows everything to whoever may read the file).
"""

from __future__ import annotations

import re
from pathlib import Path

from flask import request

from simulator.config import Config
from simulator.errors import InvalidArgument
from simulator.local_hosts import is_loopback_name
from simulator.paths import data_dir
from simulator.scenario import ScenarioError
from simulator.scenario.names import SUFFIXES, shipped_scenarios

SHOWN_PATH_CHARACTERS = 300


def allowed_dirs(config: Config) -> list[Path]:
    found = [Path.cwd(), *config.scenario_dirs, *(Path(p).parent for p in config.scenarios), data_dir("scenarios")]
    return [d.resolve() for d in found]


def trusted_caller(config: Config) -> bool:
    """A program on this machine, not a browser, or a caller that passed the control token check."""
    if config.control_token is not None:
        return True  # require_control_token has let it through
    environ = request.environ
    if environ.get("HTTP_ORIGIN") is not None or environ.get("HTTP_SEC_FETCH_SITE") is not None:
        return False
    return is_loopback_name((request.remote_addr or "").lower())


def checked_path(ref: str, config: Config, trusted: bool = False) -> Path:
    """The path to load for ``ref``: a shipped name, a file under an allowed directory, or (``trusted``) any
    path; else a 400."""
    path = Path(ref)
    if trusted:
        return path
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
