"""What Turnkey's identity pages promise a client (issue 53's sweep, docs/conformance/identity.yaml):
SMS and e-mail OTP, e-mail auth, social logins, users and user tags, the auth proxy's account lookup,
and the results the API reference names for these operations. Through HTTP with real stamps; the
client's side (sealing the code, the login signature, the session JWT) from tests/support.py."""

from __future__ import annotations

import itertools
import json
import time

import pytest
from conftest import DEFAULTS, new_user, ok, result_of
from lifecycle_helpers import ROOT_USER, api_user
from support import EMAIL, ClientKey, assert_error, atob_json, client_signature, seal_to_target, verify_session

from simulator.crypto import service_keys
from simulator.standins import oauth_provider
from simulator.testing import ApiKeyStamper, SimulatorClient

PHONE = "+14155550123"
CROCKFORD = set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
STAMPS = itertools.count(time.time_ns() // 1_000_000)
PROXY_SCENARIO = pytest.mark.simulator_scenario("../scenarios/auth_proxy.yaml")  # proxy-config-1
CONFIG_ID = "proxy-config-1"


def ts() -> str:
    """A fresh timestampMs: the same body posted twice is the same activity."""
    return str(next(STAMPS))


def make_sub_org(client, **root_user) -> tuple[str, str]:
    user = {"userName": "Alice", "userEmail": EMAIL, "apiKeys": [], "authenticators": [], "oauthProviders": []}
    params = {"subOrganizationName": f"org-{ts()}", "rootUsers": [{**user, **root_user}], "rootQuorumThreshold": 1}
    made = result_of(
        client.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", params),
        "createSubOrganizationResultV8",
    )
    return made["subOrganizationId"], made["rootUserIds"][0]


def init_v3(client, contact: str, otp_type: str = "OTP_TYPE_EMAIL", **extra) -> dict:
    params = {"otpType": otp_type, "contact": contact, "appName": "Demo", **extra}
    return result_of(
        client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", params, timestampMs=ts()), "initOtpResultV2"
    )


def verify_v2(client, started: dict, code: str, key: ClientKey, **extra) -> str:
    sealed = seal_to_target(
        started["otpEncryptionTargetBundle"], json.dumps({"otp_code": code, "public_key": key.public}).encode()
    )
    params = {"otpId": started["otpId"], "encryptedOtpBundle": sealed, **extra}
    verified = client.submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2", params, timestampMs=ts())
    return str(result_of(verified, "verifyOtpResult")["verificationToken"])


def login_v2(client, token: str, key: ClientKey, org_id: str, **extra):
    params = {
        "verificationToken": token,
        "publicKey": key.public,
        "clientSignature": client_signature(token, key, {"login": {"publicKey": key.public}}, "USAGE_TYPE_LOGIN"),
        **extra,
    }
    return client.submit("otp_login", "ACTIVITY_TYPE_OTP_LOGIN_V2", params, organizationId=org_id, timestampMs=ts())


def otp_session(client, simulator, contact: str, org_id: str, otp_type: str = "OTP_TYPE_EMAIL", **login) -> ClientKey:
    """The whole OTP flow of the pages: init V3 (parent), verify V2 (parent), login V2 (sub-organization)."""
    started = init_v3(client, contact, otp_type)
    key = ClientKey()
    token = verify_v2(client, started, simulator.simulator.otp_code(contact), key)
    ok(login_v2(client, token, key, org_id, **login))
    return key


def as_key(simulator, key: ClientKey, org_id: str) -> SimulatorClient:
    return SimulatorClient(simulator.url, ApiKeyStamper(key.private), org_id)


# --- SMS and e-mail OTP (features/authentication/sms.mdx, email.mdx) --------------------------------


def test_sms_otp_v3_verify_v2_login_v2_logs_the_phones_user_in(client, simulator):
    org_id, user_id = make_sub_org(client, userPhoneNumber=PHONE)
    started = init_v3(client, PHONE, "OTP_TYPE_SMS")
    assert set(started) == {"otpId", "otpEncryptionTargetBundle"}
    sent = simulator.simulator.outbox(PHONE)[-1]
    assert (sent["channel"], sent["otpId"]) == ("OTP_TYPE_SMS", started["otpId"])
    assert len(sent["code"]) == 9 and set(sent["code"]) <= CROCKFORD  # defaults: 9 characters, alphanumeric
    key = ClientKey()
    now_ms = simulator.simulator.clock.now_ms()
    token = verify_v2(client, started, sent["code"], key)
    claims = atob_json(token.split(".")[1])
    assert (claims["contact"], claims["verification_type"]) == (PHONE, "OTP_TYPE_SMS")
    assert abs(int(claims["exp"]) - now_ms - 3600 * 1000) < 5000  # the token lasts an hour by default
    unsigned = {"verificationToken": token, "publicKey": key.public}
    assert_error(
        client.submit("otp_login", "ACTIVITY_TYPE_OTP_LOGIN_V2", unsigned, organizationId=org_id, timestampMs=ts()),
        400,
        3,
        "clientSignature",
    )
    session = verify_session(result_of(login_v2(client, token, key, org_id), "otpLoginResult")["session"])
    assert (session["user_id"], session["organization_id"], session["public_key"]) == (user_id, org_id, key.public)
    assert abs(session["exp"] - simulator.simulator.clock.now_ms() / 1000 - 900) < 5  # 15 minutes by default
    assert ok(as_key(simulator, key, org_id).query("whoami"))["userId"] == user_id


def test_the_sms_sandbox_number_takes_000000(client, simulator):
    started = init_v3(client, "+19999999999", "OTP_TYPE_SMS", alphanumeric=False, otpLength=6)
    token = verify_v2(client, started, "000000", ClientKey())
    assert atob_json(token.split(".")[1])["contact"] == "+19999999999"


def test_the_email_sandbox_address_takes_000000(client):
    started = init_v3(client, "user@example.com", alphanumeric=False, otpLength=6)
    token = verify_v2(client, started, "000000", ClientKey())
    assert atob_json(token.split(".")[1])["contact"] == "user@example.com"


def test_an_otp_code_expires_after_5_minutes_by_default(client, simulator):
    started = init_v3(client, EMAIL)
    code = simulator.simulator.otp_code(EMAIL)
    simulator.simulator.clock.advance(301)
    sealed = seal_to_target(
        started["otpEncryptionTargetBundle"], json.dumps({"otp_code": code, "public_key": ClientKey().public}).encode()
    )
    late = client.submit(
        "verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2", {"otpId": started["otpId"], "encryptedOtpBundle": sealed}
    )
    assert_error(late, 400, 3, "Invalid OTP code", "expired")


def test_otp_login_invalidate_existing_ends_the_earlier_sessions(client, simulator):
    org_id, user_id = make_sub_org(client)
    first = otp_session(client, simulator, EMAIL, org_id)
    second = otp_session(client, simulator, EMAIL, org_id)
    assert ok(as_key(simulator, first, org_id).query("whoami"))["userId"] == user_id
    third = otp_session(client, simulator, EMAIL, org_id, invalidateExisting=True)
    for ended in (first, second):
        assert_error(as_key(simulator, ended, org_id).query("whoami"), 401, 16)
    assert ok(as_key(simulator, third, org_id).query("whoami"))["userId"] == user_id


def test_a_sub_organization_runs_the_otp_flow_itself_and_its_tokens_stay_in_it(client, simulator):
    """email.mdx, "Sub-organization initiated OTP": init, verify and the token's use, all stamped by the
    sub-organization; a token a sub-organization issued is refused by another one."""
    sub_key = ClientKey()
    api_key = {"apiKeyName": "k", "publicKey": sub_key.public, "curveType": "API_KEY_CURVE_P256"}
    org_a, user_a = make_sub_org(client, apiKeys=[api_key])
    org_b, _ = make_sub_org(client, userEmail="bob@example.com")
    as_sub = SimulatorClient(simulator.url, ApiKeyStamper(sub_key.private), org_a)
    started = init_v3(as_sub, EMAIL)
    login_key = ClientKey()
    token = verify_v2(as_sub, started, simulator.simulator.otp_code(EMAIL), login_key)
    assert atob_json(token.split(".")[1])["organization_id"] == org_a
    assert_error(login_v2(client, token, login_key, org_b), 400, 3, "issued for another organization")
    session = verify_session(result_of(login_v2(as_sub, token, login_key, org_a), "otpLoginResult")["session"])
    assert (session["user_id"], session["organization_id"]) == (user_a, org_a)
    change = init_v3(as_sub, "new@example.com")
    email_key = ClientKey()
    email_token = verify_v2(as_sub, change, simulator.simulator.otp_code("new@example.com"), email_key)
    params = {"userId": user_a, "userEmail": "new@example.com", "verificationToken": email_token}
    updated = as_sub.submit("update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", params, timestampMs=ts())
    assert result_of(updated, "updateUserEmailResult") == {"userId": user_a}
    assert ok(as_sub.query("get_user", userId=user_a))["user"]["userEmail"] == "new@example.com"


def test_a_custom_sender_address_is_the_mails_sender(client, simulator):
    """email.mdx, "Custom email sender domain": the address an OTP mail is sent from, seen in
    list_email_events; without one the mail comes from the service's own address."""
    init_v3(client, "plain@example.com")
    init_v3(
        client,
        "custom@example.com",
        sendFromEmailAddress="notifs@mail.acme.example",
        replyToEmailAddress="r@acme.example",
    )

    def senders(email: str) -> set[str]:
        return {e["fromAddress"] for e in ok(client.query("list_email_events", email=email))["emailEvents"]}

    assert senders("custom@example.com") == {"notifs@mail.acme.example"}
    assert senders("plain@example.com") == {"notifications@turnkey.com"}


# --- e-mail auth, the credential bundle method (email.mdx) ----------------------------------------


def email_auth(client, org_id: str, **extra):
    params = {
        "email": EMAIL,
        "targetPublicKey": ClientKey().uncompressed,
        "emailCustomization": {"appName": "Demo"},
        **extra,
    }
    return result_of(
        client.submit("email_auth", "ACTIVITY_TYPE_EMAIL_AUTH_V3", params, organizationId=org_id, timestampMs=ts()),
        "emailAuthResult",
    )


def test_email_auth_key_name_and_expiry_defaults_and_invalidate_existing(client):
    org_id, user_id = make_sub_org(client)
    first = email_auth(client, org_id)
    assert set(first) == {"userId", "apiKeyId"} and first["userId"] == user_id
    keys = ok(client.query("get_api_keys", organizationId=org_id, userId=user_id))["apiKeys"]
    assert [(k["apiKeyId"], k["expirationSeconds"]) for k in keys] == [(first["apiKeyId"], "900")]
    assert keys[0]["apiKeyName"].startswith("Email Auth - ")
    second = email_auth(client, org_id, apiKeyName="mine", expirationSeconds="60")
    listed = ok(client.query("get_api_keys", organizationId=org_id, userId=user_id))["apiKeys"]
    assert {k["apiKeyId"] for k in listed} == {first["apiKeyId"], second["apiKeyId"]}
    assert {k["apiKeyName"] for k in listed if k["apiKeyId"] == second["apiKeyId"]} == {"mine"}
    third = email_auth(client, org_id, invalidateExisting=True)
    listed = ok(client.query("get_api_keys", organizationId=org_id, userId=user_id))["apiKeys"]
    assert [k["apiKeyId"] for k in listed] == [third["apiKeyId"]]


def test_email_otp_and_recovery_need_an_app_name(client):
    org_id, _ = make_sub_org(client)
    start = {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL}
    assert_error(client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", start, timestampMs=ts()), 400, 3, "appName")
    recovery = {"email": EMAIL, "targetPublicKey": ClientKey().uncompressed, "emailCustomization": {}}
    refused = client.submit(
        "init_user_email_recovery", "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2", recovery, organizationId=org_id
    )
    assert_error(refused, 400, 3, "appName")


def test_a_parent_api_user_without_the_documented_policy_is_warned_about(client, simulator):
    """email.mdx, "Prerequisites": an API user of the parent needs a policy allowing AUTH CREATE (and
    ORGANIZATION CREATE for the sign-up). The simulator runs the request either way and warns when no
    parent policy allows it (docs/ledger/docs-identity.yaml)."""
    org_id, user_id = make_sub_org(client)
    bob_id, bob = api_user(client, "Bob")
    params = {"email": EMAIL, "targetPublicKey": ClientKey().uncompressed, "emailCustomization": {"appName": "Demo"}}

    def email_auth_by_bob() -> list[str]:
        made = bob.submit("email_auth", "ACTIVITY_TYPE_EMAIL_AUTH_V3", params, organizationId=org_id, timestampMs=ts())
        assert result_of(made, "emailAuthResult")["userId"] == user_id
        return simulator.simulator.journal.entries("email_auth")[-1].get("warnings", [])

    (warning,) = email_auth_by_bob()
    assert f"allows user {bob_id} to run ACTIVITY_TYPE_EMAIL_AUTH_V3" in warning and "403" in warning
    policy = {
        "policyName": "email auth",
        "effect": "EFFECT_ALLOW",
        "consensus": f"approvers.any(user, user.id == '{bob_id}')",
        "condition": "(activity.resource == 'AUTH' && activity.action == 'CREATE') || "
        "(activity.resource == 'ORGANIZATION' && activity.action == 'CREATE')",
        "notes": "",
    }
    ok(client.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", policy))
    assert email_auth_by_bob() == []
    started = client.submit(
        "email_auth", "ACTIVITY_TYPE_EMAIL_AUTH_V3", params, organizationId=org_id, timestampMs=ts()
    )
    assert ok(started) and "warnings" not in simulator.simulator.journal.entries("email_auth")[-1]  # a root user


# --- social logins (features/authentication/social-logins.mdx) ------------------------------------


def oauth_login(client, token: str, key: ClientKey, org_id: str):
    params = {"oidcToken": token, "publicKey": key.public}
    return client.submit("oauth_login", "ACTIVITY_TYPE_OAUTH_LOGIN", params, organizationId=org_id, timestampMs=ts())


def test_a_tknonce_claim_binds_the_token_when_the_nonce_cannot_be_set(client, simulator):
    sim = simulator.simulator
    org_id, user_id = make_sub_org(
        client, oauthProviders=[{"providerName": "G", "oidcToken": oauth_provider.id_token(sim, "g-7", "web")}]
    )
    key = ClientKey()
    token = oauth_provider.id_token(
        sim, "g-7", "web", nonce="provider-chosen", tknonce=oauth_provider.nonce_for(key.public)
    )
    session = verify_session(result_of(oauth_login(client, token, key, org_id), "oauthLoginResult")["session"])
    assert session["user_id"] == user_id


def test_an_expired_oidc_token_is_refused(client, simulator):
    sim = simulator.simulator
    org_id, _ = make_sub_org(
        client, oauthProviders=[{"providerName": "G", "oidcToken": oauth_provider.id_token(sim, "g-8", "web")}]
    )
    key = ClientKey()
    token = oauth_provider.id_token(sim, "g-8", "web", nonce=oauth_provider.nonce_for(key.public), lifetime_seconds=60)
    sim.clock.advance(61)
    assert_error(oauth_login(client, token, key, org_id), 400, 3, "invalid OIDC token", "expired")


def test_another_audience_is_another_identity_unless_registered_with_oidc_claims(client, simulator):
    sim = simulator.simulator
    providers = [
        {"providerName": "Google Web", "oidcToken": oauth_provider.id_token(sim, "g-9", "web")},
        {
            "providerName": "Google Android",
            "oidcClaims": {"iss": service_keys.PROVIDER_ISSUER, "sub": "g-9", "aud": "android"},
        },
    ]
    org_id, user_id = make_sub_org(client, oauthProviders=providers)
    key = ClientKey()
    for audience in ("web", "android"):
        token = oauth_provider.id_token(sim, "g-9", audience, nonce=oauth_provider.nonce_for(key.public))
        session = verify_session(result_of(oauth_login(client, token, key, org_id), "oauthLoginResult")["session"])
        assert session["user_id"] == user_id
    ios = oauth_provider.id_token(sim, "g-9", "ios", nonce=oauth_provider.nonce_for(key.public))
    assert_error(oauth_login(client, ios, key, org_id), 404, 5, "has an OAuth provider", "audience ios")


def test_a_top_level_organizations_user_may_log_in_with_oauth(client, simulator):
    """social-logins.mdx calls the feature one for sub-organization users; the simulator does not refuse a
    top-level user (docs/ledger/docs-identity.yaml, oauth-top-level-users)."""
    sim = simulator.simulator
    params = {
        "userId": DEFAULTS["userId"],
        "oauthProviders": [{"providerName": "G", "oidcToken": oauth_provider.id_token(sim, "top-1", "web")}],
    }
    ok(client.submit("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", params))
    key = ClientKey()
    token = oauth_provider.id_token(sim, "top-1", "web", nonce=oauth_provider.nonce_for(key.public))
    session = result_of(oauth_login(client, token, key, DEFAULTS["organizationId"]), "oauthLoginResult")["session"]
    assert verify_session(session)["user_id"] == DEFAULTS["userId"]


# --- the API reference's results for users, tags, OAuth providers and credentials -----------------


def test_user_and_tag_activities_answer_the_results_the_api_reference_names(client):
    user = {"userName": "Carol", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}
    made = result_of(
        client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", {"users": [user]}), "createUsersResult"
    )
    assert set(made) == {"userIds"} and len(made["userIds"]) == 1
    carol = made["userIds"][0]
    tagged = result_of(
        client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "ops", "userIds": [carol]}),
        "createUserTagResult",
    )
    assert set(tagged) == {"userTagId", "userIds"} and tagged["userIds"] == [carol]
    tag = tagged["userTagId"]
    renamed = client.submit(
        "update_user_tag",
        "ACTIVITY_TYPE_UPDATE_USER_TAG",
        {"userTagId": tag, "newUserTagName": "ops-2", "addUserIds": [], "removeUserIds": []},
    )
    assert result_of(renamed, "updateUserTagResult") == {"userTagId": tag}
    listed = ok(client.query("list_user_tags"))["userTags"]
    shown = next(t for t in listed if t["tagId"] == tag)
    assert (shown["tagName"], shown["tagType"]) == ("ops-2", "TAG_TYPE_USER")
    assert set(shown["createdAt"]) == set(shown["updatedAt"]) == {"seconds", "nanos"}
    fetched = ok(client.query("get_user", userId=carol))["user"]
    assert {
        "userId",
        "userName",
        "authenticators",
        "apiKeys",
        "userTags",
        "oauthProviders",
        "createdAt",
        "updatedAt",
    } <= set(fetched)
    assert fetched["userTags"] == [tag] and "userEmail" not in fetched
    assert carol in {u["userId"] for u in ok(client.query("list_users"))["users"]}
    deleted = result_of(
        client.submit("delete_user_tags", "ACTIVITY_TYPE_DELETE_USER_TAGS", {"userTagIds": [tag]}),
        "deleteUserTagsResult",
    )
    assert deleted == {"userTagIds": [tag], "userIds": [carol]}
    gone = result_of(
        client.submit("delete_users", "ACTIVITY_TYPE_DELETE_USERS", {"userIds": [carol]}), "deleteUsersResult"
    )
    assert gone == {"userIds": [carol]}


def test_update_user_name_and_phone_answer_the_users_id(client, simulator):
    user_id = new_user(client, "Dora")
    named = client.submit("update_user_name", "ACTIVITY_TYPE_UPDATE_USER_NAME", {"userId": user_id, "userName": "D"})
    assert result_of(named, "updateUserNameResult") == {"userId": user_id}
    phoned = client.submit(
        "update_user_phone_number",
        "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",
        {"userId": user_id, "userPhoneNumber": PHONE},
    )
    assert result_of(phoned, "updateUserPhoneNumberResult") == {"userId": user_id}
    assert ok(client.query("get_user", userId=user_id))["user"]["userPhoneNumber"] == PHONE


def test_oauth_providers_and_oauth2_credentials_show_the_documented_fields(client, simulator):
    sim = simulator.simulator
    token = oauth_provider.id_token(sim, "g-10", "web")
    params = {"userId": DEFAULTS["userId"], "oauthProviders": [{"providerName": "Google", "oidcToken": token}]}
    made = result_of(
        client.submit("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", params),
        "createOauthProvidersResultV2",
    )
    assert set(made) == {"providerIds"} and len(made["providerIds"]) == 1
    shown = ok(client.query("get_oauth_providers", userId=DEFAULTS["userId"]))["oauthProviders"][-1]
    assert {k: shown[k] for k in ("providerId", "providerName", "issuer", "subject", "audience")} == {
        "providerId": made["providerIds"][0],
        "providerName": "Google",
        "issuer": service_keys.PROVIDER_ISSUER,
        "subject": "g-10",
        "audience": "web",
    }
    assert set(shown["createdAt"]) == set(shown["updatedAt"]) == {"seconds", "nanos"}
    credential = {"provider": "OAUTH2_PROVIDER_DISCORD", "clientId": "d-client", "encryptedClientSecret": "sealed"}
    cred_id = result_of(
        client.submit("create_oauth2_credential", "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL", credential),
        "createOauth2CredentialResult",
    )["oauth2CredentialId"]
    fields = {
        "oauth2CredentialId",
        "organizationId",
        "provider",
        "clientId",
        "encryptedClientSecret",
        "createdAt",
        "updatedAt",
    }
    got = ok(client.query("get_oauth2_credential", oauth2CredentialId=cred_id))["oauth2Credential"]
    assert fields <= set(got) and (got["provider"], got["clientId"]) == ("OAUTH2_PROVIDER_DISCORD", "d-client")
    assert any(
        c["oauth2CredentialId"] == cred_id and fields <= set(c)
        for c in ok(client.query("list_oauth2_credentials"))["oauth2Credentials"]
    )
    deleted = client.submit(
        "delete_oauth2_credential", "ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL", {"oauth2CredentialId": cred_id}
    )
    assert result_of(deleted, "deleteOauth2CredentialResult") == {"oauth2CredentialId": cred_id}


# --- the auth proxy's account lookup (features/authentication/auth-proxy.mdx) ---------------------


def proxy_call(simulator, op: str, body: dict):
    proxy = SimulatorClient(simulator.proxy_url, None, "")
    return proxy.post(f"/v1/{op}", json.dumps(body).encode(), {"X-Auth-Proxy-Config-Id": CONFIG_ID})


def proxy_token(simulator, contact: str, otp_type: str = "OTP_TYPE_EMAIL") -> str:
    started = ok(proxy_call(simulator, "otp_init_v2", {"otpType": otp_type, "contact": contact}))
    code = simulator.simulator.otp_code(contact)
    sealed = seal_to_target(
        started["otpEncryptionTargetBundle"], json.dumps({"otp_code": code, "public_key": ClientKey().public}).encode()
    )
    verified = proxy_call(simulator, "otp_verify_v2", {"otpId": started["otpId"], "encryptedOtpBundle": sealed})
    return str(ok(verified)["verificationToken"])


@PROXY_SCENARIO
def test_account_lookups_by_contact_need_no_token_unless_the_setting_asks_for_one(simulator):
    parent = DEFAULTS["organizationId"]
    client = SimulatorClient(simulator.url, ApiKeyStamper(DEFAULTS["apiPrivateKey"]), parent)
    org_id, _ = make_sub_org(client, userPhoneNumber=PHONE)
    by_email = {"filterType": "EMAIL", "filterValue": EMAIL}
    assert ok(proxy_call(simulator, "account", by_email)) == {"organizationId": org_id}  # off by default
    simulator.simulator.configure_auth_proxy(parent, configId=CONFIG_ID, verificationTokenRequiredForGetAccountPii=True)
    assert_error(proxy_call(simulator, "account", by_email), 400, 3, "verification token for this email is required")
    other = proxy_token(simulator, "someone@example.com")
    assert_error(proxy_call(simulator, "account", {**by_email, "verificationToken": other}), 400, 3, "another contact")
    token = proxy_token(simulator, EMAIL)
    assert ok(proxy_call(simulator, "account", {**by_email, "verificationToken": token})) == {"organizationId": org_id}
    by_phone = {"filterType": "PHONE_NUMBER", "filterValue": PHONE}
    assert_error(proxy_call(simulator, "account", by_phone), 400, 3, "phone number is required")
    sms = proxy_token(simulator, PHONE, "OTP_TYPE_SMS")
    assert ok(proxy_call(simulator, "account", {**by_phone, "verificationToken": sms})) == {"organizationId": org_id}
    google = oauth_provider.id_token(simulator.simulator, "g-11", "web", email=EMAIL)
    assert ok(proxy_call(simulator, "account", {**by_email, "oidcToken": google})) == {"organizationId": org_id}
    # the token is read, not spent: the sign-up or login after the lookup still takes it
    assert ok(proxy_call(simulator, "account", {**by_email, "verificationToken": token})) == {"organizationId": org_id}
    by_key = {"filterType": "PUBLIC_KEY", "filterValue": ClientKey().public}
    assert ok(proxy_call(simulator, "account", by_key)) == {}


# --- the root quorum (features/users/root-quorum.mdx) ---------------------------------------------


def test_a_policy_lets_one_root_user_act_alone_under_a_larger_quorum(client):
    bob_id, bob = api_user(client, "Bob")
    quorum = {"threshold": 2, "userIds": [ROOT_USER, bob_id]}
    ok(client.submit("update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", quorum))
    policy = {
        "policyName": "root creates tags alone",
        "effect": "EFFECT_ALLOW",
        "condition": "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
        "consensus": f"approvers.any(user, user.id == '{ROOT_USER}')",
        "notes": "",
    }
    waiting = ok(client.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", policy))["activity"]
    assert waiting["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"  # adding it is itself a quorum activity
    ok(bob.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": waiting["fingerprint"]}))
    alone = ok(client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "t", "userIds": []}))
    assert alone["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    other = ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}))
    assert other["activity"]["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"


@PROXY_SCENARIO
def test_allowed_origins_are_exact_urls_without_partial_wildcards(simulator):
    simulator.simulator.configure_auth_proxy(
        DEFAULTS["organizationId"],
        configId=CONFIG_ID,
        allowedOrigins=["https://*.myapp.example", "https://app.myapp.example"],
    )
    proxy = SimulatorClient(simulator.proxy_url, None, "")

    def from_origin(origin: str):
        headers = {"X-Auth-Proxy-Config-Id": CONFIG_ID, "Origin": origin}
        return proxy.post("/v1/wallet_kit_config", b"{}", headers)

    assert ok(from_origin("https://app.myapp.example"))["organizationId"] == DEFAULTS["organizationId"]
    assert_error(
        from_origin("https://other.myapp.example"), 403, 7, "origin https://other.myapp.example is not allowed"
    )


@PROXY_SCENARIO
def test_the_configurations_session_expiration_is_the_proxy_sessions_lifetime(simulator):
    parent = DEFAULTS["organizationId"]
    client = SimulatorClient(simulator.url, ApiKeyStamper(DEFAULTS["apiPrivateKey"]), parent)
    org_id, user_id = make_sub_org(client)
    simulator.simulator.configure_auth_proxy(parent, configId=CONFIG_ID, sessionExpirationSeconds="120")
    started = ok(proxy_call(simulator, "otp_init_v2", {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL}))
    key = ClientKey()
    sealed = seal_to_target(
        started["otpEncryptionTargetBundle"],
        json.dumps({"otp_code": simulator.simulator.otp_code(EMAIL), "public_key": key.public}).encode(),
    )
    verified = proxy_call(simulator, "otp_verify_v2", {"otpId": started["otpId"], "encryptedOtpBundle": sealed})
    token = ok(verified)["verificationToken"]
    login = {
        "verificationToken": token,
        "publicKey": key.public,
        "clientSignature": client_signature(token, key, {"login": {"publicKey": key.public}}, "USAGE_TYPE_LOGIN"),
    }
    session = verify_session(ok(proxy_call(simulator, "otp_login_v2", login))["session"])
    assert (session["organization_id"], session["user_id"]) == (org_id, user_id)
    assert abs(session["exp"] - simulator.simulator.clock.now_ms() / 1000 - 120) < 5
