"""Every activity of the main interface, through HTTP, with the envelope the clients need."""

from __future__ import annotations

import hashlib
import json
import time

from conftest import DEFAULTS, ETH_ACCOUNT, new_user, ok, result_of
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def test_create_wallet_returns_the_full_envelope(client):
    """The activity carries ids, fingerprint, the requester's vote and both key names."""
    params = {"walletName": "Main", "accounts": [ETH_ACCOUNT]}
    response = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params)
    activity = ok(response)["activity"]
    vote = activity["votes"][0]
    raw = vote["message"].encode()
    assert activity["fingerprint"] == "sha256:" + hashlib.sha256(raw).hexdigest()
    assert json.loads(raw)["parameters"] == params
    assert activity["intent"] == {"createWalletIntent": params}
    result = activity["result"]["createWalletResult"]
    assert result["addresses"][0].startswith("0x") and len(result["addresses"][0]) == 42
    assert activity["result"]["activity"]["id"] == activity["id"]
    assert activity["timestampMs"] == json.loads(raw)["timestampMs"]
    assert activity["createdAt"] == {
        "seconds": activity["createdAt"]["seconds"],
        "nanos": activity["createdAt"]["nanos"],
    }
    assert all(isinstance(v, str) for v in activity["createdAt"].values())
    assert (activity["canApprove"], activity["canReject"]) == (False, True)
    assert vote["userId"] == DEFAULTS["userId"] and vote["user"]["userName"] == DEFAULTS["userName"]
    assert vote["publicKey"] == DEFAULTS["apiPublicKey"] and vote["scheme"] == "SIGNATURE_SCHEME_TK_API_P256"
    assert activity["id"][14] == "7"  # UUIDv7, as the service's activity ids


def test_reposting_the_same_body_returns_the_same_activity(client):
    body = json.dumps(
        {
            "parameters": {"walletName": "Once", "accounts": []},
            "organizationId": DEFAULTS["organizationId"],
            "timestampMs": str(int(time.time() * 1000)),
            "type": "ACTIVITY_TYPE_CREATE_WALLET",
        }
    ).encode()
    first = ok(client.post("/public/v1/submit/create_wallet", body))["activity"]
    second = ok(client.post("/public/v1/submit/create_wallet", body))["activity"]
    assert first["id"] == second["id"]
    wallets = ok(client.query("list_wallets"))["wallets"]
    assert [w["walletName"] for w in wallets] == ["Once"]


def test_create_wallet_derives_known_addresses_in_account_order(client, simulator):
    params = {
        "walletName": "Two",
        "mnemonicLength": 24,
        "accounts": [
            ETH_ACCOUNT,
            {**ETH_ACCOUNT, "path": "m/44'/60'/0'/0/1"},
            {
                "curve": "CURVE_ED25519",
                "pathFormat": "PATH_FORMAT_BIP32",
                "path": "m/44'/501'/0'/0'",
                "addressFormat": "ADDRESS_FORMAT_SOLANA",
            },
        ],
    }
    result = result_of(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params), "createWalletResult")
    accounts = ok(client.query("list_wallet_accounts", walletId=result["walletId"]))["accounts"]
    assert [a["address"] for a in accounts] == result["addresses"]
    assert [a["path"] for a in accounts] == [a["path"] for a in params["accounts"]]
    wallet = simulator.simulator.store.org(DEFAULTS["organizationId"]).wallets[result["walletId"]]
    assert len(wallet.mnemonic.split()) == 24


def test_generate_app_proofs_signs_a_verifiable_proof(client):
    response = client.submit(
        "create_wallet",
        "ACTIVITY_TYPE_CREATE_WALLET",
        {"walletName": "Proven", "accounts": [ETH_ACCOUNT]},
        generateAppProofs=True,
    )
    activity = ok(response)["activity"]
    proof = activity["appProofs"][0]
    assert proof["scheme"] == "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256"
    pair = bytes.fromhex(proof["publicKey"])  # QuorumOS P256Pair: encryption key, then signing key
    assert len(pair) == 130
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), pair[65:])
    raw = bytes.fromhex(proof["signature"])  # r||s
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key.verify(der, proof["proofPayload"].encode(), ec.ECDSA(hashes.SHA256()))
    assert json.loads(proof["proofPayload"])["activityId"] == activity["id"]
    listed = ok(client.query("list_app_proofs", activityId=activity["id"]))["appProofs"]
    assert listed == [proof]


