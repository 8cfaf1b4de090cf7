"""An activity type's policy-language view: ``activity.type``, ``.kind``, ``.resource``, ``.action``, ``.params``."""

from __future__ import annotations

from typing import Any

from simulator.operations.activity_types import kind_of
from simulator.operations.catalogue import Operation


def policy_view(spec: Operation, activity_type: str, params: dict[str, Any]) -> dict[str, Any]:
    """What ``activity.*`` reads; resource and action come from the catalogue (the language's table).

    ``params`` is read by the service's snake-case names (``activity.params.user_ids``), with the
    request's camelCase names as aliases, and a field the type does not have is an evaluation error
    (simulator.policy.params). Fields are converted when a policy first reads them.
    """
    # imported on first use: the policy language is not on serve's start path
    from simulator.policy.params import params_view

    return {
        "type": activity_type,
        "kind": kind_of(activity_type),
        "resource": spec.resource,
        "action": spec.action,
        "params": params_view(activity_type, params),
    }
