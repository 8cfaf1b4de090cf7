"""An activity type's policy-language view: ``activity.kind``, ``.resource`` and ``.action``."""

from __future__ import annotations

import re

# Where the policy language's table differs from the noun in the type name (language docs).
_RESOURCES = {
    "USERS": "USER",
    "USER_TAG": "USER",
    "API_ONLY_USERS": "USER",
    "API_KEYS": "CREDENTIAL",
    "AUTHENTICATORS": "CREDENTIAL",
    "OAUTH_PROVIDERS": "CREDENTIAL",
    "POLICIES": "POLICY",
    "INVITATIONS": "INVITATION",
    "WALLET_ACCOUNTS": "WALLET",
    "PRIVATE_KEYS": "PRIVATE_KEY",
    "PRIVATE_KEY_TAG": "PRIVATE_KEY",
    "OAUTH2_CREDENTIAL": "AUTH",
    "FIAT_ON_RAMP_CREDENTIAL": "ON_RAMP_CREDENTIALS",
    "ORGANIZATION_FEATURE": "ORGANIZATION",
    "ROOT_QUORUM": "ORGANIZATION",
    "ORGANIZATION_NAME": "ORGANIZATION",
    "SUB_ORGANIZATION": "ORGANIZATION",
    "READ_WRITE_SESSION": "AUTH",
    "READ_ONLY_SESSION": "AUTH",
    "WEBHOOK_ENDPOINT": "WEBHOOK_ENDPOINT",
}
_WHOLE = {
    "OTP_AUTH": ("AUTH", "CREATE"),
    "OAUTH_LOGIN": ("AUTH", "CREATE"),
    "OTP_LOGIN": ("AUTH", "CREATE"),
    "STAMP_LOGIN": ("AUTH", "CREATE"),
    "OAUTH2_AUTHENTICATE": ("AUTH", "CREATE"),
    "EMAIL_AUTH": ("AUTH", "CREATE"),
    "INIT_OTP": ("OTP", "CREATE"),
    "INIT_OTP_AUTH": ("OTP", "CREATE"),
    "VERIFY_OTP": ("OTP", "VERIFY"),
    "SIGN_RAW_PAYLOAD": ("PRIVATE_KEY", "SIGN"),
    "SIGN_RAW_PAYLOADS": ("PRIVATE_KEY", "SIGN"),
    "SIGN_TRANSACTION": ("PRIVATE_KEY", "SIGN"),
    "APPROVE_ACTIVITY": ("ACTIVITY", "APPROVE"),
    "REJECT_ACTIVITY": ("ACTIVITY", "REJECT"),
}
_ACTIONS = ("CREATE", "UPDATE", "DELETE", "SET", "REMOVE", "EXPORT", "IMPORT", "SIGN", "INIT", "VERIFY")
ROOT_QUORUM_ONLY = {
    "SET_ORGANIZATION_FEATURE",
    "REMOVE_ORGANIZATION_FEATURE",
    "UPDATE_ROOT_QUORUM",
    "UPDATE_ORGANIZATION_NAME",
}


def kind_of(activity_type: str) -> str:
    """``ACTIVITY_TYPE_CREATE_USERS_V3`` -> ``CREATE_USERS`` (the version-agnostic name)."""
    return re.sub(r"_V\d+$", "", activity_type.removeprefix("ACTIVITY_TYPE_"))


def resource_action(activity_type: str) -> tuple[str, str]:
    kind = kind_of(activity_type)
    if kind in _WHOLE:
        return _WHOLE[kind]
    verb, _, noun = kind.partition("_")
    action = {"SET": "UPDATE", "REMOVE": "DELETE", "INIT": "CREATE"}.get(verb, verb)
    if verb not in _ACTIONS:
        return kind, "CREATE"
    return _RESOURCES.get(noun, noun), action


def policy_view(activity_type: str, params: dict[str, object]) -> dict[str, object]:
    resource, action = resource_action(activity_type)
    return {
        "type": activity_type,
        "kind": kind_of(activity_type),
        "resource": resource,
        "action": action,
        "params": params,
    }
