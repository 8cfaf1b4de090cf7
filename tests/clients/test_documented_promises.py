"""Promises of Turnkey's documentation the simulator keeps (issue 53), through the official Python client
(turnkey-http + turnkey-api-key-stamper, unmodified): organization features gating e-mail auth and OTP,
the disable flags of create_sub_organization, imports for one's own user only, a sign-up's verification
token marking the contact verified, raw-payload-only accounts, the Solana IDL's ``types`` key, and an
explicit deny naming another user leaving a user's own credentials alone. Each page and heading is named
where it is tested; the switch that turns the stricter rules off is tested last."""

from __future__ import annotations

import json
import time

import pytest

T = pytest.importorskip("turnkey_sdk_types")
from conftest import DEFAULTS  # noqa: E402
from support import EMAIL, ClientKey, client_signature, seal_to_target  # noqa: E402
from turnkey_sdk_types.errors import TurnkeyNetworkError  # noqa: E402

ORG, ROOT = DEFAULTS["organizationId"], DEFAULTS["userId"]
EMAIL_AUTH, OTP_EMAIL_AUTH = "FEATURE_NAME_EMAIL_AUTH", "FEATURE_NAME_OTP_EMAIL_AUTH"
APP = T.v1EmailAuthCustomizationParams(appName="Demo")
LENIENT = "../scenarios/lenient_documented_rules.yaml"
SWITCH = "serve --lenient-documented-rules or a scenario's lenientDocumentedRules: true"
ETH_UNSIGNED = (  # an EIP-1559 transfer, unsigned (fixtures/requests/submit/sign_transaction.json)
    "02ef0180843b9aca008504a817c80082520894d8da6bf26964af9d7eed9e03e53415d37aa9604587038d7ea4c6800080c0"
)


def refused(call, status: int, *phrases: str) -> str:
    """The client's TurnkeyNetworkError for ``call``: its status and the phrases of its message."""
    with pytest.raises(TurnkeyNetworkError) as caught:
        call()
    message = str(caught.value)
    assert caught.value.status_code == status, message
    for phrase in phrases:
        assert phrase in message, message
    return message


def now_ms(offset: int = 0) -> str:
    """A distinct timestampMs: the same request sent twice would be the same activity."""
    return str(int(time.time() * 1000) + offset)


def sub_organization(tk, name: str = "alice", api_key: ClientKey | None = None, **flags: bool) -> str:
    keys = (
        [T.v1ApiKeyParamsV2(apiKeyName="k", publicKey=api_key.public, curveType="API_KEY_CURVE_P256")]
        if api_key
        else []
    )
    root = T.v1RootUserParamsV4(userName="Alice", userEmail=EMAIL, apiKeys=keys, authenticators=[], oauthProviders=[])
    made = tk.create_sub_organization(
        T.CreateSubOrganizationBody(subOrganizationName=name, rootUsers=[root], rootQuorumThreshold=1, **flags)
    )
    return str(made.subOrganizationId)


def features_of(tk, organization_id: str) -> set[str]:
    configs = tk.get_organization_configs(T.GetOrganizationConfigsBody(organizationId=organization_id)).configs
    return {f.name for f in configs.features or []}


def email_auth(tk, sub_id: str, offset: int = 0):
    return tk.email_auth(
        T.EmailAuthBody(
            organizationId=sub_id,
            email=EMAIL,
            targetPublicKey=ClientKey().uncompressed,
            emailCustomization=APP,
            timestampMs=now_ms(offset),
        )
    )


def init_otp(tk, offset: int = 0):
    return tk.init_otp(
        T.InitOtpBody(otpType="OTP_TYPE_EMAIL", contact=EMAIL, appName="Demo", timestampMs=now_ms(offset))
    )


def verified_token(tk, simulator, key: ClientKey) -> str:
    started = init_otp(tk)
    code = json.dumps({"otp_code": simulator.simulator.otp_code(EMAIL), "public_key": key.public}).encode()
    sealed = seal_to_target(started.otpEncryptionTargetBundle, code)
    return str(tk.verify_otp(T.VerifyOtpBody(otpId=started.otpId, encryptedOtpBundle=sealed)).verificationToken)


def client_for(simulator, key: ClientKey, organization_id: str):
    from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig
    from turnkey_http import TurnkeyClient

    stamper = ApiKeyStamper(ApiKeyStamperConfig(api_public_key=key.public, api_private_key=key.private))
    return TurnkeyClient(
        base_url=simulator.url, stamper=stamper, organization_id=organization_id, polling_interval_ms=50
    )


