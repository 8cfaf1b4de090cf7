"""Activity types as the endpoint schemas declare them: each type's version-free kind, each type's
parameters schema and each submit operation's types, read once from ``schemas/submit/*.json``.

The one reader of those files' ``allOf`` branches (``if type == X then parameters ...``) and
``x-activity-types``: the policy language's ``activity.params`` shapes (``simulator.policy.params``)
and the names scenario checks compare against (``simulator.scenario.api_names``) both read this.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from simulator.paths import data_dir


def kind_of(activity_type: str) -> str:
    """``ACTIVITY_TYPE_CREATE_USERS_V3`` -> ``CREATE_USERS``: the version-free name (``activity.kind``,
    and what a scripted rule's or a fault's ``type`` may name)."""
    return re.sub(r"_V\d+$", "", activity_type.removeprefix("ACTIVITY_TYPE_"))


@dataclass(frozen=True)
class SubmitSchemas:
    # activity type -> its parameters schema; None: a type in x-activity-types without a branch of its own
    parameters: dict[str, Any]
    # submit operation -> the activity types it accepts (its x-activity-types, in order)
    types: dict[str, tuple[str, ...]]


@lru_cache(maxsize=1)
def submit_schemas() -> SubmitSchemas:
    """Every submit schema's activity types and their parameters schemas, in file and branch order."""
    parameters: dict[str, Any] = {}
    types: dict[str, tuple[str, ...]] = {}
    for path in sorted((data_dir("schemas") / "submit").glob("*.json")):
        schema = json.loads(path.read_text())
        types[path.stem] = tuple(schema.get("x-activity-types", {}))
        for branch in schema.get("allOf", []):
            activity_type = branch.get("if", {}).get("properties", {}).get("type", {}).get("const")
            if isinstance(activity_type, str) and activity_type:
                parameters[activity_type] = branch.get("then", {}).get("properties", {}).get("parameters")
        for activity_type in types[path.stem]:
            parameters.setdefault(activity_type, None)
    return SubmitSchemas(parameters, types)