def test_create_users_then_tags_and_invitations(client):
    alice, bob = new_user(client, "Alice", userEmail="alice@example.com"), new_user(client, "Bob")
    tag = result_of(
        client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "ops", "userIds": [alice]}),
        "createUserTagResult",
    )
    assert tag["userIds"] == [alice]
    result_of(
        client.submit(
            "update_user_tag",
            "ACTIVITY_TYPE_UPDATE_USER_TAG",
            {
                "userTagId": tag["userTagId"],
                "newUserTagName": "operators",
                "addUserIds": [bob],
                "removeUserIds": [alice],
            },
        ),
        "updateUserTagResult",
    )
    tags = ok(client.query("list_user_tags"))["userTags"]
    assert [(t["tagName"], t["tagType"]) for t in tags] == [("operators", "TAG_TYPE_USER")]
    users = {u["userName"]: u for u in ok(client.query("list_users"))["users"]}
    assert users["Bob"]["userTags"] == [tag["userTagId"]] and users["Alice"]["userTags"] == []
    invitation = {
        "receiverUserName": "Carol",
        "receiverUserEmail": "carol@example.com",
        "receiverUserTags": [tag["userTagId"]],
        "accessType": "ACCESS_TYPE_WEB",
        "senderUserId": alice,
    }
    ids = result_of(
        client.submit("create_invitations", "ACTIVITY_TYPE_CREATE_INVITATIONS", {"invitations": [invitation]}),
        "createInvitationsResult",
    )["invitationIds"]
    assert len(ids) == 1


def test_api_keys_can_be_created_and_deleted(client):
    user = new_user(client)
    public = ec.generate_private_key(ec.SECP256R1()).public_key()
    from simulator.crypto.keys import compressed_hex

    params = {
        "userId": user,
        "apiKeys": [
            {
                "apiKeyName": "ci",
                "publicKey": compressed_hex(public),
                "curveType": "API_KEY_CURVE_P256",
                "expirationSeconds": "3600",
            }
        ],
    }
    ids = result_of(
        client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", params), "createApiKeysResult"
    )["apiKeyIds"]
    keys = ok(client.query("get_api_keys", userId=user))["apiKeys"]
    assert [(k["apiKeyId"], k["expirationSeconds"], k["credential"]["type"]) for k in keys] == [
        (ids[0], "3600", "CREDENTIAL_TYPE_API_KEY_P256")
    ]
    deleted = result_of(
        client.submit("delete_api_keys", "ACTIVITY_TYPE_DELETE_API_KEYS", {"userId": user, "apiKeyIds": ids}),
        "deleteApiKeysResult",
    )
    assert deleted == {"apiKeyIds": ids}
    assert ok(client.query("get_api_keys", userId=user))["apiKeys"] == []


def test_delete_authenticators_removes_the_default_passkey(client):
    user = DEFAULTS["userId"]
    auths = ok(client.query("get_authenticators", userId=user))["authenticators"]
    auth_id = auths[0]["authenticatorId"]
    one = ok(client.query("get_authenticator", authenticatorId=auth_id))["authenticator"]
    assert one["credentialId"] == DEFAULTS["passkeyCredentialId"]
    assert one["credential"]["publicKey"].startswith("pQECAyYgASFYI")  # COSE key, as the service shows
    result_of(
        client.submit(
            "delete_authenticators",
            "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
            {"userId": user, "authenticatorIds": [auth_id]},
        ),
        "deleteAuthenticatorsResult",
    )
    assert ok(client.query("get_authenticators", userId=user))["authenticators"] == []


def test_policies_are_created_listed_and_deleted(client):
    one = result_of(
        client.submit(
            "create_policy",
            "ACTIVITY_TYPE_CREATE_POLICY_V3",
            {
                "policyName": "allow eth",
                "effect": "EFFECT_ALLOW",
                "notes": "",
                "condition": "activity.resource == 'WALLET'",
            },
        ),
        "createPolicyResult",
    )["policyId"]
    many = result_of(
        client.submit(
            "create_policies",
            "ACTIVITY_TYPE_CREATE_POLICIES",
            {
                "policies": [
                    {"policyName": "deny a", "effect": "EFFECT_DENY", "notes": "n"},
                    {"policyName": "deny b", "effect": "EFFECT_DENY", "notes": "n"},
                ]
            },
        ),
        "createPoliciesResult",
    )["policyIds"]
    listed = ok(client.query("list_policies"))["policies"]
    assert [p["policyId"] for p in listed] == [one, *many]
    assert listed[0]["condition"] == "activity.resource == 'WALLET'"
    deleted = result_of(
        client.submit("delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", {"policyIds": many}), "deletePoliciesResult"
    )
    assert deleted["policyIds"] == many
    assert [p["policyId"] for p in ok(client.query("list_policies"))["policies"]] == [one]


def test_oauth2_credentials_are_created_updated_and_read(client):
    params = {"provider": "OAUTH2_PROVIDER_X", "clientId": "x-client", "encryptedClientSecret": "enc"}
    cred_id = result_of(
        client.submit("create_oauth2_credential", "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL", params),
        "createOauth2CredentialResult",
    )["oauth2CredentialId"]
    result_of(
        client.submit(
            "update_oauth2_credential",
            "ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL",
            {**params, "oauth2CredentialId": cred_id, "provider": "OAUTH2_PROVIDER_DISCORD"},
        ),
        "updateOauth2CredentialResult",
    )
    cred = ok(client.query("get_oauth2_credential", oauth2CredentialId=cred_id))["oauth2Credential"]
    assert (cred["provider"], cred["clientId"], cred["organizationId"]) == (
        "OAUTH2_PROVIDER_DISCORD",
        "x-client",
        DEFAULTS["organizationId"],
    )


