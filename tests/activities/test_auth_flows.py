"""End-user authentication through the main interface: OTP, OAuth, passkey sessions, sub-orgs.

Credential bundles are opened with pyhpke (an independent HPKE implementation) and session
JWTs parsed and verified the way the official clients do it, written here from the published
algorithm, not with the simulator's code.
"""

from __future__ import annotations

import json
import time

import pytest
from conftest import DEFAULTS, ok, result_of
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from support import EMAIL, ClientKey, assert_error, atob_json, open_bundle, seal_to_target, sub_org, verify_session

from simulator.crypto import service_keys
from simulator.standins import oauth_provider
from simulator.testing import ApiKeyStamper, PasskeyStamper, SimulatorClient


def init_otp(client, contact=EMAIL, **extra):
    params = {"otpType": "OTP_TYPE_EMAIL", "contact": contact, "appName": "Demo", **extra}
    return client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", params, timestampMs=str(time.time_ns() // 1_000_000))


def test_otp_login_end_to_end(client, simulator):
    """init (parent) → code from the outbox → verify → login (sub-org) → stamp with the session key."""
    org_id, user_id = sub_org(client)
    otp_id = result_of(init_otp(client), "initOtpResult")["otpId"]
    sent = simulator.simulator.store.outbox[-1]
    assert (sent["contact"], sent["channel"], sent["otpId"]) == (EMAIL, "OTP_TYPE_EMAIL", otp_id)
    assert len(sent["code"]) == 9
    session_key = ClientKey()
    token = result_of(
        client.submit(
            "verify_otp",
            "ACTIVITY_TYPE_VERIFY_OTP",
            {"otpId": otp_id, "otpCode": sent["code"], "publicKey": session_key.public},
        ),
        "verifyOtpResult",
    )["verificationToken"]
    claims = atob_json(token.split(".")[1])
    assert (claims["contact"], claims["verification_type"], claims["public_key"]) == (
        EMAIL,
        "OTP_TYPE_EMAIL",
        session_key.public,
    )
    message = json.dumps(
        {"login": {"publicKey": session_key.public}, "tokenId": claims["id"], "type": "USAGE_TYPE_LOGIN"}
    )
    signature = {
        "publicKey": session_key.public,
        "scheme": "CLIENT_SIGNATURE_SCHEME_API_P256",
        "message": message,
        "signature": session_key.raw_signature(message),
    }
    session = result_of(
        client.submit(
            "otp_login",
            "ACTIVITY_TYPE_OTP_LOGIN",
            {"verificationToken": token, "publicKey": session_key.public, "clientSignature": signature},
            organizationId=org_id,
        ),
        "otpLoginResult",
    )["session"]
    payload = verify_session(session)
    assert (payload["user_id"], payload["organization_id"], payload["public_key"], payload["session_type"]) == (
        user_id,
        org_id,
        session_key.public,
        "SESSION_TYPE_READ_WRITE",
    )
    assert payload["exp"] == int(time.time()) + 900 or abs(payload["exp"] - time.time() - 900) < 5
    as_alice = SimulatorClient(simulator.url, ApiKeyStamper(session_key.private), org_id)
    assert ok(as_alice.query("whoami"))["userId"] == user_id
    simulator.simulator.clock.advance(901)
    assert_error(as_alice.query("whoami"), 401, 16, "expired api key")


def test_otp_rules(client, simulator):
    sub_org(client)
    otp_id = result_of(init_otp(client, otpLength=6, alphanumeric=False), "initOtpResult")["otpId"]
    code = simulator.simulator.store.outbox[-1]["code"]
    assert code.isdigit() and len(code) == 6
    wrong = "1" * 6 if code != "1" * 6 else "2" * 6
    for left in (2, 1, 0):
        body = {"otpId": otp_id, "otpCode": wrong}
        assert_error(
            client.submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP", body, timestampMs=str(time.time_ns() // 10**6)),
            400,
            3,
            "Invalid OTP code",
            f"{left} attempt(s) left",
        )
    assert_error(
        client.submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP", {"otpId": otp_id, "otpCode": code}),
        400,
        3,
        "locked after 3 attempts",
    )
    for _ in range(2):
        ok(init_otp(client))
    assert_error(init_otp(client), 400, 3, "Max number of OTPs have been initiated")
    simulator.simulator.clock.advance(301)
    ok(init_otp(client))


