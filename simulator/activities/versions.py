"""Older versions of an activity type, served by the newest version's handler.

The service still accepts every version its public swagger defines (``ACTIVITY_TYPE_INIT_OTP``
beside ``..._V3``, ``ACTIVITY_TYPE_CREATE_USERS_V2`` beside ``..._V4``); clients released before a
version bump keep sending the old one. A request of an older version is validated against its own
intent (``schemas/submit/<op>.json``) and kept as it was sent: the activity's intent, ``activity.type``
and ``activity.params`` as policies read them. Only the handler sees it in the newest shape, and its
answer goes back under the version's result key (``x-activity-types``) in the version's fields.

``VERSIONS`` is the table of the differences, one row per version whose parameters or result differ
in more than fields the newer version only adds; a version that differs in nothing a handler reads
(``CREATE_USERS_V2``, ``EMAIL_AUTH_V2``, ``CREATE_SUB_ORGANIZATION_V4``..``V6``, ...) has no row.
``adapted`` wraps a handler (or a policy context) with its family's rows. Two versions add work of
their own rather than a reshaping, and stay with their handler: CREATE_SUB_ORGANIZATION_V3's private
keys (``suborgs``) and EXECUTE_SWAP v1's quote made on the spot (``swaps.quoted_now``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from simulator.handler_support.context import Context
from simulator.wire import Json

Handler = Callable[[Context, Json], Json]


def unchanged(_ctx: Context, value: Json) -> Json:
    return value


@dataclass(frozen=True)
class Version:
    """How one older version differs: its parameters made the newest shape, its result made its own."""

    params: Callable[[Context, Json], Json] = unchanged
    result: Callable[[Context, Json], Json] = unchanged


# --- parameters --------------------------------------------------------------------------------------


def sign_with_private_key(_ctx: Context, params: Json) -> Json:
    """SIGN_RAW_PAYLOAD, SIGN_TRANSACTION: ``privateKeyId`` is what ``signWith`` later also took."""
    rest = {k: v for k, v in params.items() if k != "privateKeyId"}
    return {**rest, "signWith": params["privateKeyId"]}


def attestation_v2(authenticator: Json) -> Json:
    """A v1 authenticator (the browser's whole PublicKeyCredential) as the v2 ``attestation`` it carries."""
    credential = authenticator["attestation"]
    response = credential["response"]
    return {
        "authenticatorName": authenticator["authenticatorName"],
        "challenge": authenticator["challenge"],
        "attestation": {
            "credentialId": credential["id"],
            "clientDataJson": response["clientDataJson"],
            "attestationObject": response["attestationObject"],
            "transports": list(response.get("transports") or []),
        },
    }


def authenticators_v2(_ctx: Context, params: Json) -> Json:
    """CREATE_AUTHENTICATORS: each authenticator in the v2 shape (its own ``userId`` is the request's)."""
    return {**params, "authenticators": [attestation_v2(a) for a in params["authenticators"]]}


def users_v2(_ctx: Context, params: Json) -> Json:
    """CREATE_USERS: v2 users (no ``accessType``; v1 authenticators as v2's)."""
    users = [
        {
            **{k: v for k, v in user.items() if k != "accessType"},
            "authenticators": [attestation_v2(a) for a in user["authenticators"]],
        }
        for user in params["users"]
    ]
    return {**params, "users": users}


def single_root_user(_ctx: Context, params: Json) -> Json:
    """CREATE_SUB_ORGANIZATION (v1): one root user holding ``rootAuthenticator``, a quorum of one.
    The intent names no user; the simulator calls it after its passkey."""
    authenticator = params["rootAuthenticator"]
    root = {"userName": authenticator["authenticatorName"], "apiKeys": [], "authenticators": [authenticator]}
    return {"subOrganizationName": params["name"], "rootUsers": [root], "rootQuorumThreshold": 1}


OPERATORS = {
    "OPERATOR_EQUAL": "{s} == {t}",
    "OPERATOR_NOT_EQUAL": "{s} != {t}",
    "OPERATOR_MORE_THAN": "{s} > {t}",
    "OPERATOR_MORE_THAN_OR_EQUAL": "{s} >= {t}",
    "OPERATOR_LESS_THAN": "{s} < {t}",
    "OPERATOR_LESS_THAN_OR_EQUAL": "{s} <= {t}",
    "OPERATOR_CONTAINS": "{s}.contains({t})",
    "OPERATOR_IN": "{s} in {t}",
    "OPERATOR_NOT_IN": "!({s} in {t})",
    "OPERATOR_CONTAINS_ONE": "{s}.any(x, x in {t})",
    "OPERATOR_CONTAINS_ALL": "{t}.all(x, x in {s})",
}
LISTS = {"OPERATOR_IN", "OPERATOR_NOT_IN", "OPERATOR_CONTAINS_ONE", "OPERATOR_CONTAINS_ALL"}


def literal(value: str) -> str:
    """A selector's target as a policy-language literal: a number stays one, anything else is a string."""
    try:
        float(value)
    except ValueError:
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return value


def clause(selector: Json) -> str:
    """One selector (v1 ``target`` or v2 ``targets``) as a condition of the policy language."""
    operator = selector.get("operator", "OPERATOR_EQUAL")
    targets = selector["targets"] if "targets" in selector else [selector.get("target", "")]
    if operator in LISTS:
        target = "[" + ", ".join(literal(str(t)) for t in targets) + "]"
    else:
        target = literal(str(targets[0])) if targets else "''"
    return "(" + OPERATORS[operator].format(s=selector.get("subject", ""), t=target) + ")"


def condition_from_selectors(_ctx: Context, params: Json) -> Json:
    """CREATE_POLICY (v1, v2): selectors, all of which must hold, as one v3 ``condition``."""
    return {
        "policyName": params["policyName"],
        "effect": params["effect"],
        "condition": " && ".join(clause(s) for s in params["selectors"]),
        "notes": params.get("notes", ""),
    }


# --- results ------------------------------------------------------------------------------------------


def private_key_ids(_ctx: Context, result: Json) -> Json:
    """CREATE_PRIVATE_KEYS (v1): the ids only (``createPrivateKeysResult``)."""
    return {"privateKeyIds": [key["privateKeyId"] for key in result["privateKeys"]]}


VERSIONS: dict[str, Version] = {
    "ACTIVITY_TYPE_CREATE_USERS": Version(params=users_v2),
    "ACTIVITY_TYPE_CREATE_AUTHENTICATORS": Version(params=authenticators_v2),
    "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION": Version(params=single_root_user),
    "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS": Version(result=private_key_ids),
    "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD": Version(params=sign_with_private_key),
    "ACTIVITY_TYPE_SIGN_TRANSACTION": Version(params=sign_with_private_key),
    "ACTIVITY_TYPE_CREATE_POLICY": Version(params=condition_from_selectors),
    "ACTIVITY_TYPE_CREATE_POLICY_V2": Version(params=condition_from_selectors),
}


def adapted(handler: Handler) -> Handler:
    """The handler, taking every version of its activity type: the version's row (if any) makes the
    parameters the newest shape before it runs and the result the version's after."""

    @functools.wraps(handler)
    def run(ctx: Context, params: Json) -> Json:
        version = VERSIONS.get(ctx.activity_type)
        if version is None:
            return handler(ctx, params)
        return version.result(ctx, handler(ctx, version.params(ctx, params)))

    return run
