"""Users after creation, policies, tags and wallets: updates and deletions, through HTTP and the
official Python client."""

from __future__ import annotations

import pytest
from conftest import ETH_ACCOUNT, new_user, ok, result_of
from lifecycle_helpers import KEYS, ROOT_USER, allow, api_user, sub_org, verification_token
from support import assert_error

from simulator.testing import ApiKeyStamper, PasskeyStamper, SimulatorClient

T = pytest.importorskip("turnkey_sdk_types")
PASSKEY_KEY = "2655373bceaadce88dc26944d9fceb736aff770274de78ffd02c741918b9e7d4"


def user(client, user_id):
    return ok(client.query("get_user", userId=user_id))["user"]


def test_create_api_only_users_and_stamp_with_their_key(client):
    stamper = ApiKeyStamper(KEYS["bob"])
    spec = {"userName": "Backend", "userTags": [], "apiKeys": [{"apiKeyName": "b", "publicKey": stamper.public_key}]}
    made = client.submit("create_api_only_users", "ACTIVITY_TYPE_CREATE_API_ONLY_USERS", {"apiOnlyUsers": [spec]})
    user_id = result_of(made, "createApiOnlyUsersResult")["userIds"][0]
    shown = user(client, user_id)
    assert shown["authenticators"] == [] and shown["apiKeys"][0]["credential"]["type"] == "CREDENTIAL_TYPE_API_KEY_P256"
    backend = SimulatorClient(client.base_url, stamper, client.organization_id)
    assert ok(backend.query("whoami"))["userId"] == user_id
    bad = {**spec, "userTags": ["00000000-0000-4000-8000-00000000dead"]}
    assert_error(
        client.submit("create_api_only_users", "ACTIVITY_TYPE_CREATE_API_ONLY_USERS", {"apiOnlyUsers": [bad]}),
        404,
        5,
        "user tags",
    )


def test_update_user_replaces_the_given_fields(client):
    user_id = new_user(client)
    tag = result_of(
        client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "ops", "userIds": [user_id]}),
        "createUserTagResult",
    )["userTagId"]
    params = {
        "userId": user_id,
        "userName": "Alicia",
        "userEmail": "alicia@example.com",
        "userPhoneNumber": "+14155550101",
        "userTagIds": [],
    }
    assert result_of(client.submit("update_user", "ACTIVITY_TYPE_UPDATE_USER", params), "updateUserResult") == {
        "userId": user_id
    }
    shown = user(client, user_id)
    assert (shown["userName"], shown["userEmail"], shown["userPhoneNumber"], shown["userTags"]) == (
        "Alicia",
        "alicia@example.com",
        "+14155550101",
        [],
    )
    ok(client.submit("update_user", "ACTIVITY_TYPE_UPDATE_USER", {"userId": user_id, "userTagIds": [tag]}))
    assert user(client, user_id)["userTags"] == [tag] and user(client, user_id)["userName"] == "Alicia"
    assert_error(
        client.submit("update_user", "ACTIVITY_TYPE_UPDATE_USER", {"userId": "00000000-0000-4000-8000-0000000000d3"}),
        404,
        5,
        "00000000-0000-4000-8000-0000000000d3",
    )
    assert_error(
        client.submit("update_user", "ACTIVITY_TYPE_UPDATE_USER", {"userId": user_id, "userPhoneNumber": "555"}),
        400,
        3,
        "E.164",
    )


def test_update_user_name(client):
    user_id = new_user(client)
    assert result_of(
        client.submit("update_user_name", "ACTIVITY_TYPE_UPDATE_USER_NAME", {"userId": user_id, "userName": "Al"}),
        "updateUserNameResult",
    ) == {"userId": user_id}
    assert user(client, user_id)["userName"] == "Al"
    assert_error(
        client.submit("update_user_name", "ACTIVITY_TYPE_UPDATE_USER_NAME", {"userId": user_id, "userName": " "}),
        400,
        3,
        "empty",
    )


