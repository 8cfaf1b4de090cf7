"""Credentials and providers: OAuth providers of a user, OAuth 2.0 credential deletion, fiat on-ramp
credential update and deletion; over HTTP and through the official Python client (turnkey-http)."""

from __future__ import annotations

import json

import pytest
from conftest import DEFAULTS, new_user, ok, result_of
from support import EMAIL, assert_error, sub_org

from simulator.standins import oauth_provider

ROOT = DEFAULTS["userId"]
V2 = "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2"


def claims(sub: str, aud: str = "client-1", iss: str = "https://issuer.example") -> dict:
    return {"providerName": f"p-{sub}", "oidcClaims": {"iss": iss, "sub": sub, "aud": aud}}


def create(client, providers: list, user_id: str = ROOT, activity_type: str = V2, **extra):
    return client.submit(
        "create_oauth_providers", activity_type, {"userId": user_id, "oauthProviders": providers}, **extra
    )


def test_create_list_and_delete_oauth_providers(client, simulator):
    made = result_of(create(client, [claims("a"), claims("b")]), "createOauthProvidersResultV2")["providerIds"]
    token = oauth_provider.id_token(simulator.simulator, "c", "client-1")
    v1 = result_of(
        create(
            client,
            [{"providerName": "google", "oidcToken": token}],
            activity_type="ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
        ),
        "createOauthProvidersResult",
    )
    listed = ok(client.query("get_oauth_providers", userId=ROOT))["oauthProviders"]
    assert [p["providerId"] for p in listed] == [*made, *v1["providerIds"]]
    assert (listed[2]["issuer"], listed[2]["subject"], listed[2]["audience"]) == (
        "https://accounts.simulator.local",
        "c",
        "client-1",
    )
    deleted = result_of(
        client.submit(
            "delete_oauth_providers", "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS", {"userId": ROOT, "providerIds": [made[0]]}
        ),
        "deleteOauthProvidersResult",
    )
    assert deleted == {"providerIds": [made[0]]}
    assert [p["providerId"] for p in ok(client.query("get_oauth_providers"))["oauthProviders"]] == [
        made[1],
        *v1["providerIds"],
    ]


def test_oauth_provider_refusals(client):
    result_of(create(client, [claims("dup")]), "createOauthProvidersResultV2")
    bob = new_user(client, "Bob")
    dup = create(client, [claims("dup")], bob)
    assert_error(dup, 400, 3, "OAuth provider with same audience, subject, and issuer already exists")
    assert dup.body["turnkeyErrorCode"] == "OAUTH_PROVIDER_ALREADY_EXISTS"
    assert_error(create(client, [claims(f"n{i}") for i in range(11)], bob), 429, 8, "maximum oauth providers")
    assert_error(create(client, [{"providerName": "x", "oidcToken": "garbage"}]), 400, 3, "invalid OIDC token")
    assert_error(
        create(client, [claims("z")], "00000000-0000-4000-8000-0000000000c7"),
        404,
        5,
        "user 00000000-0000-4000-8000-0000000000c7 not found",
    )
    missing = client.submit(
        "delete_oauth_providers",
        "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
        {"userId": ROOT, "providerIds": ["00000000-0000-4000-8000-0000000000d5"]},
    )
    assert_error(missing, 404, 5, "oauth providers not found", "00000000-0000-4000-8000-0000000000d5")
    assert_error(
        client.query("get_oauth_providers", userId="00000000-0000-4000-8000-0000000000c7"),
        404,
        5,
        "user 00000000-0000-4000-8000-0000000000c7 not found",
    )


def test_a_trusted_token_with_the_users_email_verifies_it(client, simulator):
    token = oauth_provider.id_token(simulator.simulator, "g-1", "client-1", email="root@example.com")
    result_of(create(client, [{"providerName": "google", "oidcToken": token}]), "createOauthProvidersResultV2")
    assert simulator.simulator.store.org(DEFAULTS["organizationId"]).users[ROOT].email_verified


def test_delete_oauth2_credential(client):
    made = result_of(
        client.submit(
            "create_oauth2_credential",
            "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
            {"provider": "OAUTH2_PROVIDER_X", "clientId": "x", "encryptedClientSecret": "s"},
        ),
        "createOauth2CredentialResult",
    )["oauth2CredentialId"]
    gone = client.submit(
        "delete_oauth2_credential", "ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL", {"oauth2CredentialId": made}
    )
    assert result_of(gone, "deleteOauth2CredentialResult") == {"oauth2CredentialId": made}
    assert ok(client.query("list_oauth2_credentials"))["oauth2Credentials"] == []
    again = client.submit(
        "delete_oauth2_credential", "ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL", {"oauth2CredentialId": made}
    )
    assert_error(again, 404, 5, f"oauth2 credential {made} not found")
    assert again.body["turnkeyErrorCode"] == "OAUTH2_CREDENTIAL_NOT_FOUND"
    empty = client.submit(
        "delete_oauth2_credential", "ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL", {"oauth2CredentialId": ""}
    )
    assert_error(empty, 400, 3, "oauth2_credential_id must be set")


FIAT = {"onrampProvider": "FIAT_ON_RAMP_PROVIDER_COINBASE", "publishableApiKey": "pk", "encryptedSecretApiKey": "sk"}


