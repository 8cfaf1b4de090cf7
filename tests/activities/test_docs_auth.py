"""What Turnkey's documentation promises about sessions, session profiles, MFA policies, IP allow-lists,
passkeys and credentials (issue 53's sweep, docs/conformance/auth.yaml), each shown over HTTP with real
stamps: P-256 API keys, WebAuthn assertions and session keys made by the client, as an app makes them.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import pytest
from conftest import DEFAULTS, new_user, ok, result_of
from lifecycle_helpers import KEYS, allow, api_user
from lifecycle_helpers import sub_org as keyed_sub_org
from session_helpers import verification_token
from support import ClientKey, assert_error, client_signature, new_wallet, sub_org, verify_session

from simulator.standins import oauth_provider
from simulator.testing import ApiKeyStamper, PasskeyStamper, SimulatorClient

ROOT = DEFAULTS["userId"]
LOGIN = ("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN")
PROFILE = ("create_session_profile", "ACTIVITY_TYPE_CREATE_SESSION_PROFILE")
HELD = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
DEFAULT_SESSION = "00000000-0000-0000-0000-000000000000"
TICKS = itertools.count()


def fresh_ms() -> str:
    """A timestamp no other request of the test used: identical bodies are one request (idempotency)."""
    return str(int(time.time() * 1000) + next(TICKS))


def as_key(client: SimulatorClient, private_hex: str, org_id: str | None = None) -> SimulatorClient:
    return SimulatorClient(client.base_url, ApiKeyStamper(private_hex), org_id or client.organization_id)


def login(client: SimulatorClient, key: ClientKey, **params: Any) -> dict[str, Any]:
    """stamp_login for the stamping user; the session's claims, checked against the notarizer key."""
    made = result_of(
        client.submit(*LOGIN, {"publicKey": key.public, **params}, timestampMs=fresh_ms()), "stampLoginResult"
    )
    return verify_session(made["session"])  # type: ignore[no-any-return]


def profile(client: SimulatorClient, scope: str = "true", name: str = "p", **extra: Any) -> str:
    params = {"sessionProfileName": name, "scope": scope, **extra}
    return str(result_of(client.submit(*PROFILE, params), "createSessionProfileResult")["sessionProfileId"])


def session_keys(client: SimulatorClient) -> set[str]:
    keys = ok(client.query("get_api_keys", userId=ROOT))["apiKeys"]
    return {k["credential"]["publicKey"] for k in keys if k["credential"]["type"] == "CREDENTIAL_TYPE_LOGIN"}