def test_update_user_email_with_and_without_a_verification_token(client, simulator):
    user_id = new_user(client)
    update = ("update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL")
    ok(client.submit(*update, {"userId": user_id, "userEmail": "a@example.com"}))
    assert user(client, user_id)["userEmail"] == "a@example.com"
    assert_error(client.submit(*update, {"userId": user_id, "userEmail": "not-an-email"}), 400, 3, "invalid email")
    token = verification_token(client, simulator.simulator.store, "b@example.com")
    assert_error(
        client.submit(*update, {"userId": user_id, "userEmail": "c@example.com", "verificationToken": token}),
        400,
        3,
        "another email contact",
    )
    assert_error(
        client.submit(*update, {"userId": user_id, "userEmail": "b@example.com", "verificationToken": "x.y.z"}),
        400,
        3,
        "invalid verification token",
    )
    ok(client.submit(*update, {"userId": user_id, "userEmail": "b@example.com", "verificationToken": token}))
    assert simulator.simulator.store.org(client.organization_id).users[user_id].email_verified
    assert_error(
        client.submit(*update, {"userId": user_id, "userEmail": "b@example.com", "verificationToken": token}),
        400,
        3,
        "already used",
    )
    ok(client.submit(*update, {"userId": user_id, "userEmail": ""}))
    assert "userEmail" not in user(client, user_id)


def test_update_user_phone_number_with_a_verification_token(client, simulator):
    user_id = new_user(client)
    update = ("update_user_phone_number", "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER")
    email_token = verification_token(client, simulator.simulator.store, "x@example.com")
    assert_error(
        client.submit(
            *update, {"userId": user_id, "userPhoneNumber": "+14155550102", "verificationToken": email_token}
        ),
        400,
        3,
        "OTP_TYPE_SMS",
    )
    token = verification_token(client, simulator.simulator.store, "+14155550102", "OTP_TYPE_SMS")
    result = client.submit(*update, {"userId": user_id, "userPhoneNumber": "+14155550102", "verificationToken": token})
    assert result_of(result, "updateUserPhoneNumberResult") == {"userId": user_id}
    stored = simulator.simulator.store.org(client.organization_id).users[user_id]
    assert stored.phone_number == "+14155550102" and stored.phone_verified
    ok(client.submit(*update, {"userId": user_id, "userPhoneNumber": ""}))
    assert "userPhoneNumber" not in user(client, user_id) and not stored.phone_verified


def test_delete_users_takes_their_credentials_and_votes(client):
    bob_id, bob = api_user(client, "Bob")
    done = result_of(
        client.submit("delete_users", "ACTIVITY_TYPE_DELETE_USERS", {"userIds": [bob_id]}), "deleteUsersResult"
    )
    assert done == {"userIds": [bob_id]}
    assert_error(bob.query("whoami"), 401, 16, "could not find public key")
    assert_error(client.submit("delete_users", "ACTIVITY_TYPE_DELETE_USERS", {"userIds": [bob_id]}), 404, 5, bob_id)
    assert_error(
        client.submit("delete_users", "ACTIVITY_TYPE_DELETE_USERS", {"userIds": [ROOT_USER]}),
        400,
        3,
        "quorum users missing",
    )


