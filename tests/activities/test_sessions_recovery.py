"""Sessions and recovery: read-write and read-only sessions, email auth, email recovery, legacy
OAuth, session profiles and the attested stamp_login of @turnkey/core >= 2.7.

Bundles are opened with pyhpke and sessions checked with `cryptography` (tests/support.py), never
with the simulator's own code.
"""

from __future__ import annotations

import hashlib

import pytest
from conftest import DEFAULTS, ok, result_of
from session_helpers import AttestedStamper, verification_token
from support import EMAIL, ClientKey, assert_error, open_bundle, sub_org, verify_session

from simulator.standins import oauth_provider
from simulator.testing import ApiKeyStamper, PasskeyStamper, SimulatorClient

RW = "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2"
APP = {"appName": "Demo", "magicLinkTemplate": "https://app.example/login?bundle=%s"}


class SessionHeader:
    def __init__(self, token: str) -> None:
        self.token = token

    def stamp(self, body: bytes) -> tuple[str, str]:
        return "X-Session", self.token


def as_key(simulator, private_hex: str, org_id: str = DEFAULTS["organizationId"]) -> SimulatorClient:
    return SimulatorClient(simulator.url, ApiKeyStamper(private_hex), org_id)


# --- read-write and read-only sessions -----------------------------------------------------------


def test_read_write_session_bundle_opens_stamps_and_expires(client, simulator):
    target = ClientKey()
    made = result_of(
        client.submit("create_read_write_session", RW, {"targetPublicKey": target.uncompressed}),
        "createReadWriteSessionResultV2",
    )
    assert (made["organizationId"], made["userId"], made["username"]) == (
        DEFAULTS["organizationId"],
        DEFAULTS["userId"],
        "Root User",
    )
    session = as_key(simulator, open_bundle(made["credentialBundle"], target))
    assert ok(session.query("whoami"))["userId"] == DEFAULTS["userId"]
    key = ok(client.query("get_api_key", apiKeyId=made["apiKeyId"]))["apiKey"]
    assert key["credential"]["type"] == "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256"
    assert key["expirationSeconds"] == "900" and key["apiKeyName"].startswith("Read Write Session - ")
    simulator.clock.advance(901)
    assert_error(session.query("whoami"), 401, 16, "expired api key")


def test_read_write_session_for_another_user_and_invalidate_existing(client, simulator):
    from conftest import new_user

    bob = new_user(client, "Bob")
    first, second = ClientKey(), ClientKey()
    one = result_of(
        client.submit(
            "create_read_write_session", RW, {"targetPublicKey": first.uncompressed, "userId": bob, "apiKeyName": "rw"}
        ),
        "createReadWriteSessionResultV2",
    )
    assert one["userId"] == bob and one["username"] == "Bob"
    params = {"targetPublicKey": second.uncompressed, "userId": bob, "invalidateExisting": True}
    two = result_of(client.submit("create_read_write_session", RW, params), "createReadWriteSessionResultV2")
    keys = {k["apiKeyId"] for k in ok(client.query("get_api_keys", userId=bob))["apiKeys"]}
    assert two["apiKeyId"] in keys and one["apiKeyId"] not in keys


@pytest.mark.parametrize(
    "params, status, phrase",
    [
        ({"targetPublicKey": "04abcd"}, 400, "invalid targetPublicKey"),
        (
            {"targetPublicKey": ClientKey().uncompressed, "userId": "00000000-0000-4000-8000-0000000000d1"},
            404,
            "user 00000000-0000-4000-8000-0000000000d1 not found",
        ),
        ({"targetPublicKey": ClientKey().uncompressed, "expirationSeconds": "0"}, 400, "invalid expirationSeconds"),
    ],
)
def test_read_write_session_refusals(client, params, status, phrase):
    assert_error(client.submit("create_read_write_session", RW, params), status, 3 if status == 400 else 5, phrase)


def test_read_only_session_reads_never_writes_and_expires(client, simulator):
    now = simulator.clock.now_ms() // 1000
    made = result_of(
        client.submit("create_read_only_session", "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION", {}),
        "createReadOnlySessionResult",
    )
    assert int(made["sessionExpiry"]) - now in (3600, 3601) and made["organizationName"] == "Simulated Organization"
    claims = verify_session(made["session"])
    assert claims["session_type"] == "SESSION_TYPE_READ_ONLY" and claims["user_id"] == DEFAULTS["userId"]
    reader = SimulatorClient(simulator.url, SessionHeader(made["session"]), DEFAULTS["organizationId"])
    assert ok(reader.query("whoami"))["userId"] == DEFAULTS["userId"]
    write = reader.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []})
    assert_error(write, 403, 7, "read-only session")
    forged = SimulatorClient(simulator.url, SessionHeader(made["session"][:-4] + "AAAA"), DEFAULTS["organizationId"])
    assert_error(forged.query("whoami"), 401, 16, "invalid session")
    simulator.clock.advance(3601)
    assert_error(reader.query("whoami"), 401, 16, "expired")


