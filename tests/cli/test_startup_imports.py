"""serve's start-up loads only what answering needs: the rest is imported on first use (issue #17).

Each check runs in a fresh interpreter, since this test process has imported everything already.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from simulator.scenario import parse_scenario, parsed_default

ROOT = Path(__file__).resolve().parents[2]

# Loaded on first use only: the inspector's views, YAML (the default scenario comes parsed), wallets and
# their chains (pycryptodome pulls in cffi and its C parser), BIP-32/39, the policy language, the OAuth provider.
LAZY = (
    "yaml",
    "Crypto",
    "cffi",
    "pycparser",
    "coincurve",
    "mnemonic",
    "jsonschema",
    "simulator.crypto.hd",
    "simulator.crypto.addresses",
    "simulator.activities.wallets",
    "simulator.activities.private_keys",
    "simulator.policy.language",
    "simulator.standins.oauth_provider",
    "simulator.operations.operation_coverage",
    "simulator.inspector.activities",
    "simulator.inspector.organizations",
    "simulator.inspector.webhooks",
)

SERVE_START = """
import json, sys
import simulator.cli
from simulator.cli import config_from, parser, ready_line
from simulator.server import SimulatorServer
server = SimulatorServer(config=config_from(parser().parse_args(["serve", "--port", "0", "--proxy-port", "0"])))
ready_line(server)
server.stop()
print(json.dumps(sorted(sys.modules)))
"""


def modules_after(code: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


def test_serve_start_up_leaves_the_first_use_modules_unloaded() -> None:
    modules = modules_after(SERVE_START)
    assert "simulator.server" in modules  # the check ran what serve runs
    assert [name for name in LAZY if loaded(modules, name)] == []


def test_importing_the_package_loads_nothing_else() -> None:
    modules = modules_after("import json, sys, simulator; print(json.dumps(sorted(sys.modules)))")
    assert sorted(m for m in modules if m.startswith("simulator")) == ["simulator"]


def test_the_package_still_offers_its_names() -> None:
    import simulator
    from simulator.core import Simulator
    from simulator.server import SimulatorServer

    assert simulator.Simulator is Simulator and simulator.SimulatorServer is SimulatorServer
    assert set(simulator.__all__) <= set(dir(simulator))


def test_the_parsed_default_scenario_is_current() -> None:
    """Stale, start-up parses the YAML again (slower, same result): `python -m simulator.scenario.parsed_default`."""
    default = ROOT / "scenarios" / "default.yaml"
    text = default.read_text()
    assert parsed_default.data_for(text) == yaml.safe_load(text)


def test_the_default_scenario_reads_alike_parsed_or_from_yaml() -> None:
    default = ROOT / "scenarios" / "default.yaml"
    fast, slow = parse_scenario(default, trusted=True), parse_scenario(default)
    assert fast.data == slow.data
    where = ("organizations", 0, "users", 0, "apiKeys")
    assert fast.where(*where) == slow.where(*where)


def test_the_parsed_copy_is_refused_for_other_text(tmp_path: Path) -> None:
    edited = tmp_path / "default.yaml"
    edited.write_text((ROOT / "scenarios" / "default.yaml").read_text().replace("Root User", "Someone Else"))
    assert parsed_default.data_for(edited.read_text()) is None
    assert parse_scenario(edited, trusted=True).data["organizations"][0]["users"][0]["name"] == "Someone Else"