def test_fiat_on_ramp_credentials_are_listed(client):
    params = {
        "onrampProvider": "FIAT_ON_RAMP_PROVIDER_MOONPAY",
        "publishableApiKey": "pk_test",
        "encryptedSecretApiKey": "enc",
        "sandboxMode": True,
    }
    cred_id = result_of(
        client.submit("create_fiat_on_ramp_credential", "ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL", params),
        "createFiatOnRampCredentialResult",
    )["fiatOnRampCredentialId"]
    listed = ok(client.query("list_fiat_on_ramp_credentials"))["fiatOnRampCredentials"]
    assert [(c["fiatOnrampCredentialId"], c["sandboxMode"]) for c in listed] == [(cred_id, True)]


def test_smart_contract_interface_is_stored(client):
    params = {
        "smartContractAddress": "0x" + "ab" * 20,
        "smartContractInterface": "[]",
        "type": "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
        "label": "token",
        "notes": "erc20",
    }
    sci = result_of(
        client.submit("create_smart_contract_interface", "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", params),
        "createSmartContractInterfaceResult",
    )["smartContractInterfaceId"]
    listed = ok(client.query("list_smart_contract_interfaces"))["smartContractInterfaces"]
    assert [(s["smartContractInterfaceId"], s["label"]) for s in listed] == [(sci, "token")]


def test_set_organization_feature_shows_in_configs(client):
    features = result_of(
        client.submit(
            "set_organization_feature",
            "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
            {"name": "FEATURE_NAME_WEBHOOK", "value": "http://127.0.0.1:9/hook"},
        ),
        "setOrganizationFeatureResult",
    )["features"]
    assert {"name": "FEATURE_NAME_WEBHOOK", "value": "http://127.0.0.1:9/hook"} in features
    configs = ok(client.query("get_organization_configs"))["configs"]
    assert configs["features"] == features
    assert configs["quorum"] == {"threshold": 1, "userIds": [DEFAULTS["userId"]]}


def test_every_activity_records_its_policy_evaluation(client):
    activity = ok(
        client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "Eval", "accounts": []})
    )["activity"]
    evaluations = ok(client.query("get_policy_evaluations", activityId=activity["id"]))["policyEvaluations"]
    assert len(evaluations) == 1
    assert evaluations[0]["voteId"] == activity["votes"][0]["id"]
    assert evaluations[0]["policyEvaluations"] == [{"outcome": "OUTCOME_ALLOW"}]


def test_create_users_registers_passkeys_and_oauth_providers(client, simulator):
    """A passkey registered from its attestation stamps requests; OIDC claims become a provider."""
    from simulator.auth.stamps import b64url_encode
    from simulator.testing import PasskeyStamper, SimulatorClient

    passkey = PasskeyStamper("bmV3LXBhc3NrZXk", "4e" * 32)
    claims = {"iss": "https://accounts.example.com", "sub": "user-42", "aud": "client-1"}
    token = ".".join(b64url_encode(json.dumps(part).encode()) for part in ({"alg": "none"}, claims)) + "."
    user = {
        "userName": "Dana",
        "userEmail": "dana@example.com",
        "apiKeys": [],
        "userTags": [],
        "authenticators": [{"authenticatorName": "phone", "challenge": "c", "attestation": passkey.attestation("c")}],
        "oauthProviders": [{"providerName": "Example", "oidcToken": token}],
    }
    user_id = result_of(
        client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [user]}), "createUsersResult"
    )["userIds"][0]
    stored = ok(client.query("get_user", userId=user_id))["user"]
    assert stored["authenticators"][0]["credentialId"] == passkey.credential_id
    assert {k: stored["oauthProviders"][0][k] for k in ("issuer", "subject", "audience")} == {
        "issuer": claims["iss"],
        "subject": claims["sub"],
        "audience": claims["aud"],
    }
    as_dana = SimulatorClient(simulator.url, passkey, DEFAULTS["organizationId"])
    assert ok(as_dana.query("whoami"))["userId"] == user_id


def test_create_users_v4_takes_oidc_claims(client):
    user = {
        "userName": "Eve",
        "apiKeys": [],
        "authenticators": [],
        "userTags": [],
        "oauthProviders": [{"providerName": "X", "oidcClaims": {"iss": "https://x.example", "sub": "x:1", "aud": "c"}}],
    }
    user_id = result_of(
        client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", {"users": [user]}), "createUsersResult"
    )["userIds"][0]
    assert ok(client.query("get_user", userId=user_id))["user"]["oauthProviders"][0]["subject"] == "x:1"


def test_a_failed_create_users_stores_nothing(client):
    good = {"userName": "Ok", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}
    bad = {**good, "userName": "Bad", "userTags": ["no-such-tag"]}
    response = client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [good, bad]})
    assert response.status == 404
    assert [u["userName"] for u in ok(client.query("list_users"))["users"]] == [DEFAULTS["userName"]]
