"""simulator.testing's end-user helpers: encrypt an OTP code for verify_otp V2, open a credential
bundle, stamp with a session key. The first test is the README's OTP-login example, as written there.

What the helpers seal is opened here with cryptography's own HPKE (not the project's pyhpke); the
keys they recover are compared with what the simulator registered.
"""

from __future__ import annotations

import json

import pytest
from bundle_checks import independent_open
from conftest import DEFAULTS, ok, result_of
from support import assert_error

from simulator import testing
from simulator.crypto import keys

EMAIL = "alice@example.com"


def new_end_user(client) -> tuple[str, str]:
    """A sub-organization whose root user signs in by e-mail, as an app's backend makes one."""
    user = {"userName": "Alice", "userEmail": EMAIL, "apiKeys": [], "authenticators": [], "oauthProviders": []}
    params = {"subOrganizationName": "alice", "rootUsers": [user], "rootQuorumThreshold": 1}
    made = result_of(
        client.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", params),
        "createSubOrganizationResultV7",
    )
    return made["subOrganizationId"], made["rootUserIds"][0]


def test_otp_login_example(simulator_client, simulator_outbox, simulator):
    """The README's example, word for word: the backend (parent credentials) starts the OTP; the end
    user seals the code, logs in with a key of its own and acts in its sub-organization with it."""
    from simulator import testing

    backend = simulator_client
    result = lambda response: response.body["activity"]["result"]  # noqa: E731
    user = {
        "userName": "Alice",
        "userEmail": "alice@example.com",
        "apiKeys": [],
        "authenticators": [],
        "oauthProviders": [],
    }
    made = result(
        backend.submit(
            "create_sub_organization",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
            {"subOrganizationName": "alice", "rootUsers": [user], "rootQuorumThreshold": 1},
        )
    )
    sub_org_id = made["createSubOrganizationResultV7"]["subOrganizationId"]

    otp = result(
        backend.submit(
            "init_otp",
            "ACTIVITY_TYPE_INIT_OTP_V3",
            {"otpType": "OTP_TYPE_EMAIL", "contact": "alice@example.com", "appName": "Demo"},
        )
    )
    otp = otp["initOtpResultV2"]
    code = simulator_outbox.code("alice@example.com")

    key = testing.ClientKeyPair.generate()  # the end user's session key
    sealed = testing.encrypt_otp_code_to_bundle(code, otp["otpEncryptionTargetBundle"], key.public_key)
    verified = result(
        backend.submit(
            "verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2", {"otpId": otp["otpId"], "encryptedOtpBundle": sealed}
        )
    )
    token = verified["verifyOtpResult"]["verificationToken"]
    login = result(
        backend.submit(
            "otp_login",
            "ACTIVITY_TYPE_OTP_LOGIN_V2",
            {
                "verificationToken": token,
                "publicKey": key.public_key,
                "clientSignature": testing.login_client_signature(token, key.public_key, key.private_key),
            },
            organizationId=sub_org_id,
        )
    )
    session = login["otpLoginResult"]["session"]

    alice = testing.session_client(simulator.url, session, key.private_key)  # stamps with the session key
    assert alice.query("whoami").body["userId"] == made["createSubOrganizationResultV7"]["rootUserIds"][0]


def test_the_sealed_otp_code_opens_with_the_targets_key(client, simulator):
    new_end_user(client)
    otp = result_of(
        client.submit(
            "init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, "appName": "D"}
        ),
        "initOtpResultV2",
    )
    sealed = json.loads(
        testing.encrypt_otp_code_to_bundle("ABC123", otp["otpEncryptionTargetBundle"], "02" + "aa" * 32)
    )
    target = keys.ec_key_from_hex("p256", simulator.simulator.store.otps[otp["otpId"]].target_key)
    plain = independent_open(bytes.fromhex(sealed["encappedPublic"]), bytes.fromhex(sealed["ciphertext"]), target)
    assert json.loads(plain) == {"otp_code": "ABC123", "public_key": "02" + "aa" * 32}
    assert plain == b'{"otp_code":"ABC123","public_key":"02' + b"aa" * 32 + b'"}'  # @turnkey/crypto's exact bytes
    with pytest.raises(testing.BundleError, match="does not match signer key"):
        testing.encrypt_otp_code_to_bundle("x", otp["otpEncryptionTargetBundle"], "02", signer_public_key="04ab")


def test_a_credential_bundle_gives_a_working_stamper(client, simulator):
    sub_org_id, user_id = new_end_user(client)
    otp_id = result_of(
        client.submit(
            "init_otp_auth",
            "ACTIVITY_TYPE_INIT_OTP_AUTH_V3",
            {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, "appName": "D"},
            organizationId=sub_org_id,
        ),
        "initOtpAuthResultV2",
    )["otpId"]
    target = testing.ClientKeyPair.generate()
    params = {"otpId": otp_id, "otpCode": simulator.simulator.otp_code(EMAIL), "targetPublicKey": target.public_key}
    bundle = result_of(
        client.submit("otp_auth", "ACTIVITY_TYPE_OTP_AUTH", params, organizationId=sub_org_id), "otpAuthResult"
    )["credentialBundle"]
    stamper = testing.stamper_from_credential_bundle(bundle, target.private_key)
    registered = simulator.simulator.store.org(sub_org_id).users[user_id].api_keys.values()
    assert stamper.public_key in {k.public_key for k in registered}
    as_alice = testing.SimulatorClient(simulator.url, stamper, sub_org_id)
    assert ok(as_alice.query("whoami"))["userId"] == user_id
    with pytest.raises(testing.BundleError, match="does not open"):
        testing.decrypt_credential_bundle(bundle, testing.ClientKeyPair.generate().private_key)


def test_a_session_stamper_needs_the_sessions_key(client, simulator):
    key = testing.ClientKeyPair.generate()
    session = result_of(
        client.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": key.public_key}), "stampLoginResult"
    )["session"]
    assert testing.jwt_claims(session)["public_key"] == key.public_key
    ok(testing.session_client(simulator.url, session, key.private_key).query("whoami"))
    with pytest.raises(testing.BundleError, match="the session names public key"):
        testing.session_stamper(session, testing.ClientKeyPair.generate().private_key)
    stranger = testing.SimulatorClient(simulator.url, testing.ApiKeyStamper("11" * 32), DEFAULTS["organizationId"])
    assert_error(stranger.query("whoami"), 401, 16)