def now_s(simulator: Any) -> int:
    return int(simulator.clock.now_ms() // 1000)


# --- sessions (features/authentication/sessions/overview.mdx) ----------------------------------------


def test_a_parent_reads_its_sub_organizations_data_by_naming_it(client):
    org_id, user_id = sub_org(client)
    users = ok(client.query("list_users", organizationId=org_id))["users"]
    assert [u["userId"] for u in users] == [user_id]
    wallets = ok(client.query("list_wallets", organizationId=org_id))["wallets"]
    assert [w["walletName"] for w in wallets] == ["Default"]


def test_a_read_only_session_is_an_activity_that_needs_a_stamp(client):
    unstamped = SimulatorClient(client.base_url, None, client.organization_id)
    refused = unstamped.submit("create_read_only_session", "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION", {})
    assert_error(refused, 401, 16)
    made = ok(client.submit("create_read_only_session", "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION", {}))["activity"]
    assert made["type"] == "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION" and made["status"] == COMPLETED
    assert verify_session(made["result"]["createReadOnlySessionResult"]["session"])["session_type"] == (
        "SESSION_TYPE_READ_ONLY"
    )


def test_a_login_session_token_authenticates_nothing(client):
    key = ClientKey()
    made = result_of(client.submit(*LOGIN, {"publicKey": key.public}), "stampLoginResult")
    unstamped = SimulatorClient(client.base_url, None, client.organization_id)
    as_token = unstamped.post(
        "/public/v1/query/whoami",
        json.dumps({"organizationId": client.organization_id}).encode(),
        {"X-Session": made["session"]},
    )
    assert_error(as_token, 401, 16, "invalid session")
    assert ok(as_key(client, key.private).query("whoami"))["userId"] == ROOT  # the key pair stamps


def test_a_login_session_lasts_15_minutes_unless_asked_otherwise(client, simulator):
    default, short = ClientKey(), ClientKey()
    assert login(client, default)["exp"] - now_s(simulator) in (900, 899)
    assert login(client, short, expirationSeconds="60")["exp"] - now_s(simulator) in (60, 59)
    keys = {k["credential"]["publicKey"]: k for k in ok(client.query("get_api_keys", userId=ROOT))["apiKeys"]}
    assert (keys[default.public]["expirationSeconds"], keys[short.public]["expirationSeconds"]) == ("900", "60")
    simulator.clock.advance(61)
    assert_error(as_key(client, short.private).query("whoami"), 401, 16, "expired")
    assert ok(as_key(client, default.private).query("whoami"))["userId"] == ROOT


def test_an_eleventh_session_key_replaces_an_expired_one_first_then_the_oldest(client, simulator):
    made = [ClientKey() for _ in range(12)]
    for n, key in enumerate(made[:10]):
        login(client, key, expirationSeconds="30" if n == 1 else "3600")
        simulator.clock.advance(1)
    assert session_keys(client) == {k.public for k in made[:10]}
    simulator.clock.advance(60)  # the second key has expired; the first is the oldest
    login(client, made[10])
    assert session_keys(client) == {k.public for k in made[:11]} - {made[1].public}
    login(client, made[11])  # none expired now: the oldest goes
    assert session_keys(client) == {k.public for k in made[2:12]}
    long_lived = ok(client.query("get_api_keys", userId=ROOT))["apiKeys"]
    assert any(k["credential"]["publicKey"] == DEFAULTS["apiPublicKey"] for k in long_lived)


def test_invalidate_existing_clears_the_users_other_session_keys(client):
    first, second, third = ClientKey(), ClientKey(), ClientKey()
    login(client, first)
    login(client, second)
    login(client, third, invalidateExisting=True)
    assert session_keys(client) == {third.public}
    assert_error(as_key(client, first.private).query("whoami"), 401, 16)
    assert ok(client.query("whoami"))["userId"] == ROOT  # the long-lived key stays


def test_a_session_makes_its_own_successor(client, simulator):
    first, second = ClientKey(), ClientKey()
    login(client, first, expirationSeconds="60")
    refreshed = login(as_key(client, first.private), second)
    assert refreshed["public_key"] == second.public and refreshed["user_id"] == ROOT
    simulator.clock.advance(61)
    assert ok(as_key(client, second.private).query("whoami"))["userId"] == ROOT


# --- session profiles (features/authentication/sessions/session-profiles.mdx) ------------------------


def test_a_default_session_is_read_write_without_scope(client):
    key = ClientKey()
    claims = login(client, key)
    assert claims["session_type"] == "SESSION_TYPE_READ_WRITE"
    assert "scope" not in claims and "session_profile_id" not in claims
    policy = {"policyName": "any", "effect": "EFFECT_ALLOW", "condition": "true", "consensus": "", "notes": ""}
    assert ok(as_key(client, key.private).submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", policy))


def test_a_profile_scope_refuses_the_activities_it_does_not_allow(client):
    key = ClientKey()
    claims = login(client, key, sessionProfileId=profile(client, "activity.resource == 'WALLET'", name="wallets"))
    assert (claims["session_type"], claims["scope"]) == ("wallets", "activity.resource == 'WALLET'")
    session = as_key(client, key.private)
    made = session.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []})
    assert ok(made)["activity"]["status"] == COMPLETED
    policy = {"policyName": "p", "effect": "EFFECT_ALLOW", "condition": "true", "consensus": "", "notes": ""}
    refused = session.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", policy)
    assert_error(refused, 403, 7, "beyond session restrictions", "wallets")
    assert ok(client.query("list_policies"))["policies"] == []  # refused: nothing changed
    assert ok(session.query("list_wallets"))["wallets"]  # reads are no activities: the scope does not apply


