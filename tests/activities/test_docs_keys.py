"""What Turnkey's documentation promises about resource limits, the root quorum, the policy engine's
implicit permissions and its root-quorum-only activities (issue 53's sweep, docs/conformance/keys.yaml),
each shown over HTTP with real P-256 stamps.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import rlp
from bundle_checks import independent_open, verify_envelope
from conftest import DEFAULTS, ETH_ACCOUNT, new_user, ok, result_of
from cryptography.exceptions import InvalidTag
from eth_abi import encode as abi_encode
from lifecycle_helpers import KEYS, allow, api_user
from lifecycle_helpers import sub_org as keyed_sub_org
from support import SOL_ACCOUNT, assert_error, create_policy, new_wallet, sub_org
from tx_builders import solana_key, solana_transfer

from simulator import testing
from simulator.auth.stamps import b64url_encode
from simulator.crypto import keys
from simulator.testing import ApiKeyStamper, PasskeyStamper

ROOT = DEFAULTS["userId"]
QUORUM = ("update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM")
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
PRIVATE_KEYS = ("create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2")


def organization(client: Any) -> dict[str, Any]:
    data: dict[str, Any] = ok(client.query("get_organization"))["organizationData"]
    return data


# --- reference/resource-limits.mdx ------------------------------------------------------------------


def user(name: str) -> dict[str, Any]:
    return {"userName": name, "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}


def policy(name: str) -> dict[str, Any]:
    return {"policyName": name, "effect": "EFFECT_ALLOW", "condition": "false", "consensus": "", "notes": ""}


def invitation(name: str) -> dict[str, Any]:
    return {
        "receiverUserName": name,
        "receiverUserEmail": f"{name}@example.com",
        "receiverUserTags": [],
        "accessType": "ACCESS_TYPE_WEB",
        "senderUserId": ROOT,
    }


def private_key(name: str) -> dict[str, Any]:
    return {"privateKeyName": name, "curve": "CURVE_SECP256K1", "privateKeyTags": [], "addressFormats": []}


# (operation, activity type, list parameter, item builder, organization data key, allowance, the message's noun)
BATCHES = [
    ("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", "users", user, "users", 100, "users"),
    ("create_policies", "ACTIVITY_TYPE_CREATE_POLICIES", "policies", policy, "policies", 100, "policies"),
    (
        "create_invitations",
        "ACTIVITY_TYPE_CREATE_INVITATIONS",
        "invitations",
        invitation,
        "invitations",
        100,
        "invitations",
    ),
    (
        "create_private_keys",
        "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
        "privateKeys",
        private_key,
        "privateKeys",
        1000,
        "private keys",
    ),
]


@pytest.mark.parametrize("op, kind, field, build, key, allowance, noun", BATCHES, ids=[b[0] for b in BATCHES])
def test_an_organization_holds_its_allowance_and_refuses_one_more(client, op, kind, field, build, key, allowance, noun):
    have = len(organization(client)[key])
    ok(client.submit(op, kind, {field: [build(f"n{i}") for i in range(allowance - have)]}))
    assert len(organization(client)[key]) == allowance
    refused = client.submit(op, kind, {field: [build("one-more")]})
    assert_error(refused, 429, 8, f"organization has reached its limit of {allowance} {noun}")
    assert len(organization(client)[key]) == allowance


def test_an_organization_holds_100_wallets_and_refuses_the_101st(client):
    have = len(organization(client)["wallets"])
    for i in range(100 - have):
        result_of(
            client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": f"w{i}", "accounts": []}),
            "createWalletResult",
        )
    refused = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w100", "accounts": []})
    assert_error(refused, 429, 8, "organization has reached its limit of 100 wallets")
    assert len(organization(client)["wallets"]) == 100


def test_a_sub_organization_has_the_same_allowance_of_its_own(client):
    ok(client.submit(*PRIVATE_KEYS, {"privateKeys": [private_key("parent")]}))
    _, _, child = keyed_sub_org(client, "child", key=KEYS["carol"])
    made = result_of(
        child.submit(*PRIVATE_KEYS, {"privateKeys": [private_key(f"k{i}") for i in range(1000)]}),
        "createPrivateKeysResultV2",
    )
    assert len(made["privateKeys"]) == 1000
    refused = child.submit(*PRIVATE_KEYS, {"privateKeys": [private_key("k1000")]})
    assert_error(refused, 429, 8, "organization has reached its limit of 1000 private keys")


def test_a_user_holds_10_authenticators_and_refuses_the_11th(client):
    dana = new_user(client, "Dana")

    def passkeys(names: range) -> list[dict[str, Any]]:
        made = [PasskeyStamper(b64url_encode(f"passkey-{i}".encode()), f"{i + 1:064x}") for i in names]
        return [
            {"authenticatorName": f"p{i}", "challenge": "c", "attestation": p.attestation("c")}
            for i, p in zip(names, made)
        ]

    add = ("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2")
    result_of(
        client.submit(*add, {"userId": dana, "authenticators": passkeys(range(10))}), "createAuthenticatorsResult"
    )
    refused = client.submit(*add, {"userId": dana, "authenticators": passkeys(range(10, 11))})
    assert_error(refused, 429, 8, "user has exceeded maximum authenticators (10)")
    assert len(ok(client.query("get_user", userId=dana))["user"]["authenticators"]) == 10


# --- features/users/root-quorum.mdx ---------------------------------------------------------------


def test_a_policy_lets_one_root_user_act_alone_under_a_larger_quorum(client):
    bob_id, bob = api_user(client, "Bob")
    ok(client.submit(*QUORUM, {"threshold": 2, "userIds": [ROOT, bob_id]}))
    wallet = {"walletName": "alone", "accounts": []}
    waiting = ok(bob.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet))["activity"]
    assert waiting["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    # a policy naming Bob lets him create wallets alone; anything else still waits for the quorum
    made = ok(
        client.submit(
            "create_policy",
            "ACTIVITY_TYPE_CREATE_POLICY_V3",
            {
                "policyName": "bob creates wallets",
                "effect": "EFFECT_ALLOW",
                "consensus": f"approvers.any(user, user.id == '{bob_id}')",
                "condition": "activity.resource == 'WALLET' && activity.action == 'CREATE'",
                "notes": "",
            },
        )
    )["activity"]
    assert made["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    ok(bob.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": made["fingerprint"]}))
    alone = ok(bob.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {**wallet, "walletName": "alone 2"}))
    assert alone["activity"]["status"] == COMPLETED
    tag = ok(bob.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "t", "userIds": []}))
    assert tag["activity"]["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"


def test_a_new_sub_organization_has_the_quorum_it_was_created_with(client):
    org_id, root_id = sub_org(client)
    configs = ok(client.query("get_organization_configs", organizationId=org_id))["configs"]
    assert configs["quorum"] == {"threshold": 1, "userIds": [root_id]}


# --- features/policies/overview.mdx (snippets/shared/policy-engine.mdx) ----------------------------


def test_a_user_without_any_policy_reads_its_organization_and_its_sub_organizations(client):
    org_id, root_id = sub_org(client)
    _, bob = api_user(client, "Bob")
    assert [u["userId"] for u in ok(bob.query("list_users", organizationId=org_id))["users"]] == [root_id]
    assert ok(bob.query("get_organization"))["organizationData"]["organizationId"] == DEFAULTS["organizationId"]
    assert ok(bob.query("list_wallets"))["wallets"] is not None
    # writing is another matter: nothing allows Bob to create a wallet
    assert_error(
        bob.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "b", "accounts": []}), 403, 7
    )


def test_an_approver_named_in_consensus_needs_no_permission_of_their_own(client):
    bob_id, bob = api_user(client, "Bob")
    carol_id, carol = api_user(client, "Carol")
    consensus = f"approvers.any(user, user.id == '{bob_id}') && approvers.any(user, user.id == '{carol_id}')"
    params = {
        "policyName": "bob and carol",
        "effect": "EFFECT_ALLOW",
        "consensus": consensus,
        "condition": "activity.resource == 'WALLET'",
        "notes": "",
    }
    result_of(client.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", params), "createPolicyResult")
    waiting = ok(bob.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "b", "accounts": []}))
    assert waiting["activity"]["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    fingerprint = waiting["activity"]["fingerprint"]
    done = ok(carol.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": fingerprint}))
    assert done["activity"]["status"] == COMPLETED


# --- features/policies/language.mdx (Root quorum activities) -----------------------------------------


ROOT_ONLY = [
    ("update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", {"threshold": 1, "userIds": [ROOT]}),
    (
        "set_organization_feature",
        "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
        {"name": "FEATURE_NAME_EMAIL_AUTH", "value": ""},
    ),
    ("remove_organization_feature", "ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE", {"name": "FEATURE_NAME_EMAIL_AUTH"}),
    ("update_organization_name", "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", {"organizationName": "Mine"}),
]


@pytest.mark.parametrize("op, kind, params", ROOT_ONLY, ids=[r[0] for r in ROOT_ONLY])
def test_the_root_quorum_activities_are_refused_to_others_whatever_a_policy_allows(client, op, kind, params):
    _, bob = api_user(client, "Bob")
    allow(client, "true", "everything")
    before = ok(client.query("get_organization_configs"))["configs"]
    assert_error(bob.submit(op, kind, params), 403, 7)
    assert ok(client.query("get_organization_configs"))["configs"] == before
    assert (
        result_of(
            client.submit(op, kind, params), f"{op.split('_')[0]}{''.join(p.title() for p in op.split('_')[1:])}Result"
        )
        is not None
    )


def test_a_created_invitation_reads_back_in_the_organization(client):
    ids = result_of(
        client.submit("create_invitations", "ACTIVITY_TYPE_CREATE_INVITATIONS", {"invitations": [invitation("carol")]}),
        "createInvitationsResult",
    )["invitationIds"]
    shown = {i["invitationId"]: i for i in organization(client)["invitations"]}[ids[0]]
    assert shown["receiverEmail"] == "carol@example.com" and "receiverUserEmail" not in shown
    assert shown["receiverUserName"] == "carol" and shown["status"] == "INVITATION_STATUS_CREATED"


# --- features/policies/quickstart.mdx and smart-contract-interfaces.mdx (Usage walkthrough) ------------


ALLOWED = "0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7"  # the walkthrough's destination
WETH = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"  # checksummed; the interface is stored in lower case
WETH_ABI = [
    {
        "type": "function",
        "name": "transfer",
        "stateMutability": "nonpayable",
        "inputs": [{"name": "dst", "type": "address"}, {"name": "wad", "type": "uint256"}],
        "outputs": [{"name": "", "type": "bool"}],
    }
]


def unsigned_tx(to: str, data: bytes = b"", value: int = 0) -> str:
    """A legacy EIP-155 transaction before signing: what a transaction tool hands over."""
    fields = [0, 10**9, 60_000, bytes.fromhex(to[2:]), value, data, 1, 0, 0]
    return str(rlp.encode(fields).hex())


def transfer_call(dst: str, wad: int) -> bytes:
    return bytes.fromhex("a9059cbb") + abi_encode(["address", "uint256"], [dst, wad])


def sign(client: Any, sign_with: str, unsigned: str) -> Any:
    params = {"signWith": sign_with, "type": "TRANSACTION_TYPE_ETHEREUM", "unsignedTransaction": unsigned}
    return client.submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", params)


def denied_and_failed(response: Any, who: Any) -> None:
    body = assert_error(response, 403, 7)
    activity = ok(who.query("get_activity", activityId=body["details"][1]["activityId"]))["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_FAILED"


def test_the_quickstart_policy_signs_to_the_allowlisted_address_only(client):
    bob_id, bob = api_user(client, "Bob")
    address = new_wallet(client, accounts=[ETH_ACCOUNT])["addresses"][0]
    # the engine holds addresses in lower case (policy-docs-mixed-case-hex): the policy writes it so
    create_policy(
        client, "quickstart", f"eth.tx.to == '{ALLOWED.lower()}'", f"approvers.any(user, user.id == '{bob_id}')"
    )
    done = ok(sign(bob, address, unsigned_tx(ALLOWED, value=1)))["activity"]
    assert done["status"] == COMPLETED and done["result"]["signTransactionResult"]["signedTransaction"]
    denied_and_failed(sign(bob, address, unsigned_tx("0x" + "11" * 20, value=1)), bob)


def test_the_walkthroughs_weth_policy_reads_the_call_through_the_uploaded_abi(client):
    bob_id, bob = api_user(client, "Bob")
    address = new_wallet(client, accounts=[ETH_ACCOUNT])["addresses"][0]
    interface = {
        "smartContractAddress": WETH.lower(),
        "smartContractInterface": json.dumps(WETH_ABI),
        "type": "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
        "label": "WETH mainnet",
        "notes": "",
    }
    ok(client.submit("create_smart_contract_interface", "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", interface))
    condition = (
        f"eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '{ALLOWED.lower()}'"
        " && eth.tx.function_name == 'transfer' && eth.tx.function_signature == '0xa9059cbb'"
    )
    create_policy(client, "weth", condition, f"approvers.any(user, user.id == '{bob_id}')")
    small = ok(sign(bob, address, unsigned_tx(WETH, transfer_call(ALLOWED, 10**17))))["activity"]
    assert small["status"] == COMPLETED
    denied_and_failed(sign(bob, address, unsigned_tx(WETH, transfer_call(ALLOWED, 2 * 10**18))), bob)
    denied_and_failed(sign(bob, address, unsigned_tx(WETH, transfer_call("0x" + "22" * 20, 10**17))), bob)


# --- features/policies/language.mdx (Choosing between type, kind, and resource + action) -----------------


def test_kind_matches_every_version_and_type_only_its_own(client):
    bob_id, bob = api_user(client, "Bob")
    users = {"users": [user("by-v3")]}
    create_policy(client, "v2 only", "activity.type == 'ACTIVITY_TYPE_CREATE_USERS_V2'")
    assert_error(bob.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", users), 403, 7)
    create_policy(client, "any version", "activity.kind == 'CREATE_USERS'")
    assert ok(bob.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", users))["activity"]["status"] == COMPLETED
    create_policy(client, "user creates", "activity.resource == 'USER' && activity.action == 'CREATE'", "")
    tag = ok(bob.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "t", "userIds": []}))
    assert tag["activity"]["status"] == COMPLETED


# --- features/policies/overview.mdx (Policy evaluation) -------------------------------------------------


def test_a_matching_deny_wins_over_a_matching_allow(client):
    _, bob = api_user(client, "Bob")
    allow(client, "true", "everything")
    create_policy(client, "no wallets", "activity.resource == 'WALLET'", "", "EFFECT_DENY")
    body = assert_error(
        bob.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "b", "accounts": []}), 403, 7
    )
    outcomes = sorted(e["outcome"] for e in body["details"][1]["policyEvaluations"])
    assert outcomes == ["OUTCOME_ALLOW", "OUTCOME_DENY_EXPLICIT"]
    assert ok(bob.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "t", "userIds": []}))


# --- snippets/shared/export-wallets.mdx (How it works) -----------------------------------------------------


def test_an_export_bundle_opens_with_its_target_key_and_no_other(client):
    wallet = new_wallet(client, accounts=[ETH_ACCOUNT])
    target, other = testing.ClientKeyPair.generate(), testing.ClientKeyPair.generate()
    params = {"walletId": wallet["walletId"], "targetPublicKey": target.public_key}
    data = verify_envelope(
        result_of(client.submit("export_wallet", "ACTIVITY_TYPE_EXPORT_WALLET", params), "exportWalletResult")[
            "exportBundle"
        ]
    )
    enc, sealed = bytes.fromhex(data["encappedPublic"]), bytes.fromhex(data["ciphertext"])
    assert len(independent_open(enc, sealed, keys.ec_key_from_hex("p256", target.private_key)).decode().split()) == 12
    with pytest.raises(InvalidTag):
        independent_open(enc, sealed, keys.ec_key_from_hex("p256", other.private_key))
    # the wallet stays where it was, flagged exported
    assert ok(client.query("get_wallet", walletId=wallet["walletId"]))["wallet"]["exported"] is True


# --- features/wallets.mdx (Delete keys) ---------------------------------------------------------------------


def test_a_user_a_policy_allows_deletes_a_private_key_the_root_user_created(client):
    _, bob = api_user(client, "Bob")
    made = result_of(
        client.submit(*PRIVATE_KEYS, {"privateKeys": [private_key("root's")]}), "createPrivateKeysResultV2"
    )
    key_id = made["privateKeys"][0]["privateKeyId"]
    allow(client, "activity.resource == 'PRIVATE_KEY' && activity.action == 'DELETE'", "bob deletes keys")
    params = {"privateKeyIds": [key_id], "deleteWithoutExport": True}
    deleted = result_of(
        bob.submit("delete_private_keys", "ACTIVITY_TYPE_DELETE_PRIVATE_KEYS", params), "deletePrivateKeysResult"
    )
    assert deleted == {"privateKeyIds": [key_id]}


# --- features/policies/language.mdx (Activity types by resource and action): the key rows ------------------


def key_rows(client: Any, bob_id: str) -> list[tuple[str, str, dict[str, Any], str, str]]:
    """(operation, activity type, parameters, resource, action) for the wallet and private key rows."""
    wallet = new_wallet(client, accounts=[ETH_ACCOUNT])
    wallet_id, address = wallet["walletId"], wallet["addresses"][0]
    account_id = ok(client.query("list_wallet_accounts", walletId=wallet_id))["accounts"][0]["walletAccountId"]
    key_id = result_of(client.submit(*PRIVATE_KEYS, {"privateKeys": [private_key("k")]}), "createPrivateKeysResultV2")[
        "privateKeys"
    ][0]["privateKeyId"]
    tag_id = result_of(
        client.submit(
            "create_private_key_tag",
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
            {"privateKeyTagName": "hot", "privateKeyIds": []},
        ),
        "createPrivateKeyTagResult",
    )["privateKeyTagId"]
    target = testing.ClientKeyPair.generate().public_key
    raw = {
        "signWith": address,
        "payload": "00" * 32,
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
    }
    batch = {k: v for k, v in raw.items() if k != "payload"}
    a = "ACTIVITY_TYPE_"
    return [
        ("create_wallet", a + "CREATE_WALLET", {"walletName": "x", "accounts": []}, "WALLET", "CREATE"),
        (
            "create_wallet_accounts",
            a + "CREATE_WALLET_ACCOUNTS",
            {"walletId": wallet_id, "accounts": [ETH_ACCOUNT]},
            "WALLET",
            "CREATE",
        ),
        ("update_wallet", a + "UPDATE_WALLET", {"walletId": wallet_id, "walletName": "y"}, "WALLET", "UPDATE"),
        ("delete_wallets", a + "DELETE_WALLETS", {"walletIds": [wallet_id]}, "WALLET", "DELETE"),
        (
            "delete_wallet_accounts",
            a + "DELETE_WALLET_ACCOUNTS",
            {"walletAccountIds": [account_id]},
            "WALLET",
            "DELETE",
        ),
        ("export_wallet", a + "EXPORT_WALLET", {"walletId": wallet_id, "targetPublicKey": target}, "WALLET", "EXPORT"),
        (
            "export_wallet_account",
            a + "EXPORT_WALLET_ACCOUNT",
            {"address": address, "targetPublicKey": target},
            "WALLET",
            "EXPORT",
        ),
        ("init_import_wallet", a + "INIT_IMPORT_WALLET", {"userId": bob_id}, "WALLET", "IMPORT"),
        (*PRIVATE_KEYS, {"privateKeys": [private_key("x")]}, "PRIVATE_KEY", "CREATE"),
        (
            "create_private_key_tag",
            a + "CREATE_PRIVATE_KEY_TAG",
            {"privateKeyTagName": "t", "privateKeyIds": []},
            "PRIVATE_KEY",
            "CREATE",
        ),
        (
            "update_private_key_tag",
            a + "UPDATE_PRIVATE_KEY_TAG",
            {
                "privateKeyTagId": tag_id,
                "newPrivateKeyTagName": "warm",
                "addPrivateKeyIds": [],
                "removePrivateKeyIds": [],
            },
            "PRIVATE_KEY",
            "UPDATE",
        ),
        (
            "delete_private_key_tags",
            a + "DELETE_PRIVATE_KEY_TAGS",
            {"privateKeyTagIds": [tag_id]},
            "PRIVATE_KEY",
            "DELETE",
        ),
        ("delete_private_keys", a + "DELETE_PRIVATE_KEYS", {"privateKeyIds": [key_id]}, "PRIVATE_KEY", "DELETE"),
        (
            "export_private_key",
            a + "EXPORT_PRIVATE_KEY",
            {"privateKeyId": key_id, "targetPublicKey": target},
            "PRIVATE_KEY",
            "EXPORT",
        ),
        ("init_import_private_key", a + "INIT_IMPORT_PRIVATE_KEY", {"userId": bob_id}, "PRIVATE_KEY", "IMPORT"),
        ("sign_raw_payload", a + "SIGN_RAW_PAYLOAD_V2", raw, "PRIVATE_KEY", "SIGN"),
        ("sign_raw_payloads", a + "SIGN_RAW_PAYLOADS", {**batch, "payloads": [raw["payload"]]}, "PRIVATE_KEY", "SIGN"),
        (
            "sign_transaction",
            a + "SIGN_TRANSACTION_V2",
            {"signWith": address, "type": "TRANSACTION_TYPE_ETHEREUM", "unsignedTransaction": unsigned_tx(ALLOWED)},
            "PRIVATE_KEY",
            "SIGN",
        ),
    ]


def test_each_key_activity_is_the_resource_and_action_the_table_gives(client):
    bob_id, bob = api_user(client, "Bob")
    allow(client, "true", "everything")
    for op, kind, params, resource, action in key_rows(client, bob_id):
        condition = f"activity.resource == '{resource}' && activity.action == '{action}'"
        policy_id = result_of(create_policy(client, f"no {op}", condition, "", "EFFECT_DENY"), "createPolicyResult")[
            "policyId"
        ]
        body = assert_error(bob.submit(op, kind, params), 403, 7)
        assert "OUTCOME_DENY_EXPLICIT" in [e["outcome"] for e in body["details"][1]["policyEvaluations"]], op
        ok(client.submit("delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", {"policyId": policy_id}))


# --- features/policies/smart-contract-interfaces.mdx (Solana, Policy formats) -----------------------------

SYSTEM_IDL = {
    "version": "0.1.0",
    "name": "system_program",
    "instructions": [
        {
            "name": "transfer",
            "accounts": [
                {"name": "from", "isMut": True, "isSigner": True},
                {"name": "to", "isMut": True, "isSigner": False},
            ],
            "args": [{"name": "lamports", "type": "u64"}],
        }
    ],
    "types": [],
}


def test_an_uploaded_idl_does_not_fill_parsed_instruction_data(client):
    bob_id, bob = api_user(client, "Bob")
    payer = new_wallet(client, accounts=[SOL_ACCOUNT])["addresses"][0]
    interface = {
        "smartContractAddress": "11111111111111111111111111111111",
        "smartContractInterface": json.dumps(SYSTEM_IDL),
        "type": "SMART_CONTRACT_INTERFACE_TYPE_SOLANA",
        "label": "system",
        "notes": "",
    }
    ok(client.submit("create_smart_contract_interface", "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", interface))
    condition = "solana.tx.instructions.any(i, i.parsed_instruction_data.instruction_name == 'transfer')"
    create_policy(client, "idl transfer", condition, f"approvers.any(user, user.id == '{bob_id}')")
    params = {
        "signWith": payer,
        "type": "TRANSACTION_TYPE_SOLANA",
        "unsignedTransaction": solana_transfer(payer, solana_key("payee"), 1000),
    }
    # the service would read the instruction through the IDL and allow it; the simulator does not decode it
    denied_and_failed(bob.submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", params), bob)


def test_an_invitation_from_a_state_saved_before_the_fix_reads_back_too(client, simulator):
    submit_invitation = ("create_invitations", "ACTIVITY_TYPE_CREATE_INVITATIONS")
    result_of(client.submit(*submit_invitation, {"invitations": [invitation("dave")]}), "createInvitationsResult")

    def as_saved_before(node: Any) -> Any:
        if isinstance(node, dict):
            return {("receiverUserEmail" if k == "receiverEmail" else k): as_saved_before(v) for k, v in node.items()}
        return [as_saved_before(v) for v in node] if isinstance(node, list) else node

    saved = as_saved_before(json.loads(json.dumps(simulator.simulator.export_state())))
    assert "receiverUserEmail" in json.dumps(saved)
    simulator.simulator.import_state(saved)
    shown = organization(client)["invitations"]
    assert [(i["receiverUserName"], i["receiverEmail"]) for i in shown] == [("dave", "dave@example.com")]


# --- features/policies/language.mdx (Struct: User, Credential, PrivateKey) -------------------------------


def test_consensus_reads_the_approvers_user_and_credential_fields(client):
    bob_key = ApiKeyStamper(KEYS["bob"]).public_key
    bob_id, bob = api_user(client, "Bob", userEmail="bob@example.com")
    _, carol = api_user(client, "Carol", userEmail="carol@example.com")
    tag = result_of(
        client.submit(
            "create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "traders", "userIds": [bob_id]}
        ),
        "createUserTagResult",
    )["userTagId"]
    user = f"user.id == '{bob_id}' && user.tags.contains('{tag}') && user.email == 'bob@example.com'"
    credential = f"c.user_id == '{bob_id}' && c.type == 'CREDENTIAL_TYPE_API_KEY_P256' && c.public_key == '{bob_key}'"
    consensus = f"approvers.any(user, {user} && user.alias == 'Bob') && credentials.any(c, {credential})"
    create_policy(client, "traders create wallets", "activity.resource == 'WALLET'", consensus)
    made = ok(bob.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "b", "accounts": []}))
    assert made["activity"]["status"] == COMPLETED
    # Carol's own approval does not meet the consensus: her activity waits for Bob's
    waiting = ok(carol.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "c", "accounts": []}))
    assert waiting["activity"]["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"


def test_a_condition_reads_the_private_keys_id_label_tags_and_flags(client):
    bob_id, bob = api_user(client, "Bob")
    tag = result_of(
        client.submit(
            "create_private_key_tag",
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
            {"privateKeyTagName": "cold", "privateKeyIds": []},
        ),
        "createPrivateKeyTagResult",
    )["privateKeyTagId"]
    key = {**private_key("vault"), "privateKeyTags": [tag], "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"]}
    key_id = result_of(client.submit(*PRIVATE_KEYS, {"privateKeys": [key]}), "createPrivateKeysResultV2")[
        "privateKeys"
    ][0]["privateKeyId"]
    condition = (
        f"private_key.id == '{key_id}' && private_key.label == 'vault' && private_key.tags.contains('{tag}')"
        " && private_key.imported == false && private_key.exported == false"
    )
    create_policy(client, "sign with the vault key", condition, f"approvers.any(user, user.id == '{bob_id}')")
    params = {
        "signWith": key_id,
        "payload": "00" * 32,
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
    }
    signing = ("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2")
    assert ok(bob.submit(*signing, params))["activity"]["status"] == COMPLETED
    target = testing.ClientKeyPair.generate().public_key
    result_of(
        client.submit(
            "export_private_key",
            "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",
            {"privateKeyId": key_id, "targetPublicKey": target},
        ),
        "exportPrivateKeyResult",
    )
    denied_and_failed(bob.submit(*signing, {**params, "payload": "11" * 32}), bob)  # private_key.exported is true now


def test_an_api_keys_credential_id_reads_its_api_key_id(client):
    bob_id, bob = api_user(client, "Bob")
    key_id = ok(client.query("get_api_keys", userId=bob_id))["apiKeys"][0]["apiKeyId"]
    consensus = f"credentials.any(c, c.credential_id == '{key_id}' && c.id == '{key_id}')"
    create_policy(client, "by key id", "activity.resource == 'WALLET'", consensus)
    made = ok(bob.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "b", "accounts": []}))
    assert made["activity"]["status"] == COMPLETED


def test_an_idl_in_the_older_account_flag_spelling_is_accepted(client):
    older = {
        **SYSTEM_IDL,
        "instructions": [
            {
                **SYSTEM_IDL["instructions"][0],
                "accounts": [{"name": "from", "writable": True, "signer": True}, {"name": "to", "writable": True}],
            }
        ],
    }
    interface = {
        "smartContractAddress": "11111111111111111111111111111111",
        "smartContractInterface": json.dumps(older),
        "type": "SMART_CONTRACT_INTERFACE_TYPE_SOLANA",
        "label": "system, older flags",
        "notes": "",
    }
    made = result_of(
        client.submit("create_smart_contract_interface", "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", interface),
        "createSmartContractInterfaceResult",
    )
    listed = ok(client.query("list_smart_contract_interfaces"))["smartContractInterfaces"]
    assert made["smartContractInterfaceId"] in [i["smartContractInterfaceId"] for i in listed]


# --- features/policies/language.mdx (Time expressions) -----------------------------------------------------

MONDAY_10AM_NEW_YORK = 1796655600000  # 2026-12-07T15:00:00Z
SUNDAY_10AM_NEW_YORK = MONDAY_10AM_NEW_YORK - 86_400_000


@pytest.mark.parametrize(
    "time",
    [
        "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')",
        "CronSpan('0 9 * * 1,3,5', '1d12h', 'America/New_York')",
        "CronSpan('0 9 7 * 6', '90m', 'America/New_York')",  # the 7th or a Saturday: day fields are OR'd
        "time.now >= Timestamp('2026-12-07T15:00:00z') && time.now < Timestamp('2026-12-07T16:00:00+00:00')",
        "time.now == Timestamp('2026-12-07T15:00:00-00:00')",
    ],
)
@pytest.mark.simulator_scenario("../scenarios/time_based_policies.yaml")
def test_a_time_window_applies_inside_and_not_outside(client, simulator, time):
    bob_id, bob = api_user(client, "Bob")
    params = {
        "policyName": "office hours",
        "effect": "EFFECT_ALLOW",
        "condition": "activity.resource == 'WALLET'",
        "consensus": f"approvers.any(user, user.id == '{bob_id}')",
        "notes": "",
        "time": time,
    }
    result_of(client.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", params), "createPolicyResult")
    clock = simulator.simulator.clock
    clock.freeze(MONDAY_10AM_NEW_YORK)
    inside = bob.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "in", "accounts": []})
    assert ok(inside)["activity"]["status"] == COMPLETED
    clock.freeze(SUNDAY_10AM_NEW_YORK)
    outside = bob.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "out", "accounts": []})
    body = assert_error(outside, 403, 7)
    assert [e["outcome"] for e in body["details"][1]["policyEvaluations"]] == ["OUTCOME_TIME_INACTIVE"]
