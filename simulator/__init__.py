"""A local, protocol-level simulator of Turnkey's public API (and, later, its auth proxy)."""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
from typing import TYPE_CHECKING, Any, cast

# The release: pyproject.toml, js/package.json (the JS helper ships in lockstep), the changelog's newest
# section, `wallet-simulator --version` and the ready line's "version" all say this
# (tests/project/test_release.py holds them together).
__version__ = "0.4.0"

if TYPE_CHECKING:
    from simulator.config import Budget, Config, RateLimits
    from simulator.core import Simulator
    from simulator.errors import ApiError
    from simulator.scenario import ScenarioError, ScenarioWarning, load_scenario
    from simulator.server import SimulatorServer
    from simulator.web.app import create_app

__all__ = [
    "ApiError",
    "Budget",
    "Config",
    "RateLimits",
    "ScenarioError",
    "ScenarioWarning",
    "Simulator",
    "SimulatorServer",
    "create_app",
    "load_scenario",
]

# Each name's module, imported on first use: `import simulator.cli` (every command, and serve's start-up)
# would otherwise load the whole simulator through this package's __init__.
_HOMES = {
    "ApiError": "simulator.errors",
    "Budget": "simulator.config",
    "Config": "simulator.config",
    "RateLimits": "simulator.config",
    "ScenarioError": "simulator.scenario",
    "ScenarioWarning": "simulator.scenario",
    "Simulator": "simulator.core",
    "SimulatorServer": "simulator.server",
    "create_app": "simulator.web.app",
    "load_scenario": "simulator.scenario",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'simulator' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


# Old module paths: a module that moved (or was renamed) is still found under its old path, as the same
# module object as its new home, with a DeprecationWarning saying where it went; a package's old path
# serves its submodules too (``simulator.events.signing`` is ``simulator.webhooks.signing``). One table
# here, not a stub file per old path: the old folders stay out of the tree (and of the import contracts).
MOVED = {
    "simulator.oauth_provider": "simulator.standins.oauth_provider",
    "simulator.handling.key_material": "simulator.model.key_material",
    "simulator.handling.credential_records": "simulator.model.credential_records",
    "simulator.handling.session_keys": "simulator.model.session_keys",
    "simulator.handling.signatures": "simulator.model.signatures",
    "simulator.handling.signer_views": "simulator.model.signer_views",
    "simulator.handling.tags": "simulator.model.tags",
    "simulator.handling.user_records": "simulator.model.user_records",
    "simulator.handling.verification_tokens": "simulator.model.verification_tokens",
    "simulator.handling.oidc": "simulator.model.oidc",
    "simulator.handling.enclave_bundles": "simulator.model.enclave_bundles",
    "simulator.handling.mnemonic_pool": "simulator.model.mnemonic_pool",
    "simulator.handling.email_address": "simulator.model.email_address",
    "simulator.handling.email_customization": "simulator.model.email_customization",
    "simulator.handling.provider_standin": "simulator.standins.longtail",
    "simulator.handling.chain_standin": "simulator.standins.chain",
    "simulator.handling.sent_transactions": "simulator.standins.sent_transactions",
    "simulator.queries.context": "simulator.handler_support.query_context",
    # names that say what is inside
    "simulator.proxy": "simulator.auth_proxy",
    "simulator.proxy_config": "simulator.auth_proxy_config",
    "simulator.scenario.catalog": "simulator.scenario.api_names",
    "simulator.scenario.key_material": "simulator.scenario.key_checks",
    "simulator.consensus.rate_limits": "simulator.consensus.throttle",
    "simulator.events": "simulator.webhooks",
    # the loose modules of the top, in folders named for what they are (simulator.cli, .control, .server and
    # .testing are packages now that serve the old module's names themselves)
    "simulator.cli_commands": "simulator.cli.cli_commands",
    "simulator.cli_options": "simulator.cli.cli_options",
    "simulator.control_client": "simulator.control.control_client",
    "simulator.control_scenarios": "simulator.control.control_scenarios",
    "simulator.control_surface": "simulator.control.control_surface",
    "simulator.wsgi": "simulator.server.wsgi",
    "simulator.granian_server": "simulator.server.granian_server",
    "simulator.host_check": "simulator.server.host_check",
    "simulator.app": "simulator.web.app",
    "simulator.cors": "simulator.web.cors",
    "simulator.request_record": "simulator.http.log_entry",
    "simulator.http.request_record": "simulator.http.log_entry",
    "simulator.request_body": "simulator.http.request_body",
    "simulator.flask_context": "simulator.http.flask_context",
    "simulator.logs": "simulator.http.logs",
    "simulator.log_writer": "simulator.http.log_writer",
    "simulator.status_line": "simulator.http.status_line",
    "simulator.catalogue": "simulator.operations.catalogue",
    "simulator.activity_types": "simulator.operations.activity_types",
    "simulator.validation": "simulator.operations.validation",
    "simulator.response_check": "simulator.operations.response_check",
    "simulator.operation_names": "simulator.operations.operation_names",
    "simulator.operation_aliases": "simulator.operations.operation_aliases",
    "simulator.operation_coverage": "simulator.operations.operation_coverage",
    "simulator.replay": "simulator.testing.replay",
    "simulator.recording": "simulator.scenario.recording",
    # "handling" held no handlers: what a handler runs inside (its context, envelope, refusals, limits)
    "simulator.handling": "simulator.handler_support",
}


def new_home(name: str) -> str | None:
    """Where the module once imported as ``name`` lives now (None: it has not moved)."""
    if not name.startswith("simulator."):
        return None  # the finder sits first on sys.meta_path: every other import passes here
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    # ``from <renamed package's old path> import m`` asks for ``m`` under the package's new name: a module that
    # had left the package before its rename (simulator.handling.provider_standin) is found where it went
    for old, new in MOVED.items():
        if name.startswith(new + "."):
            earlier = old + name[len(new) :]
            home = next(
                (
                    n + earlier[len(o) :]
                    for o, n in MOVED.items()
                    if o != old and (earlier == o or earlier.startswith(o + "."))
                ),
                None,
            )
            if home is not None:
                return home
    return None


class _OldPaths:
    """Finds a moved module under its old path (first on ``sys.meta_path``, so that a package's old path
    never loads its new home's files a second time under another name)."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> Any:
        new = new_home(name)
        return None if new is None else importlib.machinery.ModuleSpec(name, cast(Any, _OldPaths), loader_state=new)

    @staticmethod
    def create_module(spec: Any) -> Any:
        import warnings

        warnings.warn(
            f"{spec.name} has moved to {spec.loader_state}; the old path is an alias and goes in a later release",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(spec.loader_state)
        spec.loader_state = module.__spec__
        return module

    @staticmethod
    def exec_module(module: Any) -> None:
        # the import system gave the module the old path's spec: give it back its own
        module.__spec__ = module.__spec__.loader_state


if not any(finder is _OldPaths for finder in sys.meta_path):
    sys.meta_path.insert(0, _OldPaths)
