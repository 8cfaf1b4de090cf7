"""A module that moved is still imported under its old path: the very module of its new home, with a
DeprecationWarning that names the new path (simulator/__init__.py's MOVED table)."""

from __future__ import annotations

import importlib
import sys

import pytest

import simulator


@pytest.mark.parametrize(("old", "new"), sorted(simulator.MOVED.items()))
def test_an_old_module_path_warns_and_is_the_new_module(old: str, new: str) -> None:
    forget(old)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        aliased = importlib.import_module(old)
    assert aliased is importlib.import_module(new)
    assert aliased.__spec__.name == new  # the new module keeps its own name


def forget(old: str) -> None:
    """As if never imported (an earlier test may have): the module and its parent's attribute."""
    sys.modules.pop(old, None)
    parent, _, name = old.rpartition(".")
    if parent in sys.modules:
        vars(sys.modules[parent]).pop(name, None)


def test_from_an_old_package_path_import_a_module() -> None:
    forget("simulator.handling.provider_standin")
    with pytest.warns(DeprecationWarning, match="simulator.standins.longtail"):
        from simulator.handling import provider_standin
    from simulator.standins import longtail

    assert provider_standin is longtail
    assert provider_standin.KEY == "longtail"


def test_a_module_under_an_old_package_path_is_the_new_packages_module() -> None:
    """``simulator.proxy`` is ``simulator.auth_proxy``: its modules are found under the old path as the
    new package's own modules, never loaded a second time under the old name."""
    forget("simulator.proxy.forward")
    forget("simulator.proxy")
    with pytest.warns(DeprecationWarning, match="simulator.auth_proxy"):
        from simulator.proxy import forward
    from simulator.auth_proxy import forward as new_forward

    assert forward is new_forward
    assert forward.__name__ == "simulator.auth_proxy.forward"


# a folder that took a module's name: the package serves the module's names at the unchanged path
NAMED_AS_THE_MODULE_WAS = {
    "simulator.cli": "simulator.cli.wallet_simulator",
    "simulator.control": "simulator.control.views",
    "simulator.server": "simulator.server.simulator_server",
    "simulator.testing": "simulator.testing.helpers",
}


@pytest.mark.parametrize(("package", "module"), sorted(NAMED_AS_THE_MODULE_WAS.items()))
def test_a_folder_named_as_a_module_was_serves_its_names_without_a_warning(package: str, module: str) -> None:
    import warnings

    inner = importlib.import_module(module)
    public = [name for name in vars(inner) if not name.startswith("_")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outer = importlib.import_module(package)
        served = {name: getattr(outer, name) for name in public}
    assert all(served[name] is getattr(inner, name) for name in public)
    assert len(public) > 5


def test_the_entry_points_resolve_at_their_published_paths() -> None:
    """pyproject.toml's console script (``simulator.cli:main``) and pytest plugin (``simulator.pytest_plugin``)."""
    from simulator.cli import main
    from simulator.cli.wallet_simulator import main as wallet_simulator_main

    assert main is wallet_simulator_main
    plugin = importlib.import_module("simulator.pytest_plugin")
    assert plugin.__spec__.name == "simulator.pytest_plugin"
