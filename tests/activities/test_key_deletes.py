"""Deletes and the deleteWithoutExport rule: refused until exported (or forced), then gone from every
read; tags lose the deleted keys, policies stay as written; a sub-organization deletes itself."""

from __future__ import annotations

from conftest import DEFAULTS, new_user, ok, result_of
from support import assert_error, new_wallet, sub_org_with_key, submit

from simulator import testing

NOT_EXPORTED = "WALLET_ACCOUNT_NOT_EXPORTED"


def export(client, op: str, params: dict) -> None:
    target = testing.ClientKeyPair.generate().public_key
    result_key = {"export_wallet": "exportWalletResult", "export_wallet_account": "exportWalletAccountResult"}
    submit(client, op, {**params, "targetPublicKey": target}, result_key.get(op, "exportPrivateKeyResult"))


def refused(response, phrase: str) -> None:
    assert assert_error(response, 400, 3, phrase, "deleteWithoutExport")["turnkeyErrorCode"] == NOT_EXPORTED


def test_a_wallet_is_deleted_once_exported(client):
    wallet_id = new_wallet(client)["walletId"]
    delete = {"walletIds": [wallet_id]}
    refused(client.submit("delete_wallets", "ACTIVITY_TYPE_DELETE_WALLETS", delete), "wallet has not been exported")
    export(client, "export_wallet", {"walletId": wallet_id})
    assert submit(client, "delete_wallets", delete, "deleteWalletsResult") == {"walletIds": [wallet_id]}
    assert_error(client.query("get_wallet", walletId=wallet_id), 404, 5)
    assert wallet_id not in [w["walletId"] for w in ok(client.query("list_wallets"))["wallets"]]


def test_delete_without_export_forces_it(client):
    wallet_ids = [new_wallet(client, name)["walletId"] for name in ("a", "b")]
    params = {"walletIds": wallet_ids + wallet_ids[:1], "deleteWithoutExport": True}
    assert submit(client, "delete_wallets", params, "deleteWalletsResult") == {"walletIds": wallet_ids}
    assert ok(client.query("list_wallets"))["wallets"] == []


def test_wallet_accounts_need_their_own_or_their_wallets_export(client):
    wallet = new_wallet(client)
    eth_address, sol_address = wallet["addresses"]
    accounts = ok(client.query("list_wallet_accounts", walletId=wallet["walletId"]))["accounts"]
    ids = {a["address"]: a["walletAccountId"] for a in accounts}
    delete = {"walletAccountIds": [ids[eth_address]]}
    response = client.submit("delete_wallet_accounts", "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS", delete)
    refused(response, "wallet account has not been exported")
    export(client, "export_wallet_account", {"address": eth_address})
    assert submit(client, "delete_wallet_accounts", delete, "deleteWalletAccountsResult") == {
        "walletAccountIds": [ids[eth_address]]
    }
    left = ok(client.query("list_wallet_accounts", walletId=wallet["walletId"]))["accounts"]
    assert [a["address"] for a in left] == [sol_address]
    export(client, "export_wallet", {"walletId": wallet["walletId"]})
    submit(client, "delete_wallet_accounts", {"walletAccountIds": [ids[sol_address]]}, "deleteWalletAccountsResult")
    assert_error(
        client.submit("delete_wallet_accounts", "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS", delete), 404, 5, "not found"
    )


def test_a_private_key_leaves_its_tags_and_policies_stay(client):
    made = submit(
        client,
        "create_private_keys",
        {
            "privateKeys": [
                {
                    "privateKeyName": "hot",
                    "curve": "CURVE_SECP256K1",
                    "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                    "privateKeyTags": [],
                }
            ]
        },
        "createPrivateKeysResultV2",
        "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
    )["privateKeys"][0]
    key_id = made["privateKeyId"]
    submit(
        client,
        "create_private_key_tag",
        {"privateKeyTagName": "hot keys", "privateKeyIds": [key_id]},
        "createPrivateKeyTagResult",
    )
    condition = f"private_key.id == '{key_id}'"
    policy = {"policyName": "guard", "effect": "EFFECT_DENY", "condition": condition, "notes": ""}
    policy_id = submit(client, "create_policy", policy, "createPolicyResult", "ACTIVITY_TYPE_CREATE_POLICY_V3")[
        "policyId"
    ]
    delete = {"privateKeyIds": [key_id]}
    refused(
        client.submit("delete_private_keys", "ACTIVITY_TYPE_DELETE_PRIVATE_KEYS", delete),
        "private key has not been exported",
    )
    forced = {**delete, "deleteWithoutExport": True}
    assert submit(client, "delete_private_keys", forced, "deletePrivateKeysResult") == {"privateKeyIds": [key_id]}
    assert_error(client.query("get_private_key", privateKeyId=key_id), 404, 5)
    assert [t["tagName"] for t in ok(client.query("list_private_key_tags"))["privateKeyTags"]] == ["hot keys"]
    assert ok(client.query("get_policy", policyId=policy_id))["policy"]["condition"] == condition