def test_a_deleted_approvers_vote_stops_counting(client):
    bob_id, bob = api_user(client, "Bob")
    carol_id, carol = api_user(client, "Carol")
    ok(
        client.submit(
            "update_root_quorum",
            "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
            {"threshold": 3, "userIds": [ROOT_USER, bob_id, carol_id]},
        )
    )
    waiting = ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}))[
        "activity"
    ]
    ok(bob.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": waiting["fingerprint"]}))
    shrink = ok(
        client.submit(
            "update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", {"threshold": 2, "userIds": [ROOT_USER, carol_id]}
        )
    )["activity"]
    ok(bob.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": shrink["fingerprint"]}))
    ok(carol.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": shrink["fingerprint"]}))
    deleting = ok(client.submit("delete_users", "ACTIVITY_TYPE_DELETE_USERS", {"userIds": [bob_id]}))["activity"]
    ok(carol.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": deleting["fingerprint"]}))
    # The wallet had root and Bob; Bob is gone, so Carol's approval completes it only with root's own.
    wallet = ok(
        carol.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": waiting["fingerprint"]})
    )
    assert wallet["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert len(ok(client.query("list_wallets"))["wallets"]) == 1


def test_create_authenticators_registers_a_passkey_that_stamps(client):
    user_id = new_user(client)
    passkey = PasskeyStamper("bmV3LXBhc3NrZXk", PASSKEY_KEY)
    spec = {"authenticatorName": "laptop", "challenge": "Y2g", "attestation": passkey.attestation("Y2g")}
    create = ("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2")
    made = result_of(
        client.submit(*create, {"userId": user_id, "authenticators": [spec]}), "createAuthenticatorsResult"
    )
    assert len(made["authenticatorIds"]) == 1
    as_passkey = SimulatorClient(client.base_url, passkey, client.organization_id)
    assert ok(as_passkey.query("whoami"))["userId"] == user_id
    assert_error(client.submit(*create, {"userId": user_id, "authenticators": [spec]}), 400, 3, "already exists")
    wrong = {**spec, "challenge": "b3RoZXI"}
    assert_error(
        client.submit(*create, {"userId": user_id, "authenticators": [wrong]}),
        400,
        3,
        "invalid authenticator attestation",
    )
    broken = {**spec, "attestation": {**spec["attestation"], "attestationObject": "AAAA"}}
    assert_error(client.submit(*create, {"userId": user_id, "authenticators": [broken]}), 400, 3, "invalid attestation")


def test_policies_update_and_delete(client):
    policy_id = allow(client, "activity.resource == 'WALLET'")
    update = ("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2")
    ok(client.submit(*update, {"policyId": policy_id, "policyName": "wallets", "policyNotes": "n"}))
    shown = ok(client.query("get_policy", policyId=policy_id))["policy"]
    assert (shown["policyName"], shown["condition"], shown["notes"]) == (
        "wallets",
        "activity.resource == 'WALLET'",
        "n",
    )
    allow(client, "false", name="other")
    assert_error(
        client.submit(*update, {"policyId": policy_id, "policyName": "other"}), 400, 3, "policy label must be unique"
    )
    assert_error(
        client.submit(*update, {"policyId": policy_id, "policyCondition": "activity.("}),
        400,
        3,
        "invalid policy condition",
    )
    done = result_of(
        client.submit("delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", {"policyId": policy_id}), "deletePolicyResult"
    )
    assert done == {"policyId": policy_id}
    assert_error(
        client.submit("delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", {"policyId": policy_id}), 404, 5, policy_id
    )


def test_an_updated_policy_governs_at_once(client):
    _, bob = api_user(client, "Bob")
    policy_id = allow(client, "activity.resource == 'POLICY'")
    wallet = ("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET")
    assert_error(bob.submit(*wallet, {"walletName": "b", "accounts": []}), 403, 7)
    ok(
        client.submit(
            "update_policy",
            "ACTIVITY_TYPE_UPDATE_POLICY_V2",
            {"policyId": policy_id, "policyCondition": "activity.resource == 'WALLET'"},
        )
    )
    assert (
        ok(bob.submit(*wallet, {"walletName": "b", "accounts": []}))["activity"]["status"]
        == "ACTIVITY_STATUS_COMPLETED"
    )


def test_private_key_tags_update_and_delete(client):
    keys = result_of(
        client.submit(
            "create_private_keys",
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
            {
                "privateKeys": [
                    {"privateKeyName": n, "curve": "CURVE_SECP256K1", "addressFormats": [], "privateKeyTags": []}
                    for n in ("a", "b")
                ]
            },
        ),
        "createPrivateKeysResultV2",
    )
    a, b = (k["privateKeyId"] for k in keys["privateKeys"])
    tag = result_of(
        client.submit(
            "create_private_key_tag",
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
            {"privateKeyTagName": "hot", "privateKeyIds": [a]},
        ),
        "createPrivateKeyTagResult",
    )["privateKeyTagId"]
    update = ("update_private_key_tag", "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG")
    params = {
        "privateKeyTagId": tag,
        "newPrivateKeyTagName": "warm",
        "addPrivateKeyIds": [b],
        "removePrivateKeyIds": [a],
    }
    assert result_of(client.submit(*update, params), "updatePrivateKeyTagResult") == {"privateKeyTagId": tag}
    assert ok(client.query("get_private_key", privateKeyId=b))["privateKey"]["privateKeyTags"] == [tag]
    assert ok(client.query("get_private_key", privateKeyId=a))["privateKey"]["privateKeyTags"] == []
    assert ok(client.query("list_private_key_tags"))["privateKeyTags"][0]["tagName"] == "warm"
    assert_error(client.submit(*update, {**params, "addPrivateKeyIds": ["nope"]}), 404, 5, "nope")
    delete = ("delete_private_key_tags", "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS")
    assert result_of(client.submit(*delete, {"privateKeyTagIds": [tag]}), "deletePrivateKeyTagsResult") == {
        "privateKeyTagIds": [tag],
        "privateKeyIds": [b],
    }
    assert ok(client.query("get_private_key", privateKeyId=b))["privateKey"]["privateKeyTags"] == []
    assert_error(client.submit(*delete, {"privateKeyTagIds": [tag]}), 404, 5, tag)


def test_delete_user_tags_detaches_them(client):
    user_id = new_user(client)
    tag = result_of(
        client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "ops", "userIds": [user_id]}),
        "createUserTagResult",
    )["userTagId"]
    delete = ("delete_user_tags", "ACTIVITY_TYPE_DELETE_USER_TAGS")
    assert result_of(client.submit(*delete, {"userTagIds": [tag]}), "deleteUserTagsResult") == {
        "userTagIds": [tag],
        "userIds": [user_id],
    }
    assert user(client, user_id)["userTags"] == [] and ok(client.query("list_user_tags"))["userTags"] == []
    assert_error(client.submit(*delete, {"userTagIds": [tag]}), 404, 5, tag)


def test_update_wallet_and_get_wallet_account(client):
    made = result_of(
        client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH_ACCOUNT]}),
        "createWalletResult",
    )
    wallet_id, address = made["walletId"], made["addresses"][0]
    ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "taken", "accounts": []}))
    update = ("update_wallet", "ACTIVITY_TYPE_UPDATE_WALLET")
    assert result_of(client.submit(*update, {"walletId": wallet_id, "walletName": "main"}), "updateWalletResult") == {
        "walletId": wallet_id
    }
    assert ok(client.query("get_wallet", walletId=wallet_id))["wallet"]["walletName"] == "main"
    assert_error(client.submit(*update, {"walletId": wallet_id, "walletName": "taken"}), 400, 3, "must be unique")
    assert_error(
        client.submit(*update, {"walletId": "00000000-0000-4000-8000-0000000000d4", "walletName": "x"}),
        404,
        5,
        "00000000-0000-4000-8000-0000000000d4",
    )
    by_address = ok(client.query("get_wallet_account", walletId=wallet_id, address=address))["account"]
    by_path = ok(client.query("get_wallet_account", walletId=wallet_id, path=ETH_ACCOUNT["path"]))["account"]
    assert by_address == by_path and by_address["address"] == address
    assert_error(client.query("get_wallet_account", walletId=wallet_id), 400, 3, "address or its path")
    assert_error(client.query("get_wallet_account", walletId=wallet_id, path="m/0"), 404, 5, "no account")