# organizations.mdx, "Features" and "Permissions"; email.mdx, "Authentication" and "Opting out" -----------------


def test_a_new_organization_and_sub_organization_have_both_email_features(turnkey_client):
    assert {EMAIL_AUTH, OTP_EMAIL_AUTH} <= features_of(turnkey_client, ORG)
    assert features_of(turnkey_client, sub_organization(turnkey_client)) == {EMAIL_AUTH, OTP_EMAIL_AUTH}


@pytest.mark.simulator_scenario("../scenarios/email_features_off.yaml")
def test_a_scenario_organization_may_start_with_both_features_off(turnkey_client):
    assert features_of(turnkey_client, ORG) == {"FEATURE_NAME_WEBAUTHN_ORIGINS"}  # listed features add to the defaults
    sub_id = sub_organization(turnkey_client)
    assert features_of(turnkey_client, sub_id) == {EMAIL_AUTH, OTP_EMAIL_AUTH}
    refused(
        lambda: email_auth(turnkey_client, sub_id), 403, f"{EMAIL_AUTH}, which is not enabled on organization {ORG}"
    )
    refused(lambda: init_otp(turnkey_client), 403, OTP_EMAIL_AUTH)


def test_removing_a_parent_feature_refuses_email_auth_and_otp_until_it_is_set_again(turnkey_client):
    tk = turnkey_client
    sub_id = sub_organization(tk)
    assert email_auth(tk, sub_id).userId
    tk.remove_organization_feature(T.RemoveOrganizationFeatureBody(name=EMAIL_AUTH))
    refused(lambda: email_auth(tk, sub_id, 1), 403, f"requires the organization feature {EMAIL_AUTH}", ORG, SWITCH)
    tk.remove_organization_feature(T.RemoveOrganizationFeatureBody(name=OTP_EMAIL_AUTH))
    refused(lambda: init_otp(tk, 2), 403, f"requires the organization feature {OTP_EMAIL_AUTH}")
    assert tk.get_activities(T.GetActivitiesBody(filterByType=["ACTIVITY_TYPE_INIT_OTP_V3"])).activities == []
    tk.set_organization_feature(T.SetOrganizationFeatureBody(name=EMAIL_AUTH, value=""))
    tk.set_organization_feature(T.SetOrganizationFeatureBody(name=OTP_EMAIL_AUTH, value=""))
    assert email_auth(tk, sub_id, 3).userId and init_otp(tk, 4).otpId


def test_a_sub_organization_removing_its_own_feature_refuses_the_parents_email_auth(turnkey_client, simulator):
    root_key = ClientKey()
    sub_id = sub_organization(turnkey_client, api_key=root_key)
    sub_root = client_for(simulator, root_key, sub_id)
    sub_root.remove_organization_feature(T.RemoveOrganizationFeatureBody(name=EMAIL_AUTH))
    assert features_of(turnkey_client, sub_id) == {OTP_EMAIL_AUTH}
    refused(
        lambda: email_auth(turnkey_client, sub_id), 403, f"{EMAIL_AUTH}, which is not enabled on organization {sub_id}"
    )
    refused(
        lambda: sub_root.remove_organization_feature(
            T.RemoveOrganizationFeatureBody(name=EMAIL_AUTH, timestampMs=now_ms(1))
        ),
        404,
        f"feature {EMAIL_AUTH} is not set",
    )


def test_disable_flags_leave_the_sub_organization_without_email_auth_and_otp_login(turnkey_client, simulator):
    tk = turnkey_client
    sub_id = sub_organization(tk, disableEmailAuth=True, disableOtpEmailAuth=True)
    assert features_of(tk, sub_id) == set()
    refused(lambda: email_auth(tk, sub_id), 403, f"email_auth requires the organization feature {EMAIL_AUTH}")
    key = ClientKey()
    token = verified_token(tk, simulator, key)  # the parent has the feature: its code is sent and verified
    signature = T.v1ClientSignature(
        **client_signature(token, key, {"login": {"publicKey": key.public}}, "USAGE_TYPE_LOGIN")
    )
    login = T.OtpLoginBody(
        organizationId=sub_id, verificationToken=token, publicKey=key.public, clientSignature=signature
    )
    refused(lambda: tk.otp_login(login), 403, f"otp_login requires the organization feature {OTP_EMAIL_AUTH}", sub_id)


# organizations.mdx, "Permissions": "All import requests must target your own user" ---------------------------------


