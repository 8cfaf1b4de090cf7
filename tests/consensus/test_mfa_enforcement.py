"""MFA policies enforced: activities wait in ACTIVITY_STATUS_AUTHENTICATORS_NEEDED until approvals
stamped with the required credentials (API key, passkey, session, attested OTP) meet every step.

Every stamp here is a real one (P-256 API keys, WebAuthn assertions, attested verification tokens),
checked by the simulator as the service would; nothing is voted without a stamp except where the
test is about that.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import pytest
from conftest import DEFAULTS, ok, result_of
from session_helpers import AttestedStamper, verification_token
from support import ClientKey, assert_error

from simulator.testing import ApiKeyStamper, PasskeyStamper, SimulatorClient

ROOT = DEFAULTS["userId"]
HELD = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"
WALLETS = "activity.resource == 'WALLET' && activity.action == 'CREATE'"
API_KEY, PASSKEY = "AUTHENTICATION_TYPE_API_KEY", "AUTHENTICATION_TYPE_PASSKEY"
SESSION, EMAIL_OTP = "AUTHENTICATION_TYPE_SESSION", "AUTHENTICATION_TYPE_EMAIL_OTP"
SECOND_KEY = "5ec0d00000000000000000000000000000000000000000000000000000000001"
TICKS = itertools.count()


def stamped(client: SimulatorClient, stamper: Any) -> SimulatorClient:
    return SimulatorClient(client.base_url, stamper, client.organization_id)


def passkey(client: SimulatorClient) -> SimulatorClient:
    return stamped(client, PasskeyStamper(DEFAULTS["passkeyCredentialId"], DEFAULTS["passkeyPrivateKey"]))


def fresh_ms() -> str:
    """A timestamp no other request of the test used: identical bodies are one request (idempotency)."""
    return str(int(time.time() * 1000) + next(TICKS))


def approve(client: SimulatorClient, activity: dict[str, Any], **extra: Any) -> Any:
    params = {"fingerprint": activity["fingerprint"]}
    return client.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", params, timestampMs=fresh_ms(), **extra)


def new_wallet(client: SimulatorClient, name: str = "held") -> dict[str, Any]:
    body = ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": name, "accounts": []}))
    return body["activity"]  # type: ignore[no-any-return]


def mfa_policy(client: SimulatorClient, user_id: str, steps: list[list[dict[str, str]]], **extra: Any) -> Any:
    params = {
        "userId": user_id,
        "mfaPolicyName": extra.pop("name", "wallets"),
        "condition": extra.pop("condition", WALLETS),
        "requiredAuthenticationMethods": [{"any": step} for step in steps],
        "order": 0,
    }
    return client.submit("create_mfa_policy", "ACTIVITY_TYPE_CREATE_MFA_POLICY", params, timestampMs=fresh_ms())


def statuses(client: SimulatorClient, activity: dict[str, Any], **fields: Any) -> list[dict[str, Any]]:
    return ok(client.query("get_mfa_status", activityId=activity["id"], **fields))["mfaStatuses"]  # type: ignore[no-any-return]


def status_of(client: SimulatorClient, activity: dict[str, Any]) -> str:
    return str(ok(client.query("get_activity", activityId=activity["id"]))["activity"]["status"])


def root_credentials(client: SimulatorClient) -> tuple[str, str]:
    user = ok(client.query("get_user", userId=ROOT))["user"]
    key_id = next(k["apiKeyId"] for k in user["apiKeys"] if k["credential"]["publicKey"] == DEFAULTS["apiPublicKey"])
    return key_id, user["authenticators"][0]["authenticatorId"]


def second_root_key(client: SimulatorClient, user_id: str = ROOT) -> str:
    key = {"apiKeyName": "second", "publicKey": ApiKeyStamper(SECOND_KEY).public_key, "curveType": "API_KEY_CURVE_P256"}
    made = client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {"userId": user_id, "apiKeys": [key]})
    return str(result_of(made, "createApiKeysResult")["apiKeyIds"][0])


def test_an_api_key_step_and_a_passkey_step(client, webhook_receiver):
    key_id, passkey_id = root_credentials(client)
    second_root_key(client)
    ok(mfa_policy(client, ROOT, [[{"type": API_KEY, "id": key_id}], [{"type": PASSKEY}]]))
    other = stamped(client, ApiKeyStamper(SECOND_KEY))
    activity = new_wallet(other)  # stamped with a key the policy does not name: no step met yet
    assert activity["status"] == HELD and activity["result"] == {}
    [status] = statuses(client, activity)
    assert (status["userId"], status["satisfied"], status["satisfiedMethods"]) == (ROOT, False, [])
    assert status["requiredMethods"] == [{"any": [{"type": API_KEY, "id": key_id}]}, {"any": [{"type": PASSKEY}]}]
    assert_error(approve(other, activity), 403, 7, "meets no step", f"API key {key_id}")
    assert statuses(client, activity)[0]["satisfiedMethods"] == []
    assert ok(approve(client, activity))["activity"]["status"] == HELD
    assert statuses(client, activity)[0]["satisfiedMethods"] == [{"type": API_KEY, "id": key_id}]
    done = ok(approve(passkey(client), activity))["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED" and done["result"]["createWalletResult"]["walletId"]
    [status] = statuses(client, activity, userId=ROOT)
    assert status["satisfied"] and status["satisfiedMethods"][1] == {"type": PASSKEY, "id": passkey_id}
    wallets = ok(client.query("list_wallets"))["wallets"]
    assert done["result"]["createWalletResult"]["walletId"] in {w["walletId"] for w in wallets}
    assert_error(approve(client, activity), 400, 3, "only an activity awaiting consensus")
    deliveries = [json.loads(r.get_data()) for r in webhook_receiver.wait_for(4, timeout=5)]
    mine = [d["status"] for d in deliveries if d["id"] == activity["id"]]  # created held, then completed
    assert sorted(mine) == ["ACTIVITY_STATUS_AUTHENTICATORS_NEEDED", "ACTIVITY_STATUS_COMPLETED"]


def test_a_stamp_that_meets_the_policy_raises_no_challenge(client):
    key_id, _ = root_credentials(client)
    ok(mfa_policy(client, ROOT, [[{"type": API_KEY, "id": key_id}, {"type": PASSKEY}]]))
    activity = new_wallet(client)
    assert activity["status"] == "ACTIVITY_STATUS_COMPLETED" and statuses(client, activity) == []
    assert new_wallet(passkey(client), "by passkey")["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_only_the_requester_acts_while_held_and_may_reject(client, simulator):
    ok(mfa_policy(client, ROOT, [[{"type": PASSKEY}]]))
    bob = result_of(
        client.submit(
            "create_users",
            "ACTIVITY_TYPE_CREATE_USERS_V3",
            {"users": [{"userName": "Bob", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}]},
        ),
        "createUsersResult",
    )["userIds"][0]
    activity = new_wallet(client)
    assert activity["status"] == HELD
    with pytest.raises(Exception, match="only the requester"):
        simulator.approve(activity["id"], bob)
    with pytest.raises(Exception, match="no stamp"):
        simulator.approve(activity["id"], ROOT)  # a vote without a stamp proves no credential
    rejected = ok(
        client.submit("reject_activity", "ACTIVITY_TYPE_REJECT_ACTIVITY", {"fingerprint": activity["fingerprint"]})
    )
    assert rejected["activity"]["status"] == "ACTIVITY_STATUS_REJECTED"
    assert ok(client.query("list_wallets"))["wallets"] == []


def test_a_session_step_is_met_by_a_login_key_and_sessions_are_not_transitive(client):
    ok(mfa_policy(client, ROOT, [[{"type": SESSION}]]))
    session_key = ClientKey()
    login = {"publicKey": session_key.public, "expirationSeconds": "900"}
    result_of(client.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", login), "stampLoginResult")
    session = stamped(client, ApiKeyStamper(session_key.private))
    activity = new_wallet(client)
    assert activity["status"] == HELD
    assert_error(approve(passkey(client), activity), 403, 7, "Passkey", "still needed: Session")
    done = ok(approve(session, activity))["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
    [status] = statuses(client, activity)
    assert status["satisfiedMethods"] == [{"type": SESSION, "id": "00000000-0000-0000-0000-000000000000"}]
    ok(mfa_policy(client, ROOT, [[{"type": PASSKEY}]], name="passkey only", condition="activity.action == 'DELETE'"))
    deleting = ok(
        session.submit(
            "delete_wallets",
            "ACTIVITY_TYPE_DELETE_WALLETS",
            {"walletIds": [done["result"]["createWalletResult"]["walletId"]], "deleteWithoutExport": True},
        )
    )["activity"]
    assert deleting["status"] == HELD  # the session stands for itself, never for the passkey behind a login
    assert_error(approve(session, deleting), 403, 7, "Session")


def test_an_email_otp_step_is_met_by_an_attested_stamp(client, simulator):
    ok(mfa_policy(client, ROOT, [[{"type": EMAIL_OTP}]]))
    activity = new_wallet(client)
    assert activity["status"] == HELD
    key = ClientKey()
    attested = stamped(client, AttestedStamper(key, verification_token(client, simulator, key, DEFAULTS["userEmail"])))
    assert ok(approve(attested, activity))["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert statuses(client, activity)[0]["satisfiedMethods"] == [{"type": EMAIL_OTP}]


def test_a_user_without_a_matching_policy_is_unaffected(client):
    ok(mfa_policy(client, ROOT, [[{"type": PASSKEY}]], condition="activity.action == 'SIGN'"))
    alice = result_of(
        client.submit(
            "create_users",
            "ACTIVITY_TYPE_CREATE_USERS_V3",
            {
                "users": [
                    {
                        "userName": "Alice",
                        "userEmail": "alice@example.com",
                        "apiKeys": [],
                        "authenticators": [],
                        "oauthProviders": [],
                        "userTags": [],
                    }
                ]
            },
        ),
        "createUsersResult",
    )["userIds"][0]
    ok(mfa_policy(client, alice, [[{"type": EMAIL_OTP}]], condition="true"))  # Alice's policy binds Alice only
    activity = new_wallet(client)
    assert activity["status"] == "ACTIVITY_STATUS_COMPLETED" and statuses(client, activity) == []


# --- consensus ---------------------------------------------------------------------------------


def agreed(simulator, response: Any) -> dict[str, Any]:
    """A root activity of the two-of-three quorum, approved by Carol without a stamp (setup only)."""
    activity = ok(response)["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    return simulator.approve(activity["id"], "Carol")["activity"]  # type: ignore[no-any-return]


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_consensus_follows_the_requesters_mfa(client, simulator, simulator_user):
    key = {"apiKeyName": "second", "publicKey": ApiKeyStamper(SECOND_KEY).public_key, "curveType": "API_KEY_CURVE_P256"}
    made = agreed(
        simulator,
        client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {"userId": ROOT, "apiKeys": [key]}),
    )
    key_id = made["result"]["createApiKeysResult"]["apiKeyIds"][0]
    agreed(simulator, mfa_policy(client, ROOT, [[{"type": API_KEY, "id": key_id}]]))
    activity = new_wallet(client)
    assert activity["status"] == HELD
    bob = simulator_user("Bob")
    assert_error(approve(bob, activity), 403, 7, "waiting for its requester's MFA")
    after_mfa = ok(approve(stamped(client, ApiKeyStamper(SECOND_KEY)), activity))["activity"]
    assert after_mfa["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED" and statuses(client, activity)[0]["satisfied"]
    assert [v["userId"] for v in after_mfa["votes"]] == [ROOT]  # an MFA approval is no consensus vote
    done = ok(approve(bob, activity))["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED" and len(done["votes"]) == 2


@pytest.mark.simulator_scenario("two_of_three_quorum")
def test_an_approvers_vote_counts_once_their_own_mfa_is_met(client, simulator, simulator_user):
    bob = simulator_user("Bob")
    bob_id = ok(bob.query("whoami"))["userId"]
    key = {"apiKeyName": "second", "publicKey": ApiKeyStamper(SECOND_KEY).public_key, "curveType": "API_KEY_CURVE_P256"}
    made = agreed(
        simulator,
        client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {"userId": bob_id, "apiKeys": [key]}),
    )
    key_id = made["result"]["createApiKeysResult"]["apiKeyIds"][0]
    agreed(simulator, mfa_policy(client, bob_id, [[{"type": API_KEY, "id": key_id}]]))
    activity = new_wallet(client)
    assert activity["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED" and statuses(client, activity) == []
    assert ok(approve(bob, activity))["activity"]["status"] == HELD  # Bob's vote is held, not the activity
    assert status_of(client, activity) == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    [status] = statuses(client, activity, userId=bob_id)
    assert not status["satisfied"] and statuses(client, activity, userId=ROOT) == []
    assert_error(approve(bob, activity), 403, 7, "meets no step")
    done = ok(approve(stamped(bob, ApiKeyStamper(SECOND_KEY)), activity))["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED" and [v["userId"] for v in done["votes"]] == [ROOT, bob_id]


def test_a_held_activity_survives_export_and_import(client, simulator):
    ok(mfa_policy(client, ROOT, [[{"type": PASSKEY}]], condition="activity.resource == 'USER'"))
    tag = {"userTagName": "held", "userIds": []}
    activity = ok(client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", tag))["activity"]
    state = json.loads(json.dumps(simulator.simulator.export_state()))
    simulator.simulator.import_state(state)
    assert status_of(client, activity) == HELD and not statuses(client, activity)[0]["satisfied"]
    assert ok(approve(passkey(client), activity))["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
