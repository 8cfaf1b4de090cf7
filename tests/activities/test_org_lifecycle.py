"""The organization itself: reading it whole, renaming it, changing its root quorum, finding its
sub-organizations, deleting invitations and contract interfaces."""

from __future__ import annotations

import pytest
from conftest import example, ok, result_of
from lifecycle_helpers import KEYS, ORG, ROOT_USER, api_user, sub_org, verification_token
from support import assert_error

T = pytest.importorskip("turnkey_sdk_types")

RENAME = "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME"
QUORUM = "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM"
WALLET = ("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET")


def test_get_organization_shows_everything_the_organization_holds(client):
    bob, _ = api_user(client, "Bob")
    data = ok(client.query("get_organization"))["organizationData"]
    assert data["organizationId"] == ORG and data["name"] == "Simulated Organization"
    assert {u["userId"] for u in data["users"]} == {ROOT_USER, bob}
    assert data["rootQuorum"] == {"threshold": 1, "userIds": [ROOT_USER]}
    assert all(u["mfaPolicies"] == [] for u in data["users"])
    assert {"policies", "privateKeys", "invitations", "tags", "features", "wallets"} <= set(data)


def test_update_organization_name_by_the_root_quorum(client):
    result = result_of(
        client.submit("update_organization_name", RENAME, {"organizationName": "Acme"}), "updateOrganizationNameResult"
    )
    assert result == {"organizationId": ORG, "organizationName": "Acme"}
    assert ok(client.query("whoami"))["organizationName"] == "Acme"
    assert_error(
        client.submit("update_organization_name", RENAME, {"organizationName": "  "}), 400, 3, "must not be empty"
    )


