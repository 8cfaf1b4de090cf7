"""Helpers shared by the organization-lifecycle tests: users with keys, sub-organizations, policies."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from conftest import ok, result_of

from simulator.testing import ApiKeyStamper, SimulatorClient

DEFAULTS: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parent.parent / "fixtures" / "default_credentials.json").read_text()
)
KEYS = {  # throwaway P-256 scalars for test users
    "bob": "b0b0000000000000000000000000000000000000000000000000000000000001",
    "carol": "ca40100000000000000000000000000000000000000000000000000000000001",
    "dave": "da4e000000000000000000000000000000000000000000000000000000000001",
    "erin": "e4120000000000000000000000000000000000000000000000000000000000001"[:64],
}
ORG = DEFAULTS["organizationId"]
ROOT_USER = DEFAULTS["userId"]


def api_user(client: SimulatorClient, name: str, key: str | None = None, **extra: Any) -> tuple[str, SimulatorClient]:
    """A non-root user of the client's organization with a P-256 API key, and a client stamping as them."""
    stamper = ApiKeyStamper(key or KEYS[name.lower()])
    user = {
        "userName": name,
        "apiKeys": [{"apiKeyName": name, "publicKey": stamper.public_key, "curveType": "API_KEY_CURVE_P256"}],
        "authenticators": [],
        "oauthProviders": [],
        "userTags": [],
        **extra,
    }
    made = result_of(
        client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [user]}), "createUsersResult"
    )
    return made["userIds"][0], SimulatorClient(client.base_url, stamper, client.organization_id)


def sub_org(
    client: SimulatorClient, name: str, key: str | None = None, **user: Any
) -> tuple[str, str, SimulatorClient | None]:
    """A sub-organization whose root user carries ``user`` fields (and an API key if ``key``)."""
    stamper = ApiKeyStamper(key) if key else None
    keys = [{"apiKeyName": "k", "publicKey": stamper.public_key, "curveType": "API_KEY_CURVE_P256"}] if stamper else []
    root = {"userName": f"{name} root", "apiKeys": keys, "authenticators": [], "oauthProviders": [], **user}
    params = {"subOrganizationName": name, "rootUsers": [root], "rootQuorumThreshold": 1}
    made = result_of(
        client.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", params),
        "createSubOrganizationResultV7",
    )
    org_id = made["subOrganizationId"]
    as_root = SimulatorClient(client.base_url, stamper, org_id) if stamper else None
    return org_id, made["rootUserIds"][0], as_root


def allow(client: SimulatorClient, condition: str, name: str = "allow") -> str:
    params = {"policyName": name, "effect": "EFFECT_ALLOW", "condition": condition, "consensus": "", "notes": ""}
    return result_of(client.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", params), "createPolicyResult")[
        "policyId"
    ]


def verification_token(client: SimulatorClient, store: Any, contact: str, otp_type: str = "OTP_TYPE_EMAIL") -> str:
    """An OTP run by the client's organization: init, the code from the outbox, verify."""
    params = {"otpType": otp_type, "contact": contact, "appName": "Demo"}
    otp_id = result_of(
        client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", params, timestampMs=str(time.time_ns() // 1_000_000)),
        "initOtpResult",
    )["otpId"]
    code = next(m["code"] for m in store.outbox if m["otpId"] == otp_id)
    verified = client.submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP", {"otpId": otp_id, "otpCode": code})
    return str(result_of(verified, "verifyOtpResult")["verificationToken"])


def status_of(response: Any) -> str:
    return str(ok(response)["activity"]["status"])