def test_a_parent_cannot_update_a_sub_organizations_users(client):
    org_id, user_id, _ = sub_org(client, "sub")
    params = {"userId": user_id, "userName": "x"}
    response = client.submit("update_user_name", "ACTIVITY_TYPE_UPDATE_USER_NAME", params, organizationId=org_id)
    assert_error(response, 403, 7, "cannot write")


def test_the_official_python_client(turnkey_client, client):
    tk = turnkey_client
    user_id = new_user(client)
    assert tk.update_user(T.UpdateUserBody(userId=user_id, userName="P", userTagIds=[])).userId == user_id
    assert tk.update_user_name(T.UpdateUserNameBody(userId=user_id, userName="Q")).userId == user_id
    assert tk.update_user_email(T.UpdateUserEmailBody(userId=user_id, userEmail="q@example.com")).userId == user_id
    assert (
        tk.update_user_phone_number(T.UpdateUserPhoneNumberBody(userId=user_id, userPhoneNumber="+14155550109")).userId
        == user_id
    )
    passkey = PasskeyStamper("cHkta2V5", PASSKEY_KEY)
    spec = T.v1AuthenticatorParamsV2(authenticatorName="p", challenge="Yw", attestation=passkey.attestation("Yw"))
    assert (
        len(
            tk.create_authenticators(T.CreateAuthenticatorsBody(userId=user_id, authenticators=[spec])).authenticatorIds
        )
        == 1
    )
    policy_id = allow(client, "false")
    assert tk.update_policy(T.UpdatePolicyBody(policyId=policy_id, policyName="py")).policyId == policy_id
    assert tk.delete_policy(T.DeletePolicyBody(policyId=policy_id)).policyId == policy_id
    wallet_id = tk.create_wallet(
        T.CreateWalletBody(walletName="py", accounts=[T.v1WalletAccountParams(**ETH_ACCOUNT)])
    ).walletId
    assert tk.update_wallet(T.UpdateWalletBody(walletId=wallet_id, walletName="py2")).walletId == wallet_id
    account = tk.get_wallet_account(T.GetWalletAccountBody(walletId=wallet_id, path=ETH_ACCOUNT["path"])).account
    assert account.walletId == wallet_id
    tag = tk.create_user_tag(T.CreateUserTagBody(userTagName="t", userIds=[user_id])).userTagId
    assert tk.delete_user_tags(T.DeleteUserTagsBody(userTagIds=[tag])).userIds == [user_id]
    assert tk.delete_users(T.DeleteUsersBody(userIds=[user_id])).userIds == [user_id]
