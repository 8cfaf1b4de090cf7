"""The auth proxy end to end: OTP sign-up and login, OAuth, account lookup, origins and CORS."""

from __future__ import annotations

import json

import pytest
from conftest import DEFAULTS, ok
from support import ClientKey, assert_error, client_signature, verify_session

from simulator.standins import oauth_provider
from simulator.testing import ApiKeyStamper, SimulatorClient

CONFIG_ID = "proxy-config-1"
pytestmark = pytest.mark.simulator_scenario("../scenarios/auth_proxy.yaml")  # proxy-config-1 and an X credential


@pytest.fixture
def proxy(simulator):
    return SimulatorClient(simulator.proxy_url, None, "")


def call(proxy, op: str, body: dict, origin: str | None = "http://localhost:3000", config_id: str | None = CONFIG_ID):
    headers = {"X-Auth-Proxy-Config-Id": config_id} if config_id else {}
    if origin:
        headers["Origin"] = origin
    return proxy.post(f"/v1/{op}", json.dumps(body).encode(), headers)


def login_message(token: str, key: ClientKey) -> dict:
    return client_signature(token, key, {"login": {"publicKey": key.public}}, "USAGE_TYPE_LOGIN")


def test_otp_sign_up_then_login_as_core_1x_does(proxy, simulator):
    """otp_init → code from the outbox → otp_verify → account ({}) → signup → otp_login → whoami."""
    email = "new@example.com"
    otp_id = ok(call(proxy, "otp_init", {"otpType": "OTP_TYPE_EMAIL", "contact": email}))["otpId"]
    code = simulator.simulator.store.outbox[-1]["code"]
    key = ClientKey()
    token = ok(call(proxy, "otp_verify", {"otpId": otp_id, "otpCode": code, "publicKey": key.public}))[
        "verificationToken"
    ]
    assert ok(call(proxy, "account", {"filterType": "EMAIL", "filterValue": email, "verificationToken": token})) == {}
    signup = client_signature(token, key, {"signup": {"email": email}}, "USAGE_TYPE_SIGNUP")
    signed_up = ok(
        call(
            proxy,
            "signup",
            {
                "userName": email,
                "userEmail": email,
                "organizationName": "sub-org-1",
                "verificationToken": token,
                "apiKeys": [],
                "authenticators": [],
                "oauthProviders": [],
                "clientSignature": signup,
            },
        )
    )
    found = ok(call(proxy, "account", {"filterType": "EMAIL", "filterValue": email}))
    assert found == {"organizationId": signed_up["organizationId"]}
    session = ok(
        call(
            proxy,
            "otp_login",
            {
                "verificationToken": token,
                "publicKey": key.public,
                "invalidateExisting": False,
                "clientSignature": login_message(token, key),
            },
        )
    )
    claims = verify_session(session["session"])
    assert (claims["organization_id"], claims["user_id"]) == (signed_up["organizationId"], signed_up["userId"])
    as_user = SimulatorClient(simulator.url, ApiKeyStamper(key.private), claims["organization_id"])
    assert ok(as_user.query("whoami"))["username"] == email
    activities = simulator.simulator.store.org(DEFAULTS["organizationId"]).activities.values()
    assert {a.activity_type for a in activities} >= {
        "ACTIVITY_TYPE_INIT_OTP_V2",
        "ACTIVITY_TYPE_VERIFY_OTP",
        "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
    }


def test_oauth_through_the_proxy(proxy, simulator):
    code = oauth_provider.authorize(
        simulator.simulator, "77", code_challenge=oauth_provider.s256("v"), redirect_uri="http://localhost:3000/cb"
    )
    token = ok(
        call(
            proxy,
            "oauth2_authenticate",
            {
                "provider": "OAUTH2_PROVIDER_X",
                "authCode": code,
                "clientId": "x-client",
                "redirectUri": "http://localhost:3000/cb",
                "codeVerifier": "v",
                "nonce": "n",
            },
        )
    )["oidcToken"]
    assert ok(call(proxy, "account", {"filterType": "OIDC_TOKEN", "filterValue": token})) == {}
    made = ok(
        call(
            proxy,
            "signup",
            {
                "userName": "x user",
                "apiKeys": [],
                "authenticators": [],
                "oauthProviders": [{"providerName": "X", "oidcToken": token}],
            },
        )
    )
    key = ClientKey()
    session = ok(call(proxy, "oauth_login", {"oidcToken": token, "publicKey": key.public, "invalidateExisting": False}))
    assert verify_session(session["session"])["organization_id"] == made["organizationId"]