# --- email auth and recovery -------------------------------------------------------------------


def test_email_auth_mails_a_bundle_that_opens_and_stamps(client, simulator):
    org_id, user_id = sub_org(client)
    target = ClientKey()
    params = {"email": EMAIL, "targetPublicKey": target.uncompressed, "emailCustomization": APP}
    made = result_of(
        client.submit("email_auth", "ACTIVITY_TYPE_EMAIL_AUTH_V3", params, organizationId=org_id), "emailAuthResult"
    )
    assert made["userId"] == user_id
    mail = simulator.simulator.outbox(EMAIL)[-1]
    assert mail["channel"] == "EMAIL_AUTH" and mail["magicLink"].endswith(mail["credentialBundle"])
    session = as_key(simulator, open_bundle(mail["credentialBundle"], target), org_id)
    assert ok(session.query("whoami", organizationId=org_id))["userId"] == user_id
    keys = ok(client.query("get_api_keys", organizationId=org_id, userId=user_id))["apiKeys"]
    assert {k["credential"]["type"] for k in keys} == {"CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256"}


def test_email_auth_refusals(client, simulator):
    org_id, _ = sub_org(client)
    target = ClientKey().uncompressed

    def email_auth(**params):
        body = {"email": EMAIL, "targetPublicKey": target, "emailCustomization": APP, **params}
        return client.submit("email_auth", "ACTIVITY_TYPE_EMAIL_AUTH_V3", body, organizationId=org_id)

    assert_error(email_auth(email="nobody@example.com"), 404, 5, "no user with email nobody@example.com")
    assert_error(email_auth(emailCustomization={"logoUrl": "x"}), 400, 3, "appName")
    assert_error(email_auth(emailCustomization={"appName": "D", "magicLinkTemplate": "x"}), 400, 3, "%s")
    own = client.submit(
        "email_auth",
        "ACTIVITY_TYPE_EMAIL_AUTH_V3",
        {"email": "root@example.com", "targetPublicKey": target, "emailCustomization": APP},
    )
    assert_error(own, 403, 7, "only be initiated by a parent organization")


def test_email_recovery_then_recover_user_with_a_new_passkey(client, simulator):
    org_id, user_id = sub_org(client)
    target = ClientKey()
    params = {"email": EMAIL, "targetPublicKey": target.uncompressed, "emailCustomization": APP}
    started = result_of(
        client.submit(
            "init_user_email_recovery", "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2", params, organizationId=org_id
        ),
        "initUserEmailRecoveryResult",
    )
    assert started == {"userId": user_id}
    mail = simulator.simulator.outbox(EMAIL)[-1]
    assert mail["channel"] == "EMAIL_RECOVERY"
    recovery = as_key(simulator, open_bundle(mail["credentialBundle"], target), org_id)
    passkey = PasskeyStamper("cmVjb3ZlcmVkLXBhc3NrZXk", ClientKey().private)
    recover = {
        "userId": user_id,
        "authenticator": {"authenticatorName": "new", "challenge": "c", "attestation": passkey.attestation("c")},
    }
    done = result_of(
        recovery.submit("recover_user", "ACTIVITY_TYPE_RECOVER_USER", recover, organizationId=org_id),
        "recoverUserResult",
    )
    assert isinstance(done["authenticatorId"], list) and len(done["authenticatorId"]) == 1
    with_passkey = SimulatorClient(simulator.url, passkey, org_id)
    assert ok(with_passkey.query("whoami", organizationId=org_id))["userId"] == user_id
    again = recovery.submit("recover_user", "ACTIVITY_TYPE_RECOVER_USER", recover, organizationId=org_id)
    assert_error(again, 401, 16, "could not find public key")  # the recovery key is spent


def test_recover_user_needs_the_recovery_credential(client):
    recover = {
        "userId": DEFAULTS["userId"],
        "authenticator": {
            "authenticatorName": "n",
            "challenge": "c",
            "attestation": PasskeyStamper("b3RoZXI", ClientKey().private).attestation("c"),
        },
    }
    assert_error(client.submit("recover_user", "ACTIVITY_TYPE_RECOVER_USER", recover), 403, 7, "recovery credential")


# --- legacy OAuth ------------------------------------------------------------------------------