def test_a_sub_organization_deletes_itself_once_its_keys_are_exported(client, simulator):
    org_id, _, sub = sub_org_with_key(client, "to delete")
    delete = ("delete_sub_organization", "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION", {})
    assert_error(client.submit(*delete, organizationId=org_id), 403, 7, "cannot write")
    refused(sub.submit(*delete), "has not been exported")
    wallet_id = ok(sub.query("list_wallets"))["wallets"][0]["walletId"]
    export(sub, "export_wallet", {"walletId": wallet_id})
    assert result_of(sub.submit(*delete), "deleteSubOrganizationResult") == {"subOrganizationUuid": org_id}
    assert_error(sub.query("whoami"), 401, 16)
    assert org_id not in simulator.simulator.store.org(DEFAULTS["organizationId"]).children


def test_only_a_sub_organization_can_be_deleted(client):
    response = client.submit(
        "delete_sub_organization", "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION", {"deleteWithoutExport": True}
    )
    assert_error(response, 400, 3, "is not a sub-organization")


def test_policies_govern_export_and_delete_by_resource_and_action(client, simulator):
    """A non-root user allowed `activity.resource == 'WALLET' && activity.action == 'EXPORT'` exports,
    but is denied the delete (no policy allows it)."""
    bob_key = testing.ClientKeyPair.generate()
    api_key = {"apiKeyName": "bob", "publicKey": bob_key.public_key, "curveType": "API_KEY_CURVE_P256"}
    bob_id = new_user(client, "Bob", apiKeys=[api_key])
    condition = "activity.resource == 'WALLET' && activity.action == 'EXPORT'"
    policy = {"policyName": "bob exports", "effect": "EFFECT_ALLOW", "condition": condition, "notes": ""}
    policy["consensus"] = f"approvers.any(user, user.id == '{bob_id}')"
    submit(client, "create_policy", policy, "createPolicyResult", "ACTIVITY_TYPE_CREATE_POLICY_V3")
    wallet_id = new_wallet(client)["walletId"]
    bob = testing.SimulatorClient(simulator.url, testing.ApiKeyStamper(bob_key.private_key), DEFAULTS["organizationId"])
    export(bob, "export_wallet", {"walletId": wallet_id})
    denied = bob.submit("delete_wallets", "ACTIVITY_TYPE_DELETE_WALLETS", {"walletIds": [wallet_id]})
    assert_error(denied, 403, 7, "sufficient permissions")


def test_export_policies_read_the_wallet_and_the_private_key(client, simulator):
    """`wallet.id`, `wallet_account.address` and `private_key.*` are the export's target."""
    bob_key = testing.ClientKeyPair.generate()
    api_key = {"apiKeyName": "bob", "publicKey": bob_key.public_key, "curveType": "API_KEY_CURVE_P256"}
    bob_id = new_user(client, "Bob", apiKeys=[api_key])
    allowed, other = new_wallet(client, "allowed"), new_wallet(client, "other")
    conditions = [
        f"activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET' && wallet.id == '{allowed['walletId']}'",
        f"wallet_account.address == '{other['addresses'][0]}' && wallet.exported == false",
    ]
    for name, condition in zip(("one wallet", "one account"), conditions):
        policy = {"policyName": name, "effect": "EFFECT_ALLOW", "condition": condition, "notes": ""}
        policy["consensus"] = f"approvers.any(user, user.id == '{bob_id}')"
        submit(client, "create_policy", policy, "createPolicyResult", "ACTIVITY_TYPE_CREATE_POLICY_V3")
    bob = testing.SimulatorClient(simulator.url, testing.ApiKeyStamper(bob_key.private_key), DEFAULTS["organizationId"])
    export(bob, "export_wallet", {"walletId": allowed["walletId"]})
    target = testing.ClientKeyPair.generate().public_key
    denied = bob.submit(
        "export_wallet", "ACTIVITY_TYPE_EXPORT_WALLET", {"walletId": other["walletId"], "targetPublicKey": target}
    )
    assert_error(denied, 403, 7)
    export(bob, "export_wallet_account", {"address": other["addresses"][0]})
    export(client, "export_wallet", {"walletId": other["walletId"]})
    again = bob.submit(
        "export_wallet_account",
        "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
        {"address": other["addresses"][0], "targetPublicKey": target},
    )
    assert_error(again, 403, 7)  # wallet.exported is true now