def test_an_import_for_another_user_is_refused(turnkey_client):
    bob = turnkey_client.create_users(
        T.CreateUsersBody(
            users=[T.v1UserParamsV3(userName="Bob", apiKeys=[], authenticators=[], oauthProviders=[], userTags=[])]
        )
    ).userIds[0]
    refused(
        lambda: turnkey_client.init_import_wallet(T.InitImportWalletBody(userId=bob)),
        403,
        f"init_import_wallet must target your own user: userId {bob} is not the requester {ROOT}",
    )
    refused(
        lambda: turnkey_client.init_import_private_key(T.InitImportPrivateKeyBody(userId=bob)), 403, "your own user"
    )
    assert turnkey_client.init_import_wallet(T.InitImportWalletBody(userId=ROOT)).importBundle


# auth-proxy.mdx, "Signup": a verificationToken creates the sub-organization with the contact marked verified ---------


def test_a_sign_up_with_a_verification_token_marks_the_contact_verified(turnkey_client, simulator):
    tk, key = turnkey_client, ClientKey()
    token = verified_token(tk, simulator, key)
    signature = client_signature(token, key, {"signup": {"email": EMAIL}}, "USAGE_TYPE_SIGNUP")
    root = T.v1RootUserParamsV4(userName="Alice", userEmail=EMAIL, apiKeys=[], authenticators=[], oauthProviders=[])
    made = tk.create_sub_organization(
        T.CreateSubOrganizationBody(
            subOrganizationName="signed up",
            rootUsers=[root],
            rootQuorumThreshold=1,
            verificationToken=token,
            clientSignature=T.v1ClientSignature(**signature),
        )
    )
    found = tk.get_verified_sub_org_ids(T.GetVerifiedSubOrgIdsBody(filterType="EMAIL", filterValue=EMAIL))
    assert found.organizationIds == [made.subOrganizationId]
    user = tk.get_user(T.GetUserBody(organizationId=made.subOrganizationId, userId=made.rootUserIds[0])).user
    assert user.userEmail == EMAIL


# wallets.mdx: ADDRESS_FORMAT_COMPRESSED "can be used to sign with (only sign raw payloads supported)" ------------------


def test_a_compressed_account_signs_raw_payloads_but_no_transaction(turnkey_client):
    account = T.v1WalletAccountParams(
        curve="CURVE_SECP256K1",
        pathFormat="PATH_FORMAT_BIP32",
        path="m/0'/0",
        addressFormat="ADDRESS_FORMAT_COMPRESSED",
    )
    address = turnkey_client.create_wallet(T.CreateWalletBody(walletName="raw", accounts=[account])).addresses[0]
    signed = turnkey_client.sign_raw_payload(
        T.SignRawPayloadBody(
            signWith=address,
            payload="ab" * 32,
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hashFunction="HASH_FUNCTION_NO_OP",
        )
    )
    assert len(signed.r) == 64
    refused(
        lambda: turnkey_client.sign_transaction(
            T.SignTransactionBody(signWith=address, type="TRANSACTION_TYPE_ETHEREUM", unsignedTransaction=ETH_UNSIGNED)
        ),
        400,
        f"invalid signWith: {address} is an ADDRESS_FORMAT_COMPRESSED address, which signs raw payloads only",
    )


# smart-contract-interfaces.mdx: "The `types` key must be present in all uploaded IDLs" ----------------------------


def test_a_solana_idl_without_types_is_refused_and_an_empty_array_is_enough(turnkey_client):
    idl = {"instructions": [{"name": "initialize", "accounts": [], "args": []}]}

    def upload(interface: dict, label: str):
        return turnkey_client.create_smart_contract_interface(
            T.CreateSmartContractInterfaceBody(
                smartContractAddress="11111111111111111111111111111111",
                smartContractInterface=json.dumps(interface),
                type="SMART_CONTRACT_INTERFACE_TYPE_SOLANA",
                label=label,
            )
        )

    refused(lambda: upload(idl, "no types"), 400, "the types key must be present in every uploaded IDL", SWITCH)
    assert upload({**idl, "types": []}, "empty types").smartContractInterfaceId


# policy-engine.mdx: users may change their own credentials "unless a policy explicitly allows or denies" it --------


