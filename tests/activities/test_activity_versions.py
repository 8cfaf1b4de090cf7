"""Older activity-type versions the public swagger still defines: each is accepted at its endpoint,
checked against its own intent, run, and answered under its own result key with its own fields, as
clients released before a version bump expect (simulator/activities/versions.py).

Everything goes through HTTP with real stamps; bundles are opened with pyhpke (tests/support.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import DEFAULTS, ok, result_of
from lifecycle_helpers import allow, api_user
from support import EMAIL, ClientKey, assert_error, open_bundle, sub_org

from simulator.testing import ApiKeyStamper, PasskeyStamper, SimulatorClient

SANDBOX = "user@example.com"  # the documented sandbox contact: its code is always 000000


def completed(response: Any, activity_type: str, result_key: str) -> dict[str, Any]:
    """The result of a completed activity of ``activity_type``, which holds exactly ``result_key``."""
    activity = ok(response)["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_COMPLETED", activity
    assert activity["type"] == activity_type
    assert [k for k in activity["result"] if "Result" in k] == [result_key]  # not another version's
    return activity["result"][result_key]  # type: ignore[no-any-return]


def v1_authenticator(name: str, passkey: PasskeyStamper, challenge: str) -> dict[str, Any]:
    """An authenticator as v1 intents carry it: the browser's whole PublicKeyCredential."""
    attestation = passkey.attestation(challenge)
    return {
        "authenticatorName": name,
        "userId": "",
        "challenge": challenge,
        "attestation": {
            "id": attestation["credentialId"],
            "type": "public-key",
            "rawId": attestation["credentialId"],
            "response": {
                "clientDataJson": attestation["clientDataJson"],
                "attestationObject": attestation["attestationObject"],
                "transports": attestation["transports"],
            },
            "clientExtensionResults": {},
        },
    }


# --- one-time codes ------------------------------------------------------------------------------


def test_init_otp_v1_answers_init_otp_result_and_its_code_verifies(client, simulator):
    made = completed(
        client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP", {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL}),
        "ACTIVITY_TYPE_INIT_OTP",
        "initOtpResult",
    )
    assert set(made) == {"otpId"}  # no encryption target: that came with V3
    code = next(m["code"] for m in simulator.simulator.store.outbox if m["otpId"] == made["otpId"])
    verified = client.submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP", {"otpId": made["otpId"], "otpCode": code})
    assert result_of(verified, "verifyOtpResult")["verificationToken"]


@pytest.mark.parametrize(
    ("activity_type", "result_key", "extra"),
    [
        ("ACTIVITY_TYPE_INIT_OTP_AUTH", "initOtpAuthResult", {}),
        ("ACTIVITY_TYPE_INIT_OTP_AUTH_V2", "initOtpAuthResultV2", {"otpLength": 6, "alphanumeric": False}),
    ],
)
def test_init_otp_auth_old_versions_log_the_user_in(client, simulator, activity_type, result_key, extra):
    org_id, user_id = sub_org(client)
    params = {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, **extra}
    made = completed(
        client.submit("init_otp_auth", activity_type, params, organizationId=org_id), activity_type, result_key
    )
    code = simulator.simulator.store.outbox[-1]["code"]
    if extra:
        assert len(code) == 6 and code.isdigit()
    target = ClientKey()
    authed = client.submit(
        "otp_auth",
        "ACTIVITY_TYPE_OTP_AUTH",
        {"otpId": made["otpId"], "otpCode": code, "targetPublicKey": target.uncompressed},
        organizationId=org_id,
    )
    session = SimulatorClient(
        simulator.url,
        ApiKeyStamper(open_bundle(result_of(authed, "otpAuthResult")["credentialBundle"], target)),
        org_id,
    )
    assert ok(session.query("whoami"))["userId"] == user_id


@pytest.mark.parametrize(
    ("activity_type", "field", "value"),
    [
        ("ACTIVITY_TYPE_INIT_OTP_AUTH", "otpLength", 6),  # V2 added otpLength and alphanumeric
        ("ACTIVITY_TYPE_INIT_OTP_AUTH_V2", "appName", "Demo"),  # V3 added appName and expirationSeconds
        ("ACTIVITY_TYPE_INIT_OTP_AUTH_V2", "expirationSeconds", "300"),
    ],
)
def test_a_field_only_a_newer_version_has_is_refused_on_the_older_type(client, activity_type, field, value):
    org_id, _ = sub_org(client)
    params = {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, field: value}
    refused = client.submit("init_otp_auth", activity_type, params, organizationId=org_id)
    assert_error(refused, 400, 3, "parameters")
    assert simulator_outbox_is_empty(client, org_id)


def simulator_outbox_is_empty(client: SimulatorClient, org_id: str) -> bool:
    """No activity was kept for the refused request (a refused request changes nothing)."""
    activities = ok(client.query("list_activities", organizationId=org_id))["activities"]
    return all(a["type"] != "ACTIVITY_TYPE_INIT_OTP_AUTH" for a in activities)


