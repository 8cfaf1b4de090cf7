import pytest
import turnkey_http
import turnkey_api_key_stamper
import turnkey_sdk_types as T
from eth_account import Account
from eth_account.messages import defunct_hash_message, encode_defunct

from simulator import testing

ETH_ACCOUNT = T.v1WalletAccountParams(curve="CURVE_SECP256K1", pathFormat="PATH_FORMAT_BIP32",
                                      path="m/44'/60'/0'/0/0", addressFormat="ADDRESS_FORMAT_ETHEREUM")


def client_for(simulator, key, organization_id):
    """An official client stamping with another API key (a user this test made)."""
    config = turnkey_api_key_stamper.ApiKeyStamperConfig(api_public_key=key.public_key, api_private_key=key.private_key)
    return turnkey_http.TurnkeyClient(base_url=simulator.url, stamper=turnkey_api_key_stamper.ApiKeyStamper(config),
                                      organization_id=organization_id, polling_interval_ms=50)


def test_a_wallet_signs_what_eth_account_verifies(turnkey_client, simulator):
    made = turnkey_client.create_wallet(T.CreateWalletBody(walletName="payouts", accounts=[ETH_ACCOUNT]))
    address = made.addresses[0]
    message = encode_defunct(text="pay 10")                       # an EIP-191 personal message
    digest = "0x" + defunct_hash_message(text="pay 10").hex().removeprefix("0x")
    signed = turnkey_client.sign_raw_payload(T.SignRawPayloadBody(
        signWith=address, payload=digest, encoding="PAYLOAD_ENCODING_HEXADECIMAL", hashFunction="HASH_FUNCTION_NO_OP"))
    vrs = (int(signed.v, 16) + 27, int(signed.r, 16), int(signed.s, 16))
    assert Account.recover_message(message, vrs=vrs) == address
    simulator.journal.assert_called("create_wallet", walletName="payouts")


def test_users_and_policies_through_the_official_client(turnkey_client, simulator_credentials, simulator):
    # a non-root user with an API key: policies govern it (the root user's own activities pass its quorum)
    bot_key = testing.ClientKeyPair.generate()
    bot_id = turnkey_client.create_users(T.CreateUsersBody(users=[T.v1UserParamsV3(
        userName="Payouts Bot", apiKeys=[T.v1ApiKeyParamsV2(apiKeyName="bot", publicKey=bot_key.public_key,
                                                            curveType="API_KEY_CURVE_P256")],
        authenticators=[], oauthProviders=[], userTags=[])])).userIds[0]
    turnkey_client.create_policy(T.CreatePolicyBody(
        policyName="the bot creates wallets", effect="EFFECT_ALLOW", notes="",
        condition="activity.resource == 'WALLET' && activity.action == 'CREATE'",
        consensus=f"approvers.any(user, user.id == '{bot_id}')"))
    bot = client_for(simulator, bot_key, simulator_credentials["organizationId"])
    made = bot.create_wallet(T.CreateWalletBody(walletName="bot wallet", accounts=[ETH_ACCOUNT]))
    assert made.activity.status == "ACTIVITY_STATUS_COMPLETED"
    with pytest.raises(Exception, match="(?i)denied|permission"):   # no policy allows the bot to add users
        bot.create_users(T.CreateUsersBody(users=[T.v1UserParamsV3(
            userName="Eve", apiKeys=[], authenticators=[], oauthProviders=[], userTags=[])]))


@pytest.mark.simulator_scenario("scenarios/payouts.yaml")   # relative to this file
def test_a_payout_waits_for_a_second_approver(simulator_user, simulator):
    activity = simulator_user("Root User").submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET",
                                                  {"walletName": "w", "accounts": []}).body["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    assert simulator.approve(activity["id"], "Approver")["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_webhooks(simulator_client, webhook_receiver):
    assert webhook_receiver.url.endswith("/hooks")
    simulator_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "hooked", "accounts": []})
    delivery = webhook_receiver.wait_for(1)[0]
    assert webhook_receiver.verify(delivery) and delivery.json["type"] == "ACTIVITY_TYPE_CREATE_WALLET"


def test_an_end_user_logs_in_by_email_with_the_official_client(turnkey_client, simulator_outbox, simulator):
    # the backend (turnkey_client: the parent's API key) makes the user's sub-organization and starts the OTP
    sub_org_id = turnkey_client.create_sub_organization(T.CreateSubOrganizationBody(
        subOrganizationName="ada", rootQuorumThreshold=1, rootUsers=[T.v1RootUserParamsV4(
            userName="Ada", userEmail="ada@example.com", apiKeys=[], authenticators=[], oauthProviders=[])]
    )).subOrganizationId
    otp = turnkey_client.init_otp(T.InitOtpBody(otpType="OTP_TYPE_EMAIL", contact="ada@example.com", appName="Payouts"))
    code = simulator_outbox.wait_for("ada@example.com")        # the code the e-mail carried (a string)

    # the user's side, as @turnkey/crypto does it: a key of its own, the code sealed to init_otp's bundle
    key = testing.ClientKeyPair.generate()
    sealed = testing.encrypt_otp_code_to_bundle(code, otp.otpEncryptionTargetBundle, key.public_key)
    token = turnkey_client.verify_otp(T.VerifyOtpBody(otpId=otp.otpId, encryptedOtpBundle=sealed)).verificationToken
    signature = testing.login_client_signature(token, key.public_key, key.private_key)
    session = turnkey_client.otp_login(T.OtpLoginBody(
        organizationId=sub_org_id, verificationToken=token, publicKey=key.public_key,
        clientSignature=T.v1ClientSignature(**signature))).session

    ada = testing.session_client(simulator.url, session, key.private_key)   # stamps with the session key
    assert ada.query("whoami").body["organizationId"] == sub_org_id


def test_time_and_reset(turnkey_client, simulator):
    before = simulator.clock.now_ms()
    simulator.clock.advance(3600)                                 # simulated time, not a sleep
    assert simulator.clock.now_ms() - before >= 3_600_000
    assert turnkey_client.get_wallets(T.GetWalletsBody()).wallets == []   # each test starts from the scenario
