"""The official Python client (turnkey-http 0.2.0 + turnkey-api-key-stamper), unmodified,
against the simulator: every activity and query of the main-interface issue."""

from __future__ import annotations

import pytest

T = pytest.importorskip("turnkey_sdk_types")
from conftest import DEFAULTS  # noqa: E402

from simulator.crypto.keys import compressed_hex, new_ec_key  # noqa: E402

ETH = T.v1WalletAccountParams(
    curve="CURVE_SECP256K1",
    pathFormat="PATH_FORMAT_BIP32",
    path="m/44'/60'/0'/0/0",
    addressFormat="ADDRESS_FORMAT_ETHEREUM",
)


@pytest.fixture
def tk(turnkey_client):
    return turnkey_client


def user_body(name: str) -> T.CreateUsersBody:
    return T.CreateUsersBody(
        users=[T.v1UserParamsV3(userName=name, apiKeys=[], authenticators=[], oauthProviders=[], userTags=[])]
    )


def test_wallet_flow(tk):
    made = tk.create_wallet(T.CreateWalletBody(walletName="py", accounts=[ETH]))
    assert made.activity.status == "ACTIVITY_STATUS_COMPLETED" and made.addresses[0].startswith("0x")
    assert [w.walletId for w in tk.get_wallets().wallets] == [made.walletId]
    accounts = tk.get_wallet_accounts(T.GetWalletAccountsBody(walletId=made.walletId)).accounts
    assert accounts[0].address == made.addresses[0]
    polled = tk.get_activity(T.GetActivityBody(activityId=made.activity.id)).activity
    assert polled.fingerprint == made.activity.fingerprint
    listed = tk.get_activities(T.GetActivitiesBody(filterByType=["ACTIVITY_TYPE_CREATE_WALLET"])).activities
    assert [a.id for a in listed] == [made.activity.id]
    evaluations = tk.get_policy_evaluations(T.GetPolicyEvaluationsBody(activityId=made.activity.id)).policyEvaluations
    assert evaluations[0].policyEvaluations[0].outcome == "OUTCOME_ALLOW"
    assert tk.get_app_proofs(T.GetAppProofsBody(activityId=made.activity.id)).appProofs == []


def test_users_tags_and_invitations(tk):
    alice = tk.create_users(user_body("Alice")).userIds[0]
    tag = tk.create_user_tag(T.CreateUserTagBody(userTagName="ops", userIds=[alice]))
    assert tag.userIds == [alice]
    tk.update_user_tag(
        T.UpdateUserTagBody(userTagId=tag.userTagId, newUserTagName="ops2", addUserIds=[], removeUserIds=[alice])
    )
    assert [t.tagName for t in tk.list_user_tags(T.ListUserTagsBody()).userTags] == ["ops2"]
    assert {u.userName for u in tk.get_users().users} == {"Alice", DEFAULTS["userName"]}
    invitation = T.v1InvitationParams(
        receiverUserName="Carol",
        receiverUserEmail="carol@example.com",
        receiverUserTags=[],
        accessType="ACCESS_TYPE_API",
        senderUserId=alice,
    )
    assert len(tk.create_invitations(T.CreateInvitationsBody(invitations=[invitation])).invitationIds) == 1


def test_credentials(tk):
    alice = tk.create_users(user_body("Alice")).userIds[0]
    public = compressed_hex(new_ec_key(_source(), "p256"))
    key = T.v1ApiKeyParamsV2(apiKeyName="k", publicKey=public, curveType="API_KEY_CURVE_P256")
    ids = tk.create_api_keys(T.CreateApiKeysBody(userId=alice, apiKeys=[key])).apiKeyIds
    assert [k.apiKeyId for k in tk.get_api_keys(T.GetApiKeysBody(userId=alice)).apiKeys] == ids
    assert tk.delete_api_keys(T.DeleteApiKeysBody(userId=alice, apiKeyIds=ids)).apiKeyIds == ids
    auths = tk.get_authenticators(T.GetAuthenticatorsBody(userId=DEFAULTS["userId"])).authenticators
    one = tk.get_authenticator(T.GetAuthenticatorBody(authenticatorId=auths[0].authenticatorId)).authenticator
    assert one.credentialId == DEFAULTS["passkeyCredentialId"]
    deleted = tk.delete_authenticators(
        T.DeleteAuthenticatorsBody(userId=DEFAULTS["userId"], authenticatorIds=[one.authenticatorId])
    )
    assert deleted.authenticatorIds == [one.authenticatorId]


def _source():
    from simulator.clock import Source

    return Source(1)


def test_oauth2_and_fiat_credentials(tk):
    cred = tk.create_oauth2_credential(
        T.CreateOauth2CredentialBody(provider="OAUTH2_PROVIDER_X", clientId="c", encryptedClientSecret="e")
    ).oauth2CredentialId
    tk.update_oauth2_credential(
        T.UpdateOauth2CredentialBody(
            oauth2CredentialId=cred, provider="OAUTH2_PROVIDER_DISCORD", clientId="c2", encryptedClientSecret="e2"
        )
    )
    got = tk.get_oauth2_credential(T.GetOauth2CredentialBody(oauth2CredentialId=cred)).oauth2Credential
    assert (got.provider, got.clientId) == ("OAUTH2_PROVIDER_DISCORD", "c2")
    tk.create_fiat_on_ramp_credential(
        T.CreateFiatOnRampCredentialBody(
            onrampProvider="FIAT_ON_RAMP_PROVIDER_COINBASE", publishableApiKey="p", encryptedSecretApiKey="s"
        )
    )
    assert len(tk.list_fiat_on_ramp_credentials(T.ListFiatOnRampCredentialsBody()).fiatOnRampCredentials) == 1


