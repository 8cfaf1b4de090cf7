"""An activity type's policy-language view: ``activity.type``, ``.kind``, ``.resource``, ``.action``."""

from __future__ import annotations

import re
from typing import Any

from simulator.catalogue import Operation


def kind_of(activity_type: str) -> str:
    """``ACTIVITY_TYPE_CREATE_USERS_V3`` -> ``CREATE_USERS`` (the version-agnostic name)."""
    return re.sub(r"_V\d+$", "", activity_type.removeprefix("ACTIVITY_TYPE_"))


def policy_view(spec: Operation, activity_type: str, params: dict[str, Any]) -> dict[str, Any]:
    """What ``activity.*`` reads; resource and action come from the catalogue (the language's table)."""
    return {
        "type": activity_type,
        "kind": kind_of(activity_type),
        "resource": spec.resource,
        "action": spec.action,
        "params": params,
    }
