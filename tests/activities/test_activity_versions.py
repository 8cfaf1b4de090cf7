"""Older activity-type versions the public swagger still defines: each is accepted at its endpoint,
checked against its own intent, run, and answered under its own result key with its own fields, as
clients released before a version bump expect (simulator/activities/versions.py).

Everything goes through HTTP with real stamps; bundles are opened with pyhpke (tests/support.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import rlp  # type: ignore[import-untyped]
from conftest import DEFAULTS, ETH_ACCOUNT, new_user, ok, result_of
from eth_account import Account
from lifecycle_helpers import allow, api_user
from support import EMAIL, ClientKey, assert_error, new_wallet, open_bundle, sub_org

from simulator.operations.activity_types import kind_of, submit_schemas
from simulator.standins import longtail
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


# --- sub-organizations ---------------------------------------------------------------------------

ROOT_KEY = "ca40100000000000000000000000000000000000000000000000000000000001"
WALLET = {"walletName": "Default", "accounts": [ETH_ACCOUNT]}


def root_user(version: str, stamper: ApiKeyStamper) -> dict[str, Any]:
    """A root user in the shape of ``version``: API keys with a curve type from V6, OAuth providers from V5."""
    key: dict[str, Any] = {"apiKeyName": "k", "publicKey": stamper.public_key}
    if version in ("_V6",):
        key["curveType"] = "API_KEY_CURVE_P256"
    user: dict[str, Any] = {"userName": "root", "userEmail": EMAIL, "apiKeys": [key], "authenticators": []}
    if version in ("_V5", "_V6"):
        user["oauthProviders"] = []
    return user


@pytest.mark.parametrize(
    ("version", "result_key", "with_wallet"),
    [
        ("_V2", "createSubOrganizationResult", False),
        ("_V4", "createSubOrganizationResultV4", True),
        ("_V5", "createSubOrganizationResultV5", True),
        ("_V6", "createSubOrganizationResultV6", True),
    ],
)
def test_create_sub_organization_old_versions(client, simulator, version, result_key, with_wallet):
    stamper = ApiKeyStamper(ROOT_KEY)
    params: dict[str, Any] = {
        "subOrganizationName": f"org{version}",
        "rootUsers": [root_user(version, stamper)],
        "rootQuorumThreshold": 1,
    }
    if with_wallet:
        params["wallet"] = WALLET
    activity_type = "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION" + version
    made = completed(client.submit("create_sub_organization", activity_type, params), activity_type, result_key)
    assert set(made) == {"subOrganizationId", "rootUserIds", *(["wallet"] if with_wallet else [])}
    if with_wallet:
        assert made["wallet"]["addresses"][0].startswith("0x")
    as_root = SimulatorClient(simulator.url, stamper, made["subOrganizationId"])
    assert ok(as_root.query("whoami"))["userId"] == made["rootUserIds"][0]


def test_create_sub_organization_v3_makes_its_private_keys(client, simulator):
    stamper = ApiKeyStamper(ROOT_KEY)
    key = {
        "privateKeyName": "signer",
        "curve": "CURVE_SECP256K1",
        "privateKeyTags": [],
        "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
    }
    params = {
        "subOrganizationName": "org v3",
        "rootUsers": [root_user("_V3", stamper)],
        "rootQuorumThreshold": 1,
        "privateKeys": [key],
    }
    activity_type = "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V3"
    made = completed(
        client.submit("create_sub_organization", activity_type, params), activity_type, "createSubOrganizationResultV3"
    )
    [private_key] = made["privateKeys"]
    assert private_key["addresses"][0]["format"] == "ADDRESS_FORMAT_ETHEREUM"
    as_root = SimulatorClient(simulator.url, stamper, made["subOrganizationId"])
    listed = ok(as_root.query("list_private_keys"))["privateKeys"]
    assert [k["privateKeyId"] for k in listed] == [private_key["privateKeyId"]]


def test_create_sub_organization_v1_makes_one_root_user_with_the_passkey(client, simulator):
    passkey = PasskeyStamper("c3ViLW9yZy12MQ", ClientKey().private)
    authenticator = {"authenticatorName": "laptop", "challenge": "c", "attestation": passkey.attestation("c")}
    params = {"name": "org v1", "rootAuthenticator": authenticator}
    activity_type = "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION"
    made = completed(
        client.submit("create_sub_organization", activity_type, params), activity_type, "createSubOrganizationResult"
    )
    as_root = SimulatorClient(simulator.url, passkey, made["subOrganizationId"])
    assert ok(as_root.query("whoami"))["userId"] == made["rootUserIds"][0]
    organization = ok(as_root.query("get_organization"))["organizationData"]
    assert organization["name"] == "org v1"


# --- credentials and sessions --------------------------------------------------------------------


def test_create_api_keys_v1_keys_are_p256(client, simulator):
    stamper = ApiKeyStamper("da4e000000000000000000000000000000000000000000000000000000000001")
    params = {"userId": DEFAULTS["userId"], "apiKeys": [{"apiKeyName": "v1 key", "publicKey": stamper.public_key}]}
    made = completed(
        client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS", params),
        "ACTIVITY_TYPE_CREATE_API_KEYS",
        "createApiKeysResult",
    )
    assert len(made["apiKeyIds"]) == 1
    as_key = SimulatorClient(simulator.url, stamper, DEFAULTS["organizationId"])
    assert ok(as_key.query("whoami"))["userId"] == DEFAULTS["userId"]


def test_create_authenticators_v1_takes_the_whole_credential(client, simulator):
    passkey = PasskeyStamper("YXV0aC12MQ", ClientKey().private)
    params = {"userId": DEFAULTS["userId"], "authenticators": [v1_authenticator("v1", passkey, "challenge-1")]}
    made = completed(
        client.submit("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS", params),
        "ACTIVITY_TYPE_CREATE_AUTHENTICATORS",
        "createAuthenticatorsResult",
    )
    assert len(made["authenticatorIds"]) == 1
    as_passkey = SimulatorClient(simulator.url, passkey, DEFAULTS["organizationId"])
    assert ok(as_passkey.query("whoami"))["userId"] == DEFAULTS["userId"]


def test_create_read_write_session_v1_names_the_user_by_email(client, simulator):
    user_id = new_user(client, "Dana", userEmail="dana@example.com")
    target = ClientKey()
    params = {"targetPublicKey": target.uncompressed, "email": "dana@example.com"}
    made = completed(
        client.submit("create_read_write_session", "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION", params),
        "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION",
        "createReadWriteSessionResult",
    )
    assert (made["userId"], made["username"]) == (user_id, "Dana")
    session = SimulatorClient(
        simulator.url, ApiKeyStamper(open_bundle(made["credentialBundle"], target)), DEFAULTS["organizationId"]
    )
    assert ok(session.query("whoami"))["userId"] == user_id


# --- policies ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("activity_type", "selector", "condition"),
    [
        (
            "ACTIVITY_TYPE_CREATE_POLICY",
            {"subject": "activity.type", "operator": "OPERATOR_EQUAL", "target": "ACTIVITY_TYPE_CREATE_WALLET"},
            "(activity.type == 'ACTIVITY_TYPE_CREATE_WALLET')",
        ),
        (
            "ACTIVITY_TYPE_CREATE_POLICY_V2",
            {"subject": "activity.type", "operator": "OPERATOR_IN", "targets": ["ACTIVITY_TYPE_CREATE_WALLET"]},
            "(activity.type in ['ACTIVITY_TYPE_CREATE_WALLET'])",
        ),
    ],
)
def test_create_policy_selectors_become_the_condition_they_state(client, activity_type, selector, condition):
    _, as_bob = api_user(client, "Bob")
    wallet = {"walletName": "bob's", "accounts": []}
    assert_error(as_bob.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet), 403, 7)
    params = {"policyName": "wallets", "selectors": [selector], "effect": "EFFECT_ALLOW", "notes": ""}
    made = completed(client.submit("create_policy", activity_type, params), activity_type, "createPolicyResult")
    assert ok(client.query("get_policy", policyId=made["policyId"]))["policy"]["condition"] == condition
    assert ok(as_bob.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet))["activity"]["status"] == (
        "ACTIVITY_STATUS_COMPLETED"
    )


# --- private keys and signing --------------------------------------------------------------------

SECP256K1_KEY = {
    "privateKeyName": "signer",
    "curve": "CURVE_SECP256K1",
    "privateKeyTags": [],
    "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
}


@pytest.fixture
def private_key_id(client) -> str:
    made = completed(
        client.submit("create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS", {"privateKeys": [SECP256K1_KEY]}),
        "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS",
        "createPrivateKeysResult",
    )
    assert set(made) == {"privateKeyIds"}  # the addresses came with V2
    return str(made["privateKeyIds"][0])


def test_sign_raw_payload_v1_signs_with_the_private_key_it_names(client, private_key_id):
    payload = {"payload": "ab" * 32, "encoding": "PAYLOAD_ENCODING_HEXADECIMAL", "hashFunction": "HASH_FUNCTION_NO_OP"}
    old = completed(
        client.submit(
            "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD", {"privateKeyId": private_key_id, **payload}
        ),
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD",
        "signRawPayloadResult",
    )
    address = ok(client.query("get_private_key", privateKeyId=private_key_id))["privateKey"]["addresses"][0]["address"]
    signature = bytes.fromhex(old["r"] + old["s"]) + bytes([int(old["v"], 16) + 27])
    assert Account._recover_hash(bytes.fromhex(payload["payload"]), signature=signature) == address


def test_a_policy_on_the_signing_key_reads_a_v1_request(client, private_key_id):
    _, as_bob = api_user(client, "Bob")
    allow(client, f"activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD' && private_key.id == '{private_key_id}'")
    payload = {"payload": "cd" * 32, "encoding": "PAYLOAD_ENCODING_HEXADECIMAL", "hashFunction": "HASH_FUNCTION_NO_OP"}
    signed = as_bob.submit(
        "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD", {"privateKeyId": private_key_id, **payload}
    )
    completed(signed, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD", "signRawPayloadResult")


def test_sign_transaction_v1_signs_with_the_private_key_it_names(client, private_key_id):
    unsigned = rlp.encode([0, 10**9, 21000, bytes.fromhex("ab" * 20), 1, b"", 1, 0, 0]).hex()
    params = {"privateKeyId": private_key_id, "type": "TRANSACTION_TYPE_ETHEREUM", "unsignedTransaction": unsigned}
    made = completed(
        client.submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION", params),
        "ACTIVITY_TYPE_SIGN_TRANSACTION",
        "signTransactionResult",
    )
    address = ok(client.query("get_private_key", privateKeyId=private_key_id))["privateKey"]["addresses"][0]["address"]
    assert Account.recover_transaction(bytes.fromhex(made["signedTransaction"])) == address


# --- swaps ---------------------------------------------------------------------------------------

BASE_WETH = "eip155:8453/erc20:0x4200000000000000000000000000000000000006"


def test_execute_swap_v1_prices_and_executes_at_once(client):
    address = new_wallet(client, "swapper", [ETH_ACCOUNT])["addresses"][0]
    params = {
        "inputToken": longtail.BASE_USDC,
        "outputToken": BASE_WETH,
        "inputAmount": "1000000",
        "walletAccount": address,
        "minOutputAmount": "1",
    }
    made = completed(
        client.submit("execute_swap", "ACTIVITY_TYPE_EXECUTE_SWAP", params),
        "ACTIVITY_TYPE_EXECUTE_SWAP",
        "executeSwapResult",
    )
    assert made["provider"] == "relay" and made["quoteId"].startswith("sq_v1_")
    status = ok(client.query("get_swap_status", swapRequestId=made["swapRequestId"]))
    assert status["status"] == "PENDING"
    too_much = client.submit("execute_swap", "ACTIVITY_TYPE_EXECUTE_SWAP", {**params, "minOutputAmount": str(10**30)})
    assert_error(too_much, 400, 3, "below minOutputAmount")


# --- the whole list ------------------------------------------------------------------------------

SWAGGER = Path(__file__).resolve().parents[2] / "schemas" / "source" / "public_api.swagger.json"
WITHOUT_AN_ENDPOINT = {
    "ACTIVITY_TYPE_ACCEPT_INVITATION",
    "ACTIVITY_TYPE_ACCEPT_INVITATION_V2",
    "ACTIVITY_TYPE_ACTIVATE_BILLING_TIER",
    "ACTIVITY_TYPE_CREATE_ORGANIZATION",
    "ACTIVITY_TYPE_CREATE_ORGANIZATION_V2",
    "ACTIVITY_TYPE_DELETE_ORGANIZATION",
    "ACTIVITY_TYPE_DELETE_PAYMENT_METHOD",
    "ACTIVITY_TYPE_DISABLE_AUTH_PROXY",
    "ACTIVITY_TYPE_DISABLE_PRIVATE_KEY",
    "ACTIVITY_TYPE_ENABLE_AUTH_PROXY",
    "ACTIVITY_TYPE_SET_PAYMENT_METHOD",
    "ACTIVITY_TYPE_SET_PAYMENT_METHOD_V2",
    "ACTIVITY_TYPE_UPDATE_ALLOWED_ORIGINS",
    "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG",
    "ACTIVITY_TYPE_UPDATE_WALLET_ACCOUNT_NAME",
    "ACTIVITY_TYPE_UPSERT_GAS_USAGE_CONFIG",
}


def test_every_type_of_the_swagger_is_accepted_at_its_endpoint_but_those_without_one():
    enum = json.loads(SWAGGER.read_text())["definitions"]["v1ActivityType"]["enum"]
    accepted = submit_schemas().types
    everywhere = {t for types in accepted.values() for t in types}
    assert set(enum) - everywhere == WITHOUT_AN_ENDPOINT
    for op, types in accepted.items():  # one type runs on one URL, the URL of its kind
        assert len({kind_of(t) for t in types} - {"ETH_UNDELEGATE7702"}) == 1, op


def test_a_type_without_an_endpoint_is_refused(client):
    refused = client.submit("create_invitations", "ACTIVITY_TYPE_ACCEPT_INVITATION", {"invitationId": "x"})
    assert_error(refused, 400, 3, "type")