def test_wallet_kit_config(proxy):
    config = ok(call(proxy, "wallet_kit_config", {}))
    assert config["organizationId"] == DEFAULTS["organizationId"] and config["sessionExpirationSeconds"] == "900"
    assert "email" in config["enabledProviders"] and config["otpLength"] == "6"
    assert config["oauthClientIds"] == {"google": "google-client"}


@pytest.mark.parametrize(
    "origin, config_id, status, phrase",
    [
        ("http://evil.example", CONFIG_ID, 403, "origin http://evil.example is not allowed"),
        ("http://localhost:3000", "nope", 404, "auth proxy configuration nope not found"),
        ("http://localhost:3000", None, 404, "X-Auth-Proxy-Config-Id header is required"),
    ],
)
def test_refusals_in_the_error_shape(proxy, origin, config_id, status, phrase):
    response = call(proxy, "wallet_kit_config", {}, origin=origin, config_id=config_id)
    assert_error(response, status, {403: 7, 404: 5}[status], phrase)
    if status == 403:
        assert "access-control-allow-origin" not in response.headers


def test_cors_preflight(proxy):
    allowed = proxy.post(
        "/v1/otp_init",
        b"",
        {"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"},
        method="OPTIONS",
    )
    assert allowed.status == 204 and allowed.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert "X-Auth-Proxy-Config-Id" in allowed.headers["access-control-allow-headers"]
    refused = proxy.post("/v1/otp_init", b"", {"Origin": "http://evil.example"}, method="OPTIONS")
    assert refused.status == 403 and "access-control-allow-origin" not in refused.headers


def test_the_proxy_key_reaches_nothing_but_authentication(simulator):
    config = simulator.simulator.store.proxy_configs[CONFIG_ID]
    from simulator.auth_proxy_config.config import proxy_key
    from simulator.crypto.keys import private_hex

    as_proxy = SimulatorClient(simulator.url, ApiKeyStamper(private_hex(proxy_key(config))), DEFAULTS["organizationId"])
    response = as_proxy.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []})
    assert_error(response, 403, 7)
    assert "encryptedProxyKey" in config and private_hex(proxy_key(config)) not in json.dumps(config)


def test_outbox_provider_and_proxy_from_the_control_api(simulator, tmp_path):
    control = SimulatorClient(simulator.url, None, "")
    made = control.post(
        "/_simulator/auth-proxy",
        json.dumps({"organizationId": DEFAULTS["organizationId"], "configId": "second", "otpLength": "8"}).encode(),
    ).body
    assert made["configId"] == "second" and "encryptedProxyKey" not in made
    proxy = SimulatorClient(simulator.proxy_url, None, "")
    call(proxy, "otp_init", {"otpType": "OTP_TYPE_SMS", "contact": "+15555550100"}, config_id="second", origin=None)
    messages = control.post("/_simulator/outbox?contact=%2B15555550100", b"", method="GET").body["messages"]
    assert [(m["channel"], len(m["code"])) for m in messages] == [("OTP_TYPE_SMS", 8)]
    assert simulator.simulator.otp_code("+15555550100") == messages[0]["code"]
    assert simulator.simulator.wait_for_otp("+15555550100", timeout=1) == messages[0]["code"]
    with pytest.raises(TimeoutError):
        simulator.simulator.wait_for_otp("+15555550100", timeout=0.05, after=1)
    code = control.post("/_simulator/oauth/authorize", b'{"subject": "s1"}').body["code"]
    assert code in simulator.simulator.store.oauth_codes
    token = control.post("/_simulator/oauth/id-token", b'{"subject": "s1", "audience": "a"}').body["idToken"]
    kids = [k["kid"] for k in control.post("/_simulator/oauth/jwks", b"", method="GET").body["keys"]]
    assert token.count(".") == 2 and kids == ["oauth-provider", "turnkey-oauth-issuer"]
    published = control.post("/_simulator/keys", b"", method="GET").body
    assert published["notarizer"].startswith("04")
    disabled = simulator.simulator.configure_auth_proxy(DEFAULTS["organizationId"], configId="second", enabled=False)
    assert disabled["enabled"] is False
    assert_error(call(proxy, "wallet_kit_config", {}, config_id="second", origin=None), 403, 7, "is disabled")


def test_outbox_command(simulator, capsys):
    from simulator.cli import main

    simulator.simulator.store.outbox.append(
        {"contact": "c@example.com", "channel": "OTP_TYPE_EMAIL", "code": "123456", "otpId": "o1"}
    )
    assert main(["outbox", "--url", simulator.url, "--contact", "c@example.com"]) == 0
    assert capsys.readouterr().out.split() == ["c@example.com", "OTP_TYPE_EMAIL", "123456", "o1"]
