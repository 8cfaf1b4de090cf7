"""The catalogue's handlers by name and by reference: simulator/handler_index.py is generated from
the catalogue (``python tools/handler_index.py``), and every name resolves to a function of its
kind's signature."""

from __future__ import annotations

import importlib.util
import inspect
import typing
from pathlib import Path

import pytest

from simulator.clock import Source
from simulator.handler_support.context import Context
from simulator.handler_support.query_context import QueryContext
from simulator.operations import catalogue
from simulator.operations.catalogue import Kind
from simulator.pipeline import Services
from simulator.wire import Json

TOOL = Path(__file__).resolve().parents[2] / "tools" / "handler_index.py"

# (kind, field of the operation) -> the parameter types and, where fixed, the return type
SIGNATURES: dict[tuple[Kind, str], tuple[tuple[object, ...], object]] = {
    (Kind.SUBMIT, "handler"): ((Context, Json), Json),
    (Kind.SUBMIT, "preparer"): ((Source, Json), None),
    (Kind.SUBMIT, "policy_context"): ((Context, Json), Json),
    (Kind.QUERY, "handler"): ((QueryContext, Json), Json),
    (Kind.PROXY, "handler"): ((Services, Json, Json), Json),
}


def test_the_handler_index_is_the_catalogue():
    spec = importlib.util.spec_from_file_location("handler_index_tool", TOOL)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.main(["--check"]) == 0, "simulator/handler_index.py is stale: run python tools/handler_index.py"


@pytest.mark.parametrize(("kind", "field"), list(SIGNATURES), ids=[f"{k.value}-{f}" for k, f in SIGNATURES])
def test_every_name_in_the_catalogue_resolves_to_a_function_of_its_kinds_signature(kind: Kind, field: str):
    wanted_params, wanted_return = SIGNATURES[(kind, field)]
    names = sorted({name for op in catalogue.of_kind(kind) if (name := getattr(op, field))})
    assert names
    for name in names:
        function = catalogue.resolve(kind, name)
        assert inspect.isfunction(function), name
        hints = typing.get_type_hints(function)
        params = [p.name for p in inspect.signature(function).parameters.values()]
        assert tuple(hints.get(p) for p in params) == wanted_params, name
        if wanted_return is not None:
            assert hints.get("return") == wanted_return, name