def test_a_deny_naming_another_user_leaves_a_users_own_credentials_alone(turnkey_client, simulator):
    alice_key, bob_key = ClientKey(), ClientKey()

    def user(name: str, key: ClientKey) -> str:
        keys = [T.v1ApiKeyParamsV2(apiKeyName=name, publicKey=key.public, curveType="API_KEY_CURVE_P256")]
        params = T.v1UserParamsV3(userName=name, apiKeys=keys, authenticators=[], oauthProviders=[], userTags=[])
        return str(turnkey_client.create_users(T.CreateUsersBody(users=[params])).userIds[0])

    alice, bob = user("Alice", alice_key), user("Bob", bob_key)
    turnkey_client.create_policy(
        T.CreatePolicyBody(
            policyName="Bob manages no credentials",
            effect="EFFECT_DENY",
            consensus=f"approvers.any(user, user.id == '{bob}')",
            condition="activity.resource == 'CREDENTIAL'",
            notes="",
        )
    )

    def add_key(client, user_id: str):
        new = T.v1ApiKeyParamsV2(
            apiKeyName=f"more {user_id}", publicKey=ClientKey().public, curveType="API_KEY_CURVE_P256"
        )
        return client.create_api_keys(T.CreateApiKeysBody(userId=user_id, apiKeys=[new]))

    assert len(add_key(client_for(simulator, alice_key, ORG), alice).apiKeyIds) == 1
    refused(lambda: add_key(client_for(simulator, bob_key, ORG), bob), 403)


# credentials.mdx, "Credential types": LOGIN for the session logins, OTP, passkey or OAuth (ledger: oauth-login-credential-type)


def test_otp_login_and_oauth_login_both_issue_a_login_credential(turnkey_client, simulator):
    from simulator.standins import oauth_provider

    tk, key = turnkey_client, ClientKey()
    registration = oauth_provider.id_token(simulator.simulator, subject="g-1", audience="google-client")
    provider = T.v1OauthProviderParams(providerName="Google", oidcToken=registration)
    root = T.v1RootUserParamsV4(
        userName="Alice", userEmail=EMAIL, apiKeys=[], authenticators=[], oauthProviders=[provider]
    )
    made = tk.create_sub_organization(
        T.CreateSubOrganizationBody(subOrganizationName="logins", rootUsers=[root], rootQuorumThreshold=1)
    )
    sub_id, user_id = made.subOrganizationId, made.rootUserIds[0]
    token = verified_token(tk, simulator, key)
    login = client_signature(token, key, {"login": {"publicKey": key.public}}, "USAGE_TYPE_LOGIN")
    tk.otp_login(
        T.OtpLoginBody(
            organizationId=sub_id,
            verificationToken=token,
            publicKey=key.public,
            clientSignature=T.v1ClientSignature(**login),
        )
    )
    oauth_key = ClientKey()
    oidc = oauth_provider.id_token(
        simulator.simulator, subject="g-1", audience="google-client", nonce=oauth_provider.nonce_for(oauth_key.public)
    )
    tk.oauth_login(T.OauthLoginBody(organizationId=sub_id, oidcToken=oidc, publicKey=oauth_key.public))
    keys = tk.get_api_keys(T.GetApiKeysBody(organizationId=sub_id, userId=user_id)).apiKeys
    types = {k.credential.publicKey: k.credential.type for k in keys}
    assert types == {key.public: "CREDENTIAL_TYPE_LOGIN", oauth_key.public: "CREDENTIAL_TYPE_LOGIN"}


# the one switch: serve --lenient-documented-rules, a scenario's lenientDocumentedRules: true --------------------------


@pytest.mark.simulator_scenario(LENIENT)
def test_the_lenient_switch_restores_the_earlier_behaviour(turnkey_client):
    tk = turnkey_client
    sub_id = sub_organization(tk, disableEmailAuth=True, disableOtpEmailAuth=True)
    assert features_of(tk, sub_id) == set()  # the flags still leave the features out: only the refusal is off
    assert email_auth(tk, sub_id).userId
    bob = tk.create_users(
        T.CreateUsersBody(
            users=[T.v1UserParamsV3(userName="Bob", apiKeys=[], authenticators=[], oauthProviders=[], userTags=[])]
        )
    ).userIds[0]
    assert tk.init_import_wallet(T.InitImportWalletBody(userId=bob)).importBundle
    assert tk.create_smart_contract_interface(
        T.CreateSmartContractInterfaceBody(
            smartContractAddress="11111111111111111111111111111111",
            smartContractInterface="{}",
            type="SMART_CONTRACT_INTERFACE_TYPE_SOLANA",
            label="no types",
        )
    ).smartContractInterfaceId