def test_root_quorum_only_activities_are_denied_to_other_users_even_with_a_policy(client):
    _, bob = api_user(client, "Bob")
    params = {"policyName": "all", "effect": "EFFECT_ALLOW", "condition": "true", "consensus": "", "notes": ""}
    ok(client.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", params))
    assert_error(bob.submit("update_organization_name", RENAME, {"organizationName": "Mine"}), 403, 7)
    assert_error(bob.submit("update_root_quorum", QUORUM, {"threshold": 1, "userIds": [ROOT_USER]}), 403, 7)
    assert ok(client.query("whoami"))["organizationName"] == "Simulated Organization"


def test_a_larger_root_quorum_governs_the_next_activities(client):
    bob_id, bob = api_user(client, "Bob")
    result = result_of(
        client.submit("update_root_quorum", QUORUM, {"threshold": 2, "userIds": [ROOT_USER, bob_id]}),
        "updateRootQuorumResult",
    )
    assert result == {}
    configs = ok(client.query("get_organization_configs"))["configs"]["quorum"]
    assert configs == {"threshold": 2, "userIds": [ROOT_USER, bob_id]}
    waiting = ok(client.submit(*WALLET, {"walletName": "shared", "accounts": []}))["activity"]
    assert waiting["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    approved = ok(
        bob.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": waiting["fingerprint"]})
    )
    assert approved["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    # Changing the quorum back is itself a root-quorum activity: it waits for Bob too.
    back = ok(client.submit("update_root_quorum", QUORUM, {"threshold": 1, "userIds": [ROOT_USER]}))["activity"]
    assert back["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    ok(bob.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", {"fingerprint": back["fingerprint"]}))
    assert ok(client.query("get_organization_configs"))["configs"]["quorum"]["threshold"] == 1


@pytest.mark.parametrize(
    ("params", "phrase"),
    [
        ({"threshold": 0, "userIds": [ROOT_USER]}, "quorum threshold must be non-zero integer"),
        ({"threshold": 1, "userIds": []}, "quorum users missing"),
        ({"threshold": 1, "userIds": ["00000000-0000-4000-8000-00000000dead"]}, "quorum users missing"),
        ({"threshold": 2, "userIds": [ROOT_USER]}, "larger than the number of quorum users"),
    ],
)
def test_update_root_quorum_refusals(client, params, phrase):
    assert_error(client.submit("update_root_quorum", QUORUM, params), 400, 3, phrase)
    assert ok(client.query("get_organization_configs"))["configs"]["quorum"]["userIds"] == [ROOT_USER]


def test_list_suborgs_by_every_filter_type(client, simulator):
    token = "eyJhbGciOiJub25lIn0." + _b64({"iss": "https://accounts.google.com", "sub": "42", "aud": "app"}) + ".x"
    provider = {"providerName": "google", "oidcToken": token}
    alice, _, _ = sub_org(
        client,
        "alice org",
        key=KEYS["carol"],
        userEmail="Alice@example.com",
        userPhoneNumber="+14155550100",
        oauthProviders=[provider],
    )
    made = client.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", _wallet_sub_org())
    bob = result_of(made, "createSubOrganizationResultV7")
    address = bob["wallet"]["addresses"][0]
    cases = {
        "EMAIL": ("alice@EXAMPLE.com", alice),
        "PHONE_NUMBER": ("+14155550100", alice),
        "USERNAME": ("alice org root", alice),
        "NAME": ("bob org", bob["subOrganizationId"]),
        "PUBLIC_KEY": (_public(KEYS["carol"]), alice),
        "OIDC_TOKEN": (token, alice),
        "WALLET_ACCOUNT_ADDRESS": (address, bob["subOrganizationId"]),
    }
    for filter_type, (value, expected) in cases.items():
        found = ok(client.query("list_suborgs", filterType=filter_type, filterValue=value))["organizationIds"]
        assert found == [expected], filter_type
    everyone = ok(client.query("list_suborgs"))["organizationIds"]
    assert everyone == [alice, bob["subOrganizationId"]]
    page = ok(client.query("list_suborgs", paginationOptions={"limit": "1", "after": alice}))["organizationIds"]
    assert page == [bob["subOrganizationId"]]
    assert (
        ok(client.query("list_suborgs", filterType="EMAIL", filterValue="nobody@example.com"))["organizationIds"] == []
    )


def test_list_suborgs_by_credential_id(client):
    from simulator.testing import PasskeyStamper

    passkey = PasskeyStamper("Y3JlZC0x", "2655373bceaadce88dc26944d9fceb736aff770274de78ffd02c741918b9e7d4")
    authenticator = {"authenticatorName": "laptop", "challenge": "c", "attestation": passkey.attestation("c")}
    org_id, _, _ = sub_org(client, "passkey org", authenticators=[authenticator])
    found = ok(client.query("list_suborgs", filterType="CREDENTIAL_ID", filterValue="Y3JlZC0x"))["organizationIds"]
    assert found == [org_id]


def test_list_suborgs_refusals(client):
    assert_error(client.query("list_suborgs", filterType="SHOE_SIZE", filterValue="9"), 400, 3, "unknown filterType")
    assert_error(client.query("list_suborgs", filterType="EMAIL"), 400, 3, "give both or neither")
    assert_error(client.query("list_suborgs", paginationOptions={"limit": "0"}), 400, 3, "paginationOptions.limit")


def test_list_verified_suborgs_lists_contacts_proven_by_a_verification_token(client, simulator):
    email = "verified@example.com"
    verified_org, user_id, as_root = sub_org(client, "verified", key=KEYS["dave"], userEmail=email)
    sub_org(client, "unverified", userEmail="plain@example.com")
    assert ok(client.query("list_verified_suborgs"))["organizationIds"] == []
    token = verification_token(client, simulator.simulator.store, email)
    params = {"userId": user_id, "userEmail": email, "verificationToken": token}
    assert as_root is not None
    ok(as_root.submit("update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", params))
    assert ok(client.query("list_verified_suborgs"))["organizationIds"] == [verified_org]
    found = ok(client.query("list_verified_suborgs", filterType="EMAIL", filterValue=email))["organizationIds"]
    assert found == [verified_org]
    unverified = ok(client.query("list_verified_suborgs", filterType="EMAIL", filterValue="plain@example.com"))
    assert unverified["organizationIds"] == []
    assert_error(
        client.query("list_verified_suborgs", filterType="USERNAME", filterValue="x"), 400, 3, "EMAIL, PHONE_NUMBER"
    )


def test_delete_invitation_and_smart_contract_interface(client):
    invitation = example("submit", "create_invitations")["parameters"]
    invitation["invitations"][0]["senderUserId"] = ROOT_USER
    inv_id = result_of(
        client.submit("create_invitations", "ACTIVITY_TYPE_CREATE_INVITATIONS", invitation), "createInvitationsResult"
    )["invitationIds"][0]
    done = result_of(
        client.submit("delete_invitation", "ACTIVITY_TYPE_DELETE_INVITATION", {"invitationId": inv_id}),
        "deleteInvitationResult",
    )
    assert done == {"invitationId": inv_id}
    assert ok(client.query("get_organization"))["organizationData"]["invitations"] == []
    assert_error(
        client.submit("delete_invitation", "ACTIVITY_TYPE_DELETE_INVITATION", {"invitationId": inv_id}), 404, 5, inv_id
    )
    sci = example("submit", "create_smart_contract_interface")["parameters"]
    sci_id = result_of(
        client.submit("create_smart_contract_interface", "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", sci),
        "createSmartContractInterfaceResult",
    )["smartContractInterfaceId"]
    refs = ok(client.query("get_organization"))["organizationData"]["smartContractInterfaceReferences"]
    assert (
        refs[0]["smartContractInterfaceId"] == sci_id and refs[0]["smartContractAddress"] == sci["smartContractAddress"]
    )
    delete = ("delete_smart_contract_interface", "ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE")
    assert result_of(
        client.submit(*delete, {"smartContractInterfaceId": sci_id}), "deleteSmartContractInterfaceResult"
    ) == {"smartContractInterfaceId": sci_id}
    assert ok(client.query("list_smart_contract_interfaces"))["smartContractInterfaces"] == []
    assert_error(client.submit(*delete, {"smartContractInterfaceId": sci_id}), 404, 5, sci_id)


def test_delete_invitation_needs_a_policy_for_other_users(client):
    _, bob = api_user(client, "Bob")
    assert_error(bob.submit("delete_invitation", "ACTIVITY_TYPE_DELETE_INVITATION", {"invitationId": "x"}), 403, 7)


def test_the_official_python_client(turnkey_client, client, simulator):
    tk = turnkey_client
    renamed = tk.update_organization_name(T.UpdateOrganizationNameBody(organizationName="Py Org"))
    assert renamed.activity.status == "ACTIVITY_STATUS_COMPLETED" and renamed.organizationName == "Py Org"
    quorum = tk.update_root_quorum(T.UpdateRootQuorumBody(threshold=1, userIds=[ROOT_USER]))
    assert quorum.activity.status == "ACTIVITY_STATUS_COMPLETED"
    org_id, _, _ = sub_org(client, "py sub", userEmail="py@example.com")
    assert tk.get_sub_org_ids(T.GetSubOrgIdsBody(filterType="EMAIL", filterValue="py@example.com")).organizationIds == [
        org_id
    ]
    assert tk.get_verified_sub_org_ids(T.GetVerifiedSubOrgIdsBody()).organizationIds == []
    invitation = example("submit", "create_invitations")["parameters"]["invitations"][0]
    invitation["senderUserId"] = ROOT_USER
    inv_id = tk.create_invitations(T.CreateInvitationsBody(invitations=[invitation])).invitationIds[0]
    assert tk.delete_invitation(T.DeleteInvitationBody(invitationId=inv_id)).invitationId == inv_id
    sci = example("submit", "create_smart_contract_interface")["parameters"]
    sci_id = tk.create_smart_contract_interface(T.CreateSmartContractInterfaceBody(**sci)).smartContractInterfaceId
    gone = tk.delete_smart_contract_interface(T.DeleteSmartContractInterfaceBody(smartContractInterfaceId=sci_id))
    assert gone.smartContractInterfaceId == sci_id


def _wallet_sub_org() -> dict:
    account = {
        "curve": "CURVE_SECP256K1",
        "pathFormat": "PATH_FORMAT_BIP32",
        "path": "m/44'/60'/0'/0/0",
        "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
    }
    root = {"userName": "bob root", "apiKeys": [], "authenticators": [], "oauthProviders": []}
    return {
        "subOrganizationName": "bob org",
        "rootUsers": [root],
        "rootQuorumThreshold": 1,
        "wallet": {"walletName": "w", "accounts": [account]},
    }


def _b64(claims: dict) -> str:
    import base64
    import json

    return base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")


def _public(private_hex: str) -> str:
    from simulator.testing import ApiKeyStamper

    return ApiKeyStamper(private_hex).public_key