def test_policies_features_and_contract_interfaces(tk):
    one = tk.create_policy(T.CreatePolicyBody(policyName="p1", effect="EFFECT_ALLOW", notes="")).policyId
    many = tk.create_policies(
        T.CreatePoliciesBody(policies=[T.v1CreatePolicyIntentV3(policyName="p2", effect="EFFECT_DENY", notes="")])
    ).policyIds
    assert [p.policyId for p in tk.get_policies().policies] == [one, *many]
    assert tk.delete_policies(T.DeletePoliciesBody(policyIds=[one])).policyIds == [one]
    features = tk.set_organization_feature(
        T.SetOrganizationFeatureBody(name="FEATURE_NAME_WEBHOOK", value="http://127.0.0.1:9/h")
    ).features
    assert tk.get_organization_configs(T.GetOrganizationConfigsBody()).configs.features == features
    sci = tk.create_smart_contract_interface(
        T.CreateSmartContractInterfaceBody(
            smartContractAddress="0x0",
            smartContractInterface="[]",
            type="SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
            label="l",
        )
    ).smartContractInterfaceId
    assert sci


def test_reads_of_keys_tags_balances_and_identity(tk):
    assert tk.get_private_keys().privateKeys == []
    assert tk.list_private_key_tags(T.ListPrivateKeyTagsBody()).privateKeyTags == []
    who = tk.get_whoami()
    assert (who.organizationId, who.userId) == (DEFAULTS["organizationId"], DEFAULTS["userId"])
    made = tk.create_wallet(T.CreateWalletBody(walletName="b", accounts=[ETH]))
    balances = tk.get_wallet_address_balances(
        T.GetWalletAddressBalancesBody(address=made.addresses[0], caip2="eip155:1")
    )
    assert balances.balances == []


def test_errors_reach_the_client_as_network_errors(tk):
    from turnkey_sdk_types.errors import TurnkeyNetworkError

    with pytest.raises(TurnkeyNetworkError) as caught:
        tk.delete_policies(T.DeletePoliciesBody(policyIds=["00000000-0000-4000-8000-0000000000a3"]))
    assert caught.value.status_code == 404 and "policies not found" in str(caught.value)


def test_authentication_flows_through_the_python_client(tk, simulator):
    """Sub-org sign-up with a wallet, init_otp V3, verify_otp V2, otp_login V2 and otp_auth, as
    turnkey-http 0.2.0 sends them, with every result validated by its pydantic models."""
    import json as _json

    from support import EMAIL, ClientKey, client_signature, open_bundle, seal_to_target, verify_session

    root = T.v1RootUserParamsV4(userName="Alice", userEmail=EMAIL, apiKeys=[], authenticators=[], oauthProviders=[])
    sub = tk.create_sub_organization(
        T.CreateSubOrganizationBody(
            subOrganizationName="alice",
            rootUsers=[root],
            rootQuorumThreshold=1,
            wallet=T.v1WalletParams(walletName="w", accounts=[ETH]),
        )
    )
    assert sub.wallet.addresses[0].startswith("0x") and sub.rootUserIds
    started = tk.init_otp(T.InitOtpBody(otpType="OTP_TYPE_EMAIL", contact=EMAIL, appName="Demo"))
    key = ClientKey()
    sealed = seal_to_target(
        started.otpEncryptionTargetBundle,
        _json.dumps({"otp_code": simulator.simulator.otp_code(EMAIL), "public_key": key.public}).encode(),
    )
    token = tk.verify_otp(T.VerifyOtpBody(otpId=started.otpId, encryptedOtpBundle=sealed)).verificationToken
    signature = T.v1ClientSignature(
        **client_signature(token, key, {"login": {"publicKey": key.public}}, "USAGE_TYPE_LOGIN")
    )
    session = tk.otp_login(
        T.OtpLoginBody(
            organizationId=sub.subOrganizationId,
            verificationToken=token,
            publicKey=key.public,
            clientSignature=signature,
        )
    ).session
    assert verify_session(session)["organization_id"] == sub.subOrganizationId
    auth_otp = tk.init_otp(
        T.InitOtpBody(
            otpType="OTP_TYPE_EMAIL",
            contact=EMAIL,
            appName="Demo",
            timestampMs=str(int(__import__("time").time() * 1000) + 1),
        )
    )
    target = ClientKey()
    bundle = tk.otp_auth(
        T.OtpAuthBody(
            organizationId=sub.subOrganizationId,
            otpId=auth_otp.otpId,
            otpCode=simulator.simulator.otp_code(EMAIL),
            targetPublicKey=target.uncompressed,
        )
    )
    assert bundle.userId == sub.rootUserIds[0] and len(open_bundle(bundle.credentialBundle, target)) == 64