def test_legacy_oauth_seals_a_key_to_the_nonce_bound_target(client, simulator):
    target = ClientKey()
    token = oauth_provider.id_token(simulator.simulator, "g-1", "client-1")
    org_id, user_id = sub_org(client, oauthProviders=[{"providerName": "google", "oidcToken": token}])
    nonce = hashlib.sha256(target.uncompressed.encode()).hexdigest()
    login = oauth_provider.id_token(simulator.simulator, "g-1", "client-1", nonce=nonce)
    made = result_of(
        client.submit(
            "oauth",
            "ACTIVITY_TYPE_OAUTH",
            {"oidcToken": login, "targetPublicKey": target.uncompressed},
            organizationId=org_id,
        ),
        "oauthResult",
    )
    assert made["userId"] == user_id
    session = as_key(simulator, open_bundle(made["credentialBundle"], target), org_id)
    assert ok(session.query("whoami", organizationId=org_id))["userId"] == user_id
    unbound = client.submit(
        "oauth",
        "ACTIVITY_TYPE_OAUTH",
        {"oidcToken": token, "targetPublicKey": target.uncompressed},
        organizationId=org_id,
    )
    assert_error(unbound, 400, 3, "the nonce must be the SHA-256")
    stranger = oauth_provider.id_token(simulator.simulator, "someone-else", "client-1", nonce=nonce)
    unknown = client.submit(
        "oauth",
        "ACTIVITY_TYPE_OAUTH",
        {"oidcToken": stranger, "targetPublicKey": target.uncompressed},
        organizationId=org_id,
    )
    assert_error(unknown, 404, 5, "has an OAuth provider")


# --- session profiles ----------------------------------------------------------------------------


def profile(client, name="trading", scope="activity.resource == 'WALLET'", **extra) -> str:
    params = {"sessionProfileName": name, "scope": scope, **extra}
    made = result_of(
        client.submit("create_session_profile", "ACTIVITY_TYPE_CREATE_SESSION_PROFILE", params),
        "createSessionProfileResult",
    )
    return str(made["sessionProfileId"])