def test_otp_auth_returns_a_bundle_the_client_can_open(client, simulator):
    org_id, user_id = sub_org(client)
    otp_id = result_of(
        client.submit(
            "init_otp_auth",
            "ACTIVITY_TYPE_INIT_OTP_AUTH_V3",
            {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, "appName": "Demo"},
            organizationId=org_id,
        ),
        "initOtpAuthResultV2",
    )["otpId"]
    target = ClientKey()
    result = result_of(
        client.submit(
            "otp_auth",
            "ACTIVITY_TYPE_OTP_AUTH",
            {
                "otpId": otp_id,
                "otpCode": simulator.simulator.store.outbox[-1]["code"],
                "targetPublicKey": target.uncompressed,
            },
            organizationId=org_id,
        ),
        "otpAuthResult",
    )
    assert result["userId"] == user_id
    private = open_bundle(result["credentialBundle"], target)
    as_alice = SimulatorClient(simulator.url, ApiKeyStamper(private), org_id)
    assert ok(as_alice.query("whoami"))["userId"] == user_id
    keys = ok(as_alice.query("get_api_keys", userId=user_id))["apiKeys"]
    assert [(k["apiKeyId"], k["credential"]["type"], k["expirationSeconds"]) for k in keys] == [
        (result["apiKeyId"], "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256", "900")
    ]
    assert keys[0]["apiKeyName"].startswith("OTP Auth - ")


def test_oauth_login_with_an_id_token(client, simulator):
    registration = oauth_provider.id_token(simulator.simulator, subject="g-123", audience="google-client")
    org_id, user_id = sub_org(client, oauthProviders=[{"providerName": "Google", "oidcToken": registration}])
    session_key = ClientKey()
    token = oauth_provider.id_token(
        simulator.simulator,
        subject="g-123",
        audience="google-client",
        nonce=oauth_provider.nonce_for(session_key.public),
    )
    session = result_of(
        client.submit(
            "oauth_login",
            "ACTIVITY_TYPE_OAUTH_LOGIN",
            {"oidcToken": token, "publicKey": session_key.public},
            organizationId=org_id,
        ),
        "oauthLoginResult",
    )["session"]
    assert verify_session(session)["user_id"] == user_id
    wrong_nonce = oauth_provider.id_token(simulator.simulator, subject="g-123", audience="google-client", nonce="00")
    assert_error(
        client.submit(
            "oauth_login",
            "ACTIVITY_TYPE_OAUTH_LOGIN",
            {"oidcToken": wrong_nonce, "publicKey": session_key.public},
            organizationId=org_id,
        ),
        400,
        3,
        "nonce must be the SHA-256",
    )
    stranger = oauth_provider.id_token(
        simulator.simulator,
        subject="other",
        audience="google-client",
        nonce=oauth_provider.nonce_for(session_key.public),
    )
    assert_error(
        client.submit(
            "oauth_login",
            "ACTIVITY_TYPE_OAUTH_LOGIN",
            {"oidcToken": stranger, "publicKey": session_key.public},
            organizationId=org_id,
        ),
        404,
        5,
        "has an OAuth provider",
    )