def test_update_and_delete_fiat_on_ramp_credential(client):
    made = result_of(
        client.submit(
            "create_fiat_on_ramp_credential",
            "ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL",
            {**FIAT, "sandboxMode": True},
        ),
        "createFiatOnRampCredentialResult",
    )
    cred_id = made["fiatOnRampCredentialId"]
    update = {
        **FIAT,
        "fiatOnrampCredentialId": cred_id,
        "onrampProvider": "FIAT_ON_RAMP_PROVIDER_MOONPAY",
        "projectId": "p1",
    }
    updated = client.submit("update_fiat_on_ramp_credential", "ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL", update)
    assert result_of(updated, "updateFiatOnRampCredentialResult") == {"fiatOnRampCredentialId": cred_id}
    [listed] = ok(client.query("list_fiat_on_ramp_credentials"))["fiatOnRampCredentials"]
    assert (listed["onrampProvider"], listed["projectId"], listed["sandboxMode"]) == (
        "FIAT_ON_RAMP_PROVIDER_MOONPAY",
        "p1",
        True,
    )
    deleted = client.submit(
        "delete_fiat_on_ramp_credential",
        "ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL",
        {"fiatOnrampCredentialId": cred_id},
    )
    assert result_of(deleted, "deleteFiatOnRampCredentialResult") == {"fiatOnRampCredentialId": cred_id}
    for op, kind in (("update", update), ("delete", {"fiatOnrampCredentialId": cred_id})):
        again = client.submit(
            f"{op}_fiat_on_ramp_credential", f"ACTIVITY_TYPE_{op.upper()}_FIAT_ON_RAMP_CREDENTIAL", kind
        )
        assert_error(again, 404, 5, f"fiat on-ramp credential {cred_id} not found")


# --- the official Python client (turnkey-http 0.2.0) ------------------------------------------------


def test_python_client_providers_and_credentials(turnkey_client):
    import turnkey_sdk_types as T

    made = turnkey_client.create_oauth_providers(
        T.CreateOauthProvidersBody(
            userId=ROOT,
            oauthProviders=[
                T.v1OauthProviderParamsV2(
                    providerName="p", oidcClaims=T.v1OidcClaims(iss="https://i", sub="s", aud="a")
                )
            ],
        )
    )
    provider_id = made.providerIds[0]
    listed = turnkey_client.get_oauth_providers(T.GetOauthProvidersBody(userId=ROOT))
    assert [p.providerId for p in listed.oauthProviders] == [provider_id]
    gone = turnkey_client.delete_oauth_providers(T.DeleteOauthProvidersBody(userId=ROOT, providerIds=[provider_id]))
    assert gone.providerIds == [provider_id]
    cred = turnkey_client.create_oauth2_credential(
        T.CreateOauth2CredentialBody(provider="OAUTH2_PROVIDER_DISCORD", clientId="d", encryptedClientSecret="s")
    ).oauth2CredentialId
    deleted = turnkey_client.delete_oauth2_credential(T.DeleteOauth2CredentialBody(oauth2CredentialId=cred))
    assert deleted.oauth2CredentialId == cred
    fiat = turnkey_client.create_fiat_on_ramp_credential(T.CreateFiatOnRampCredentialBody(**FIAT))
    fiat_id = fiat.fiatOnRampCredentialId
    updated = turnkey_client.update_fiat_on_ramp_credential(
        T.UpdateFiatOnRampCredentialBody(fiatOnrampCredentialId=fiat_id, **FIAT)
    )
    assert updated.fiatOnRampCredentialId == fiat_id
    removed = turnkey_client.delete_fiat_on_ramp_credential(
        T.DeleteFiatOnRampCredentialBody(fiatOnrampCredentialId=fiat_id)
    )
    assert removed.fiatOnRampCredentialId == fiat_id


def test_python_client_sessions_profiles_and_recovery(turnkey_client, simulator, client):
    import turnkey_sdk_types as T
    from support import ClientKey, open_bundle, verify_session

    target = ClientKey()
    rw = turnkey_client.create_read_write_session(T.CreateReadWriteSessionBody(targetPublicKey=target.uncompressed))
    assert len(open_bundle(rw.credentialBundle, target)) == 64 and rw.userId == ROOT
    ro = turnkey_client.create_read_only_session(T.CreateReadOnlySessionBody())
    assert verify_session(ro.session)["session_type"] == "SESSION_TYPE_READ_ONLY"
    made = turnkey_client.create_session_profile(T.CreateSessionProfileBody(sessionProfileName="p", scope="true"))
    got = turnkey_client.get_session_profiles(T.GetSessionProfilesBody())
    assert [p.sessionProfileId for p in got.sessionProfiles] == [made.sessionProfileId]
    org_id, user_id = sub_org(client)
    custom = {"appName": "Demo"}
    auth = turnkey_client.email_auth(
        T.EmailAuthBody(
            organizationId=org_id, email=EMAIL, targetPublicKey=target.uncompressed, emailCustomization=custom
        )
    )
    assert auth.userId == user_id
    recovery = turnkey_client.init_user_email_recovery(
        T.InitUserEmailRecoveryBody(
            organizationId=org_id, email=EMAIL, targetPublicKey=target.uncompressed, emailCustomization=custom
        )
    )
    assert recovery.userId == user_id
    assert [m["channel"] for m in simulator.simulator.outbox(EMAIL)] == ["EMAIL_AUTH", "EMAIL_RECOVERY"]


@pytest.mark.parametrize("filter_value", ["not json", json.dumps({"iss": "i", "sub": "s"})])
def test_oidc_claims_filter_values_are_checked(filter_value):
    from simulator.auth_proxy.forward import oidc_claims_filter
    from simulator.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="OIDC_CLAIMS"):
        oidc_claims_filter(filter_value)