def test_session_profiles_govern_the_sessions_made_under_them(client, simulator):
    profile_id = profile(client, expirationSeconds="600", notes="wallets only")
    org_id, _ = sub_org(client)
    listed = ok(client.query("get_session_profiles", organizationId=org_id))["sessionProfiles"]
    assert [p["sessionProfileId"] for p in listed] == [profile_id]  # a sub-organization sees its parent's
    got = ok(client.query("get_session_profile", sessionProfileId=profile_id))["sessionProfile"]
    assert (got["sessionProfileName"], got["expirationSeconds"], got["notes"]) == ("trading", "600", "wallets only")
    key = ClientKey()
    params = {"publicKey": key.public, "expirationSeconds": "900", "sessionProfileId": profile_id}
    session = result_of(client.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", params), "stampLoginResult")
    claims = verify_session(session["session"])
    assert claims["session_type"] == "trading" and claims["session_profile_id"] == profile_id
    assert claims["scope"] == "activity.resource == 'WALLET'"
    assert 599 <= claims["exp"] - simulator.clock.now_ms() // 1000 <= 600  # the shorter of intent and profile
    keys = ok(client.query("get_api_keys", userId=DEFAULTS["userId"]))["apiKeys"]
    assert [k["credential"].get("sessionProfileId") for k in keys if k["credential"]["publicKey"] == key.public] == [
        profile_id
    ]


def test_session_profile_refusals(client):
    profile(client, "taken")
    create = "ACTIVITY_TYPE_CREATE_SESSION_PROFILE"
    dup = client.submit("create_session_profile", create, {"sessionProfileName": "taken", "scope": "true"})
    assert_error(dup, 400, 3, "must be unique")
    bad = client.submit("create_session_profile", create, {"sessionProfileName": "x", "scope": "activity.("})
    assert_error(bad, 400, 3, "invalid session profile scope")
    assert_error(
        client.query("get_session_profile", sessionProfileId="00000000-0000-4000-8000-0000000000d2"),
        404,
        5,
        "session profile 00000000-0000-4000-8000-0000000000d2",
    )
    login = client.submit(
        "stamp_login",
        "ACTIVITY_TYPE_STAMP_LOGIN",
        {"publicKey": ClientKey().public, "sessionProfileId": "00000000-0000-4000-8000-0000000000d2"},
    )
    assert_error(login, 404, 5, "session profile 00000000-0000-4000-8000-0000000000d2")


def test_enforce_scope_refuses_what_the_profile_does_not_allow(client, simulator):
    from simulator import auth
    from simulator.errors import PermissionDenied
    from simulator.handler_support import session_scope
    from simulator.operations import catalogue

    profile_id = profile(client)
    key = ClientKey()
    params = {"publicKey": key.public, "sessionProfileId": profile_id}
    result_of(client.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", params), "stampLoginResult")
    store = simulator.simulator.store
    org = store.org(DEFAULTS["organizationId"])
    user = org.users[DEFAULTS["userId"]]
    key_id = next(k.api_key_id for k in user.api_keys.values() if k.public_key == key.public)
    principal = auth.Principal(org, user, None, key_id)
    wallet, policy = catalogue.get("submit", "create_wallet"), catalogue.get("submit", "create_policy")
    session_scope.enforce_scope(store, principal, wallet, "ACTIVITY_TYPE_CREATE_WALLET", {})
    with pytest.raises(PermissionDenied, match="beyond session restrictions"):
        session_scope.enforce_scope(store, principal, policy, "ACTIVITY_TYPE_CREATE_POLICY_V3", {})


# --- X-Stamp-Attested (stamp_login of @turnkey/core >= 2.7) -------------------------------------


def test_attested_verification_token_logs_into_the_sub_org_named_by_the_token(client, simulator):
    org_id, user_id = sub_org(client)
    key = ClientKey()
    token = verification_token(client, simulator, key)
    attested = SimulatorClient(simulator.url, AttestedStamper(key, token), DEFAULTS["organizationId"])
    params = {"publicKey": key.public, "expirationSeconds": "900", "invalidateExisting": False}
    session = result_of(
        attested.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", params, generateAppProofs=False), "stampLoginResult"
    )["session"]
    claims = verify_session(session)
    assert (claims["organization_id"], claims["user_id"], claims["public_key"]) == (org_id, user_id, key.public)
    assert ok(as_key(simulator, key.private, org_id).query("whoami", organizationId=org_id))["userId"] == user_id
    assert simulator.simulator.store.org(org_id).users[user_id].email_verified
    again = attested.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": key.public})
    assert_error(again, 401, 16, "already used")


def test_attested_oidc_token_logs_in_by_provider(client, simulator):
    token = oauth_provider.id_token(simulator.simulator, "g-7", "client-7")
    org_id, user_id = sub_org(client, oauthProviders=[{"providerName": "google", "oidcToken": token}])
    key = ClientKey()
    login = oauth_provider.id_token(
        simulator.simulator, "g-7", "client-7", nonce=hashlib.sha256(key.public.encode()).hexdigest()
    )
    attested = SimulatorClient(
        simulator.url, AttestedStamper(key, login, "STAMP_ATTESTED_SCHEME_P256_OIDC"), DEFAULTS["organizationId"]
    )
    session = result_of(
        attested.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": key.public}), "stampLoginResult"
    )["session"]
    assert (verify_session(session)["organization_id"], verify_session(session)["user_id"]) == (org_id, user_id)
    unbound = SimulatorClient(
        simulator.url, AttestedStamper(key, token, "STAMP_ATTESTED_SCHEME_P256_OIDC"), DEFAULTS["organizationId"]
    )
    assert_error(
        unbound.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": key.public}), 401, 16, "nonce"
    )


def test_attested_stamp_refusals(client, simulator):
    sub_org(client)
    key, other = ClientKey(), ClientKey()
    token = verification_token(client, simulator, key)
    attested = SimulatorClient(simulator.url, AttestedStamper(key, token), DEFAULTS["organizationId"])
    wrong_key = attested.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": other.public})
    assert_error(wrong_key, 400, 3, "logs in the key its token vouches for")
    not_login = attested.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []})
    assert_error(not_login, 401, 16, "X-Stamp-Attested is accepted for")
    assert_error(attested.query("whoami"), 401, 16, "X-Stamp-Attested is accepted for")
    stolen = SimulatorClient(simulator.url, AttestedStamper(other, token), DEFAULTS["organizationId"])
    stolen_login = stolen.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": other.public})
    assert_error(stolen_login, 401, 16, "another public key")
    garbled = SimulatorClient(simulator.url, AttestedStamper(key, "not.a.jwt"), DEFAULTS["organizationId"])
    assert_error(
        garbled.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": key.public}),
        401,
        16,
        "invalid attested stamp",
    )
    stranger_token = verification_token(client, simulator, key, "stranger@example.com")
    stranger = SimulatorClient(simulator.url, AttestedStamper(key, stranger_token), DEFAULTS["organizationId"])
    assert_error(
        stranger.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", {"publicKey": key.public}),
        401,
        16,
        "no user with email stranger@example.com",
    )