def test_the_newest_required_field_is_not_required_of_an_older_type(client):
    org_id, _ = sub_org(client)
    params = {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL}  # V3 requires appName
    assert_error(
        client.submit("init_otp_auth", "ACTIVITY_TYPE_INIT_OTP_AUTH_V3", params, organizationId=org_id), 400, 3
    )
    assert ok(client.submit("init_otp_auth", "ACTIVITY_TYPE_INIT_OTP_AUTH_V2", params, organizationId=org_id))


# --- email auth and recovery ---------------------------------------------------------------------


@pytest.mark.parametrize("activity_type", ["ACTIVITY_TYPE_EMAIL_AUTH", "ACTIVITY_TYPE_EMAIL_AUTH_V2"])
def test_email_auth_old_versions_need_no_app_name(client, simulator, activity_type):
    org_id, user_id = sub_org(client)
    target = ClientKey()
    params = {"email": EMAIL, "targetPublicKey": target.uncompressed}  # V3 requires emailCustomization.appName
    made = completed(
        client.submit("email_auth", activity_type, params, organizationId=org_id), activity_type, "emailAuthResult"
    )
    assert made["userId"] == user_id and set(made) == {"userId", "apiKeyId"}
    mail = simulator.simulator.outbox(EMAIL)[-1]
    session = SimulatorClient(simulator.url, ApiKeyStamper(open_bundle(mail["credentialBundle"], target)), org_id)
    assert ok(session.query("whoami"))["userId"] == user_id


def test_init_user_email_recovery_v1(client, simulator):
    org_id, user_id = sub_org(client)
    params = {"email": EMAIL, "targetPublicKey": ClientKey().uncompressed}
    made = completed(
        client.submit(
            "init_user_email_recovery", "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY", params, organizationId=org_id
        ),
        "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY",
        "initUserEmailRecoveryResult",
    )
    assert made == {"userId": user_id}
    assert simulator.simulator.outbox(EMAIL)[-1]["channel"] == "EMAIL_RECOVERY"


# --- users and policies --------------------------------------------------------------------------


def test_create_users_v2_keys_carry_no_curve_type_and_are_p256(client, simulator):
    stamper = ApiKeyStamper("b0b0000000000000000000000000000000000000000000000000000000000001")
    user = {
        "userName": "Bob",
        "apiKeys": [{"apiKeyName": "bob", "publicKey": stamper.public_key}],
        "authenticators": [],
        "userTags": [],
    }
    made = completed(
        client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V2", {"users": [user]}),
        "ACTIVITY_TYPE_CREATE_USERS_V2",
        "createUsersResult",
    )
    as_bob = SimulatorClient(simulator.url, stamper, DEFAULTS["organizationId"])
    assert ok(as_bob.query("whoami"))["userId"] == made["userIds"][0]
    with_curve = {**user, "apiKeys": [{**user["apiKeys"][0], "curveType": "API_KEY_CURVE_P256"}]}
    assert_error(client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V2", {"users": [with_curve]}), 400, 3)


def test_create_users_v1_registers_a_passkey_given_as_a_whole_credential(client, simulator):
    passkey = PasskeyStamper("djEtcGFzc2tleQ", ClientKey().private)
    user = {
        "userName": "Carol",
        "accessType": "ACCESS_TYPE_WEB",
        "apiKeys": [],
        "authenticators": [v1_authenticator("carol's key", passkey, "chal")],
        "userTags": [],
    }
    made = completed(
        client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS", {"users": [user]}),
        "ACTIVITY_TYPE_CREATE_USERS",
        "createUsersResult",
    )
    as_carol = SimulatorClient(simulator.url, passkey, DEFAULTS["organizationId"])
    assert ok(as_carol.query("whoami"))["userId"] == made["userIds"][0]


def test_update_policy_v1_answers_update_policy_result(client):
    policy_id = allow(client, "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'", name="wallets")
    params = {"policyId": policy_id, "policyName": "wallets only", "policyEffect": "EFFECT_DENY"}
    made = completed(
        client.submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY", params),
        "ACTIVITY_TYPE_UPDATE_POLICY",
        "updatePolicyResult",
    )
    assert made == {"policyId": policy_id}
    stored = ok(client.query("get_policy", policyId=policy_id))["policy"]
    assert (stored["policyName"], stored["effect"]) == ("wallets only", "EFFECT_DENY")
    assert_error(client.submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY", {**params, "time": ""}), 400, 3)


def test_a_policy_sees_the_type_the_client_sent(client):
    _, as_bob = api_user(client, "Bob")
    allow(client, "activity.type == 'ACTIVITY_TYPE_INIT_OTP'")
    params = {"otpType": "OTP_TYPE_EMAIL", "contact": SANDBOX}
    sent = ok(as_bob.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP", params))["activity"]
    assert (sent["status"], sent["type"]) == ("ACTIVITY_STATUS_COMPLETED", "ACTIVITY_TYPE_INIT_OTP")
    assert list(sent["intent"]) == ["initOtpIntent"]
    newer = as_bob.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", {**params, "appName": "Demo"})
    assert_error(newer, 403, 7, "sufficient permissions")