def test_a_profile_scope_reads_the_wallet_a_request_signs_with(client):
    allowed, other = new_wallet(client, "allowed"), new_wallet(client, "other")
    scope = f"activity.action == 'SIGN' && wallet.id == '{allowed['walletId']}'"
    key = ClientKey()
    login(client, key, sessionProfileId=profile(client, scope, name="one wallet"))
    session = as_key(client, key.private)

    def sign(wallet: dict[str, Any]) -> Any:
        params = {
            "signWith": wallet["addresses"][0],
            "payload": "00" * 32,
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        }
        return session.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", params, timestampMs=fresh_ms())

    assert ok(sign(allowed))["activity"]["result"]["signRawPayloadResult"]["r"]
    assert_error(sign(other), 403, 7, "beyond session restrictions")


@pytest.mark.parametrize(
    ("asked", "ceiling", "lasts"),
    [(None, None, 900), ("300", None, 300), (None, "600", 600), ("300", "600", 300), ("1200", "600", 600)],
)
def test_a_session_lasts_the_shorter_of_the_login_and_the_profile(client, simulator, asked, ceiling, lasts):
    extra = {"expirationSeconds": ceiling} if ceiling else {}
    params = {"sessionProfileId": profile(client, **extra), **({"expirationSeconds": asked} if asked else {})}
    assert login(client, ClientKey(), **params)["exp"] - now_s(simulator) in (lasts, lasts - 1)


def test_profiles_are_immutable_and_need_a_name_and_a_scope(client):
    profile_id = profile(client)
    for op in ("update_session_profile", "delete_session_profile"):
        body = json.dumps(
            {
                "type": f"ACTIVITY_TYPE_{op.upper()}",
                "timestampMs": fresh_ms(),
                "organizationId": client.organization_id,
                "parameters": {"sessionProfileId": profile_id, "scope": "false"},
            }
        ).encode()
        assert client.post(f"/public/v1/submit/{op}", body).status == 404
    assert ok(client.query("get_session_profile", sessionProfileId=profile_id))["sessionProfile"]["scope"] == "true"
    assert_error(client.submit(*PROFILE, {"sessionProfileName": "no scope"}), 400, 3, "scope")
    assert_error(client.submit(*PROFILE, {"scope": "true"}), 400, 3, "sessionProfileName")


def test_otp_login_takes_a_session_profile(client, simulator):
    key = ClientKey()
    profile_id = profile(client, "activity.action == 'SIGN'", name="signing", expirationSeconds="120")
    token = verification_token(client, simulator, key, DEFAULTS["userEmail"])
    signature = client_signature(token, key, {"login": {"publicKey": key.public}}, "USAGE_TYPE_LOGIN")
    params = {
        "verificationToken": token,
        "publicKey": key.public,
        "clientSignature": signature,
        "sessionProfileId": profile_id,
    }
    made = result_of(client.submit("otp_login", "ACTIVITY_TYPE_OTP_LOGIN", params), "otpLoginResult")
    claims = verify_session(made["session"])
    assert (claims["session_type"], claims["session_profile_id"]) == ("signing", profile_id)
    assert claims["exp"] - now_s(simulator) in (120, 119)
    [key_record] = [
        k
        for k in ok(client.query("get_api_keys", userId=ROOT))["apiKeys"]
        if k["credential"]["publicKey"] == key.public
    ]
    assert key_record["credential"] == {
        "publicKey": key.public,
        "type": "CREDENTIAL_TYPE_LOGIN",
        "sessionProfileId": profile_id,
    }


def test_oauth_login_takes_a_session_profile(client, simulator):
    registration = oauth_provider.id_token(simulator.simulator, subject="g-9", audience="google-client")
    org_id, _ = sub_org(client, oauthProviders=[{"providerName": "Google", "oidcToken": registration}])
    profile_id = profile(client, "activity.action == 'SIGN'", name="oauth signing")  # the parent's, seen below
    key = ClientKey()
    token = oauth_provider.id_token(
        simulator.simulator, subject="g-9", audience="google-client", nonce=oauth_provider.nonce_for(key.public)
    )
    params = {"oidcToken": token, "publicKey": key.public, "sessionProfileId": profile_id}
    made = client.submit("oauth_login", "ACTIVITY_TYPE_OAUTH_LOGIN", params, organizationId=org_id)
    claims = verify_session(result_of(made, "oauthLoginResult")["session"])
    assert (claims["session_type"], claims["session_profile_id"]) == ("oauth signing", profile_id)