def test_oauth2_authenticate_exchanges_a_code_with_pkce(client, simulator):
    cred = result_of(
        client.submit(
            "create_oauth2_credential",
            "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
            {"provider": "OAUTH2_PROVIDER_X", "clientId": "x-client", "encryptedClientSecret": "e"},
        ),
        "createOauth2CredentialResult",
    )["oauth2CredentialId"]
    code = oauth_provider.authorize(
        simulator.simulator, "42", code_challenge=oauth_provider.s256("verifier"), redirect_uri="http://localhost/cb"
    )
    target = ClientKey()
    params = {
        "oauth2CredentialId": cred,
        "authCode": code,
        "redirectUri": "http://localhost/cb",
        "codeVerifier": "verifier",
        "nonce": "n-1",
        "bearerTokenTargetPublicKey": target.uncompressed,
    }
    token = result_of(
        client.submit("oauth2_authenticate", "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", params), "oauth2AuthenticateResult"
    )["oidcToken"]
    claims = atob_json(token.split(".")[1])
    assert (claims["sub"], claims["aud"], claims["nonce"]) == ("x:42", "x-client", "n-1")
    assert open_bundle(claims["encrypted_bearer_token"], target)
    again = client.submit(
        "oauth2_authenticate", "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", params, timestampMs=str(time.time_ns() // 10**6 + 1)
    )
    assert_error(again, 400, 3, "already used authorization code")
    bad = oauth_provider.authorize(simulator.simulator, "42", code_challenge=oauth_provider.s256("other"))
    assert_error(
        client.submit("oauth2_authenticate", "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", {**params, "authCode": bad}),
        400,
        3,
        "code_verifier does not match",
    )
    org_id, user_id = sub_org(client, oauthProviders=[{"providerName": "X", "oidcToken": token}])
    session_key = ClientKey()
    session = result_of(
        client.submit(
            "oauth_login",
            "ACTIVITY_TYPE_OAUTH_LOGIN",
            {"oidcToken": token, "publicKey": session_key.public},
            organizationId=org_id,
        ),
        "oauthLoginResult",
    )["session"]
    assert verify_session(session)["organization_id"] == org_id


def test_stamp_login_with_the_default_passkey(simulator):
    passkey = PasskeyStamper(DEFAULTS["passkeyCredentialId"], DEFAULTS["passkeyPrivateKey"])
    as_passkey = SimulatorClient(simulator.url, passkey, DEFAULTS["organizationId"])
    session_key = ClientKey()
    session = result_of(
        as_passkey.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": session_key.public}),
        "stampLoginResult",
    )["session"]
    assert verify_session(session)["user_id"] == DEFAULTS["userId"]
    assert (
        ok(
            SimulatorClient(simulator.url, ApiKeyStamper(session_key.private), DEFAULTS["organizationId"]).query(
                "whoami"
            )
        )["userId"]
        == DEFAULTS["userId"]
    )


@pytest.mark.parametrize("threshold, phrase", [(0, "quorum threshold must be non-zero"), (2, "no larger than")])
def test_sub_organization_quorum_is_checked(client, threshold, phrase):
    user = {"userName": "A", "apiKeys": [], "authenticators": [], "oauthProviders": []}
    response = client.submit(
        "create_sub_organization",
        "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
        {"subOrganizationName": "x", "rootUsers": [user], "rootQuorumThreshold": threshold},
    )
    assert_error(response, 400, 3, phrase)


def test_encrypted_otp_v3_and_v2(client, simulator):
    """init_otp V3 gives a target signed by the simulator's enclave key; verify_otp V2 opens the code."""
    sub_org(client)
    result = result_of(
        client.submit(
            "init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, "appName": "Demo"}
        ),
        "initOtpResultV2",
    )
    bundle = json.loads(result["otpEncryptionTargetBundle"])
    assert bundle["enclaveQuorumPublic"] == service_keys.public_hex("enclave")
    signer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(bundle["enclaveQuorumPublic"]))
    signer.verify(bytes.fromhex(bundle["dataSignature"]), bytes.fromhex(bundle["data"]), ec.ECDSA(hashes.SHA256()))
    key = ClientKey()
    wrong = seal_to_target(
        result["otpEncryptionTargetBundle"], json.dumps({"otp_code": "nope", "public_key": key.public}).encode()
    )
    assert_error(
        client.submit(
            "verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2", {"otpId": result["otpId"], "encryptedOtpBundle": wrong}
        ),
        400,
        3,
        "Invalid OTP code",
    )
    code = simulator.simulator.otp_code(EMAIL)
    sealed = seal_to_target(
        result["otpEncryptionTargetBundle"], json.dumps({"otp_code": code, "public_key": key.public}).encode()
    )
    token = result_of(
        client.submit(
            "verify_otp",
            "ACTIVITY_TYPE_VERIFY_OTP_V2",
            {"otpId": result["otpId"], "encryptedOtpBundle": sealed},
            timestampMs=str(time.time_ns() // 10**6 + 1),
        ),
        "verifyOtpResult",
    )["verificationToken"]
    assert atob_json(token.split(".")[1])["public_key"] == key.public