# --- MFA policies (features/authentication/mfa/*.mdx) ------------------------------------------------


def mfa_policy(client: SimulatorClient, user_id: str, steps: list[list[dict[str, str]]], **extra: Any) -> Any:
    params = {
        "userId": user_id,
        "mfaPolicyName": extra.pop("name", "wallets"),
        "condition": extra.pop("condition", "activity.resource == 'WALLET'"),
        "requiredAuthenticationMethods": [{"any": step} for step in steps],
        "order": extra.pop("order", 0),
    }
    return client.submit("create_mfa_policy", "ACTIVITY_TYPE_CREATE_MFA_POLICY", params, timestampMs=fresh_ms())


def wallet_activity(client: SimulatorClient, name: str = "w") -> dict[str, Any]:
    params = {"walletName": name, "accounts": []}
    made = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params, timestampMs=fresh_ms())
    return ok(made)["activity"]  # type: ignore[no-any-return]


def approve(client: SimulatorClient, activity: dict[str, Any]) -> Any:
    params = {"fingerprint": activity["fingerprint"]}
    return client.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", params, timestampMs=fresh_ms())


def test_only_the_first_matching_policy_by_order_is_enforced(client):
    passkey = [{"type": "AUTHENTICATION_TYPE_PASSKEY"}]
    api_key = [{"type": "AUTHENTICATION_TYPE_API_KEY"}]
    ok(mfa_policy(client, ROOT, [passkey], name="wallets first", order=1))
    ok(mfa_policy(client, ROOT, [api_key], name="catch-all", condition="true", order=2))
    assert wallet_activity(client)["status"] == HELD  # order 1 applies: the API key stamp meets no step of it
    tag = {"userTagName": "t", "userIds": []}
    other = ok(client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", tag, timestampMs=fresh_ms()))
    assert other["activity"]["status"] == COMPLETED  # order 2 applies, met by the request's own API key stamp


def test_sub_organizations_have_mfa_policies_and_root_users_are_held_too(client):
    org_id, user_id, as_root = keyed_sub_org(client, "mfa", key=KEYS["dave"])
    assert as_root is not None
    ok(mfa_policy(as_root, user_id, [[{"type": "AUTHENTICATION_TYPE_API_KEY"}]], condition="true"))
    key = ClientKey()
    login(as_root, key)
    assert wallet_activity(as_key(client, key.private, org_id))["status"] == HELD  # a session key is no API key


def test_a_session_step_naming_a_profile_takes_a_session_of_that_profile(client):
    signing = profile(client, name="signing")
    ok(mfa_policy(client, ROOT, [[{"type": "AUTHENTICATION_TYPE_SESSION", "id": signing}]]))
    plain, profiled = ClientKey(), ClientKey()
    login(client, plain)
    login(client, profiled, sessionProfileId=signing)
    activity = wallet_activity(client)
    assert activity["status"] == HELD
    assert_error(approve(as_key(client, plain.private), activity), 403, 7)
    assert ok(approve(as_key(client, profiled.private), activity))["activity"]["status"] == COMPLETED
    [status] = ok(client.query("get_mfa_status", activityId=activity["id"]))["mfaStatuses"]
    assert status["satisfiedMethods"] == [{"type": "AUTHENTICATION_TYPE_SESSION", "id": signing}]


def test_a_delegated_user_allowed_to_delete_mfa_policies_recovers_a_locked_out_user(client):
    _, bob = api_user(client, "Bob")
    made = mfa_policy(client, ROOT, [[{"type": "AUTHENTICATION_TYPE_PASSKEY"}]], condition="true")
    policy_id = result_of(made, "createMfaPolicyResult")["mfaPolicyId"]
    delete = {"userId": ROOT, "mfaPolicyId": policy_id}
    denied = bob.submit("delete_mfa_policy", "ACTIVITY_TYPE_DELETE_MFA_POLICY", delete, timestampMs=fresh_ms())
    assert_error(denied, 403, 7)  # no policy lets Bob yet
    held = ok(
        client.submit(
            "create_policy",
            "ACTIVITY_TYPE_CREATE_POLICY_V3",
            {
                "policyName": "mfa recovery",
                "effect": "EFFECT_ALLOW",
                "condition": "activity.resource == 'MFA_POLICY' && activity.action == 'DELETE'",
                "consensus": "",
                "notes": "",
            },
            timestampMs=fresh_ms(),
        )
    )["activity"]
    assert held["status"] == HELD  # the locked-out root user's own change waits for a passkey
    assert ok(approve(as_passkey(client), held))["activity"]["status"] == COMPLETED
    gone = bob.submit("delete_mfa_policy", "ACTIVITY_TYPE_DELETE_MFA_POLICY", delete, timestampMs=fresh_ms())
    assert result_of(gone, "deleteMfaPolicyResult") == {"mfaPolicyId": policy_id}
    assert wallet_activity(client)["status"] == COMPLETED


def test_two_delegated_users_must_agree_to_delete_an_mfa_policy(client):
    _, bob = api_user(client, "Bob")
    _, dave = api_user(client, "Dave")
    made = mfa_policy(client, ROOT, [[{"type": "AUTHENTICATION_TYPE_PASSKEY"}]], condition="activity.action == 'SIGN'")
    policy_id = result_of(made, "createMfaPolicyResult")["mfaPolicyId"]
    params = {
        "policyName": "mfa recovery by two",
        "effect": "EFFECT_ALLOW",
        "condition": "activity.resource == 'MFA_POLICY' && activity.action == 'DELETE'",
        "consensus": "approvers.count() >= 2",
        "notes": "",
    }
    ok(client.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", params, timestampMs=fresh_ms()))
    delete = {"userId": ROOT, "mfaPolicyId": policy_id}
    waiting = ok(bob.submit("delete_mfa_policy", "ACTIVITY_TYPE_DELETE_MFA_POLICY", delete, timestampMs=fresh_ms()))
    assert waiting["activity"]["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"  # Bob alone cannot
    assert len(ok(client.query("get_mfa_policies", userId=ROOT))["mfaPolicies"]) == 1
    done = ok(approve(dave, waiting["activity"]))["activity"]
    assert done["status"] == COMPLETED and done["result"]["deleteMfaPolicyResult"] == {"mfaPolicyId": policy_id}
    assert ok(client.query("get_mfa_policies", userId=ROOT))["mfaPolicies"] == []


def as_passkey(client: SimulatorClient) -> SimulatorClient:
    stamper = PasskeyStamper(DEFAULTS["passkeyCredentialId"], DEFAULTS["passkeyPrivateKey"])
    return SimulatorClient(client.base_url, stamper, client.organization_id)


# --- IP allow-lists (features/ip-allowlisting/overview.mdx) ------------------------------------------

SET = ("set_ip_allowlist", "ACTIVITY_TYPE_SET_IP_ALLOWLIST")
REMOVE = ("remove_ip_allowlist", "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST")


def from_ip(client: SimulatorClient, ip: str, op: str = "whoami") -> Any:
    body = {"organizationId": client.organization_id}
    return client.post(f"/public/v1/query/{op}", json.dumps(body).encode(), {"X-Simulator-Client-Ip": ip})


def set_list(client: SimulatorClient, **params: Any) -> Any:
    return client.submit(*SET, params, timestampMs=fresh_ms())


def test_ipv6_rules_are_normalised_and_counted_apart_from_ipv4(client):
    v4 = [{"cidr": f"10.0.{n}.0/24"} for n in range(10)]
    v6 = [{"cidr": f"2001:db8:{n}::5/64"} for n in range(9)] + [{"cidr": "::1/128", "label": "loopback"}]
    assert result_of(set_list(client, enabled=False, rules=v4 + v6), "setIpAllowlistResult") == {}
    rules = ok(client.query("get_ip_allowlist"))["allowlist"]["rules"]
    assert len(rules) == 20 and rules[10]["cidr"] == "2001:db8::/64" and rules[-1]["cidr"] == "::1/128"
    assert (rules[0]["label"], rules[-1]["label"]) == ("", "loopback")  # no label reads back as ""
    assert all(r["createdAt"].isdigit() for r in rules)
    eleven = v6 + [{"cidr": "2001:db8:ff::/64"}]
    assert_error(set_list(client, enabled=False, rules=eleven), 400, 3, "too many IPv6 rules")
    ok(set_list(client, enabled=True, rules=[{"cidr": "127.0.0.1/32"}, {"cidr": "2001:db8:1::/48"}]))
    assert from_ip(client, "2001:db8:1:2::9").status == 200
    assert_error(from_ip(client, "2001:db8:2::9"), 403, 7, "not allowed")
    assert_error(from_ip(client, "not-an-ip"), 403, 7, "not allowed")  # unreadable: onEvaluationError, DENY


def test_the_organizations_list_names_no_key_and_a_keys_list_is_removed_alone(client):
    _, bob = api_user(client, "Bob")
    bob_key = ApiKeyStamper(KEYS["bob"]).public_key
    ok(set_list(client, enabled=True, rules=[{"cidr": "127.0.0.0/24"}, {"cidr": "198.51.100.0/24"}]))
    ok(set_list(client, publicKey=bob_key, rules=[{"cidr": "192.0.2.0/24"}]))
    org_list = ok(client.query("get_ip_allowlist"))["allowlist"]
    assert org_list["organizationId"] == client.organization_id and org_list.get("publicKey") is None
    assert_error(from_ip(bob, "198.51.100.1"), 403, 7, "API key")
    ok(client.submit(*REMOVE, {"publicKey": bob_key}, timestampMs=fresh_ms()))
    assert ok(client.query("get_ip_allowlist", publicKey=bob_key))["allowlist"]["rules"] == []
    assert from_ip(bob, "198.51.100.1").status == 200  # back under the organization's list
    assert_error(from_ip(bob, "192.0.2.1"), 403, 7, "organization")
    assert len(ok(client.query("get_ip_allowlist"))["allowlist"]["rules"]) == 2
    ok(set_list(client, rules=[{"cidr": "127.0.0.0/24"}]))  # enabled left out: the list stays as it was
    shown = ok(client.query("get_ip_allowlist"))["allowlist"]
    assert shown["enabled"] is True and [r["cidr"] for r in shown["rules"]] == ["127.0.0.0/24"]  # replaced whole


def test_a_user_a_policy_allows_manages_the_list_as_an_activity(client):
    _, bob = api_user(client, "Bob")
    assert_error(set_list(bob, enabled=False, rules=[]), 403, 7)  # policies decide, as for any activity
    allow(client, "activity.type == 'ACTIVITY_TYPE_SET_IP_ALLOWLIST'", name="network admins")
    made = ok(set_list(bob, enabled=False, rules=[{"cidr": "192.0.2.0/24", "label": "office"}]))["activity"]
    assert made["status"] == COMPLETED and made["type"] == "ACTIVITY_TYPE_SET_IP_ALLOWLIST"
    assert made["intent"]["setIpAllowlistIntent"]["rules"] == [{"cidr": "192.0.2.0/24", "label": "office"}]
    assert ok(client.query("get_activity", activityId=made["id"]))["activity"]["status"] == COMPLETED


@pytest.mark.simulator_scenario("../scenarios/auth_proxy.yaml")
def test_auth_proxy_requests_are_not_held_to_the_list(client, simulator):
    ok(set_list(client, enabled=True, rules=[{"cidr": "192.0.2.0/24"}]))
    assert_error(client.query("whoami"), 403, 7, "not allowed")  # this machine's address is not on it
    proxy = SimulatorClient(simulator.proxy_url, None, "")
    headers = {"X-Auth-Proxy-Config-Id": "proxy-config-1", "Origin": "http://localhost:3000"}
    body = json.dumps({"otpType": "OTP_TYPE_EMAIL", "contact": "new@example.com"}).encode()
    assert ok(proxy.post("/v1/otp_init", body, headers))["otpId"]


# --- credentials (features/users/credentials.mdx) --------------------------------------------------


def credential_types(client: SimulatorClient, user_id: str, org_id: str | None = None) -> dict[str, str]:
    keys = ok(client.query("get_api_keys", userId=user_id, organizationId=org_id or client.organization_id))
    return {k["credential"]["publicKey"]: k["credential"]["type"] for k in keys["apiKeys"]}


def test_each_way_of_issuing_a_key_names_its_credential_type(client, simulator):
    user_id = new_user(client, "Keys")
    secp, ed = ApiKeyStamper(KEYS["carol"], "secp256k1"), ApiKeyStamper(KEYS["erin"], "ed25519")
    p256 = ApiKeyStamper(KEYS["dave"])
    keys = [
        {"apiKeyName": "p256", "publicKey": p256.public_key, "curveType": "API_KEY_CURVE_P256"},
        {"apiKeyName": "k1", "publicKey": secp.public_key, "curveType": "API_KEY_CURVE_SECP256K1"},
        {"apiKeyName": "ed", "publicKey": ed.public_key, "curveType": "API_KEY_CURVE_ED25519"},
    ]
    ok(client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {"userId": user_id, "apiKeys": keys}))
    assert credential_types(client, user_id) == {
        p256.public_key: "CREDENTIAL_TYPE_API_KEY_P256",
        secp.public_key: "CREDENTIAL_TYPE_API_KEY_SECP256K1",
        ed.public_key: "CREDENTIAL_TYPE_API_KEY_ED25519",
    }
    for stamper in (p256, secp, ed):  # each curve stamps
        assert (
            ok(SimulatorClient(client.base_url, stamper, client.organization_id).query("whoami"))["userId"] == user_id
        )
    session = ClientKey()
    login(client, session)
    assert credential_types(client, ROOT)[session.public] == "CREDENTIAL_TYPE_LOGIN"
    [passkey] = ok(client.query("get_authenticators", userId=ROOT))["authenticators"]
    assert passkey["credential"]["type"] == "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"


def test_email_recovery_issues_a_recover_user_key_that_expires_in_15_minutes(client, simulator):
    org_id, user_id = sub_org(client)
    params = {
        "email": "alice@example.com",
        "targetPublicKey": ClientKey().uncompressed,
        "emailCustomization": {"appName": "Demo"},
    }
    ok(
        client.submit(
            "init_user_email_recovery", "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2", params, organizationId=org_id
        )
    )
    keys = ok(client.query("get_api_keys", userId=user_id, organizationId=org_id))["apiKeys"]
    assert [(k["credential"]["type"], k["expirationSeconds"]) for k in keys] == [
        ("CREDENTIAL_TYPE_RECOVER_USER_KEY_P256", "900")
    ]


# --- what each response carries (api-reference/activities/*, api-reference/queries/*) ----------------

TIMESTAMP = {"seconds", "nanos"}


def test_session_activities_answer_the_fields_the_reference_lists(client, simulator):
    rw = ok(
        client.submit(
            "create_read_write_session",
            "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
            {"targetPublicKey": ClientKey().uncompressed},
        )
    )["activity"]
    assert set(rw["result"]["createReadWriteSessionResultV2"]) == {
        "organizationId",
        "organizationName",
        "userId",
        "username",
        "apiKeyId",
        "credentialBundle",
    }
    assert rw["intent"]["createReadWriteSessionIntentV2"]["targetPublicKey"]
    ro = result_of(
        client.submit("create_read_only_session", "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION", {}),
        "createReadOnlySessionResult",
    )
    assert set(ro) == {"organizationId", "organizationName", "userId", "username", "session", "sessionExpiry"}
    assert int(ro["sessionExpiry"]) > now_s(simulator)  # UTC seconds
    key = ClientKey()
    made = result_of(client.submit(*LOGIN, {"publicKey": key.public}), "stampLoginResult")
    assert set(made) == {"session"}
    assert set(verify_session(made["session"])) == {"exp", "public_key", "session_type", "user_id", "organization_id"}


def test_session_profile_answers_carry_the_listed_fields(client):
    profile_id = profile(client, "true", name="listed", expirationSeconds="600", notes="n")
    made = ok(client.query("get_session_profile", sessionProfileId=profile_id))["sessionProfile"]
    assert set(made) == {
        "sessionProfileId",
        "sessionProfileName",
        "scope",
        "expirationSeconds",
        "notes",
        "createdAt",
        "updatedAt",
    }
    assert set(made["createdAt"]) == set(made["updatedAt"]) == TIMESTAMP
    assert ok(client.query("get_session_profiles"))["sessionProfiles"] == [made]


def test_mfa_policy_answers_carry_the_listed_fields(client):
    steps = [[{"type": "AUTHENTICATION_TYPE_PASSKEY"}]]
    made = mfa_policy(client, ROOT, steps, condition="activity.action == 'EXPORT'")
    policy_id = result_of(made, "createMfaPolicyResult")["mfaPolicyId"]
    assert set(ok(made)["activity"]["result"]["createMfaPolicyResult"]) == {"mfaPolicyId"}
    shown = ok(client.query("get_mfa_policy", userId=ROOT, mfaPolicyId=policy_id))["mfaPolicy"]
    assert set(shown) >= {
        "mfaPolicyId",
        "mfaPolicyName",
        "condition",
        "requiredAuthenticationMethods",
        "order",
        "createdAt",
        "updatedAt",
    }
    assert ok(client.query("get_mfa_policies", userId=ROOT))["mfaPolicies"] == [shown]
    update = {"userId": ROOT, "mfaPolicyId": policy_id, "notes": "n"}
    updated = client.submit("update_mfa_policy", "ACTIVITY_TYPE_UPDATE_MFA_POLICY", update, timestampMs=fresh_ms())
    assert result_of(updated, "updateMfaPolicyResult") == {"mfaPolicyId": policy_id}
    ok(mfa_policy(client, ROOT, steps, name="all", condition="true", order=1))
    held = wallet_activity(client)
    [status] = ok(client.query("get_mfa_status", activityId=held["id"]))["mfaStatuses"]
    assert set(status) == {"mfaPolicyId", "userId", "satisfied", "satisfiedMethods", "requiredMethods"}
    assert status["requiredMethods"] == [{"any": [{"type": "AUTHENTICATION_TYPE_PASSKEY"}]}]
    delete = {"userId": ROOT, "mfaPolicyId": policy_id}
    deleted = client.submit("delete_mfa_policy", "ACTIVITY_TYPE_DELETE_MFA_POLICY", delete, timestampMs=fresh_ms())
    assert ok(deleted)["activity"]["status"] == HELD  # the catch-all policy holds its own removal too


def test_ip_allowlist_answers_carry_the_listed_fields(client):
    made = ok(set_list(client, enabled=False, rules=[{"cidr": "192.0.2.0/24", "label": "office"}]))["activity"]
    assert made["result"]["setIpAllowlistResult"] == {}
    assert made["intent"]["setIpAllowlistIntent"]["enabled"] is False
    shown = ok(client.query("get_ip_allowlist"))["allowlist"]
    assert set(shown) == {"organizationId", "enabled", "rules", "onEvaluationError"}
    assert set(shown["rules"][0]) == {"cidr", "label", "createdAt"}
    removed = ok(client.submit(*REMOVE, {}, timestampMs=fresh_ms()))["activity"]
    assert removed["result"]["removeIpAllowlistResult"] == {}


def test_authenticator_answers_carry_the_listed_fields(client):
    user_id = new_user(client, "Pat")
    passkey = PasskeyStamper("cGF0LXBhc3NrZXk", ClientKey().private)
    spec = {"authenticatorName": "laptop", "challenge": "Y2g", "attestation": passkey.attestation("Y2g")}
    create = ("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2")
    made = result_of(
        client.submit(*create, {"userId": user_id, "authenticators": [spec]}), "createAuthenticatorsResult"
    )
    assert set(made) == {"authenticatorIds"} and len(made["authenticatorIds"]) == 1
    [listed] = ok(client.query("get_authenticators", userId=user_id))["authenticators"]
    shown = ok(client.query("get_authenticator", authenticatorId=made["authenticatorIds"][0]))["authenticator"]
    assert shown == listed
    assert set(shown) == {
        "transports",
        "attestationType",
        "aaguid",
        "credentialId",
        "model",
        "credential",
        "authenticatorId",
        "authenticatorName",
        "createdAt",
        "updatedAt",
    }
    assert shown["credentialId"] == "cGF0LXBhc3NrZXk"  # the non-discoverable credential's id is kept
    assert shown["credential"]["type"] == "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"
    delete = {"userId": user_id, "authenticatorIds": made["authenticatorIds"]}
    gone = client.submit("delete_authenticators", "ACTIVITY_TYPE_DELETE_AUTHENTICATORS", delete)
    assert result_of(gone, "deleteAuthenticatorsResult") == {"authenticatorIds": made["authenticatorIds"]}
    assert ok(client.query("get_authenticators", userId=user_id))["authenticators"] == []
