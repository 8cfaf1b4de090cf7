"""What each auth-proxy endpoint (``/v1/<name>``) does: map the call onto the public activities.

Each function takes the host, the active proxy configuration and the validated body; the
operation catalogue names it (``proxy("otp_init", "endpoints:otp_init")``). The activities run
through the public interface's pipeline, stamped with the proxy's key (``forward.submit``).
"""

from __future__ import annotations

from simulator.auth_proxy import account_lookup, forward
from simulator.errors import InvalidArgument, NotFound
from simulator.pipeline import Services
from simulator.wire import Json


def otp_params(config: Json, body: Json) -> Json:
    """init_otp's parameters for /v1/otp_init and /v1/otp_init_v2: the contact from the body, the rest
    from the proxy configuration."""
    params = {
        "otpType": body["otpType"],
        "contact": body["contact"],
        "appName": config["appName"],
        "otpLength": int(config["otpLength"]),
        "alphanumeric": bool(config["otpAlphanumeric"]),
    }
    customization = body.get("emailCustomization") or config.get("emailCustomization")
    if customization:
        params["emailCustomization"] = customization
    if body.get("userIdentifier"):  # the per-identifier OTP limit counts by it, as for init_otp itself
        params["userIdentifier"] = body["userIdentifier"]
    return params


def otp_init(sim: Services, config: Json, body: Json) -> Json:
    params = otp_params(config, body)
    return {"otpId": forward.submit(sim, config, "init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", params)["otpId"]}


def otp_verify(sim: Services, config: Json, body: Json) -> Json:
    params = {"otpId": body["otpId"], "otpCode": body["otpCode"]}
    if body.get("publicKey") or body.get("public_key"):
        params["publicKey"] = body.get("publicKey") or body.get("public_key")
    return forward.submit(sim, config, "verify_otp", "ACTIVITY_TYPE_VERIFY_OTP", params)


def otp_login(sim: Services, config: Json, body: Json) -> Json:
    return login_with_token(sim, config, body, "ACTIVITY_TYPE_OTP_LOGIN")


def login_with_token(sim: Services, config: Json, body: Json, activity_type: str) -> Json:
    """otp_login V1 and V2: the verification token's sub-organization, the configuration's expiry."""
    org_id = body.get("organizationId") or forward.org_for_token(sim, config, body["verificationToken"])
    params: Json = {
        k: body[k] for k in ("verificationToken", "publicKey", "invalidateExisting", "clientSignature") if k in body
    }
    params["expirationSeconds"] = config["sessionExpirationSeconds"]
    return forward.submit(sim, config, "otp_login", activity_type, params, org_id)


def oauth2_authenticate(sim: Services, config: Json, body: Json) -> Json:
    org = sim.store.org(config["organizationId"])
    found = [
        c
        for c in org.oauth2_credentials.values()
        if c.fields["provider"] == body["provider"] and c.fields["clientId"] == body["clientId"]
    ]
    if not found:
        raise NotFound(
            f"no OAuth 2.0 credential for {body['provider']} with client id {body['clientId']} in "
            f"organization {org.organization_id}",
            error_code="OAUTH2_CREDENTIAL_NOT_FOUND",
        )
    params: Json = {
        "oauth2CredentialId": found[0].record_id,
        **{k: body[k] for k in ("authCode", "redirectUri", "codeVerifier", "nonce") if k in body},
    }
    return forward.submit(sim, config, "oauth2_authenticate", "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", params)


def oauth_login(sim: Services, config: Json, body: Json) -> Json:
    org_id = body.get("organizationId") or forward.find_account(sim, config, "OIDC_TOKEN", body["oidcToken"])
    if org_id is None:
        raise InvalidArgument("no sub-organization has a user with this OIDC token's issuer, subject and audience")
    params: Json = {k: body[k] for k in ("oidcToken", "publicKey", "invalidateExisting") if k in body}
    params["expirationSeconds"] = config["sessionExpirationSeconds"]
    return forward.submit(sim, config, "oauth_login", "ACTIVITY_TYPE_OAUTH_LOGIN", params, org_id)


def signup(sim: Services, config: Json, body: Json) -> Json:
    return sign_up(sim, config, body, "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7")


def signup_v2(sim: Services, config: Json, body: Json) -> Json:
    """core 2.x: OAuth providers may come as ``oidcClaims``, and the client signature's message says ``signupV2``."""
    return sign_up(sim, config, body, "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8")


def sign_up(sim: Services, config: Json, body: Json, activity_type: str) -> Json:
    user = {
        "userName": body.get("userName") or body.get("userEmail") or "user",
        "apiKeys": body.get("apiKeys", []),
        "authenticators": body.get("authenticators", []),
        "oauthProviders": body.get("oauthProviders", []),
    }
    user.update({k: body[k] for k in ("userEmail", "userPhoneNumber") if body.get(k)})
    params: Json = {
        "subOrganizationName": body.get("organizationName") or f"sub-org-{sim.clock.now_ms()}",
        "rootUsers": [user],
        "rootQuorumThreshold": 1,
    }
    params.update({k: body[k] for k in ("wallet", "verificationToken", "clientSignature") if body.get(k)})
    result = forward.submit(sim, config, "create_sub_organization", activity_type, params)
    # a verification token's contact is marked verified by create_sub_organization itself (auth-proxy.mdx, "Signup")
    out = {"organizationId": result["subOrganizationId"], "userId": result["rootUserIds"][0]}
    if "wallet" in result:
        out["wallet"] = result["wallet"]
    return out


def account(sim: Services, config: Json, body: Json) -> Json:
    account_lookup.check_access(sim, config, body)
    found = forward.find_account(sim, config, body["filterType"], body["filterValue"])
    return {"organizationId": found} if found else {}


def otp_init_v2(sim: Services, config: Json, body: Json) -> Json:
    """core 2.x: the code is sent as for /v1/otp_init, and the answer adds the encryption target
    (signed by the simulator's enclave key; core 2.x needs the JS helper's trust hook, wallet-simulator-testing/register, to accept it)."""
    params = otp_params(config, body)
    started = forward.submit(sim, config, "init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", params)
    return {"otpId": started["otpId"], "otpEncryptionTargetBundle": started["otpEncryptionTargetBundle"]}


def otp_verify_v2(sim: Services, config: Json, body: Json) -> Json:
    params = {"otpId": body["otpId"], "encryptedOtpBundle": body["encryptedOtpBundle"]}
    return forward.submit(sim, config, "verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2", params)


def otp_login_v2(sim: Services, config: Json, body: Json) -> Json:
    """core 2.1-2.5: like /v1/otp_login, with the client signature required."""
    return login_with_token(sim, config, body, "ACTIVITY_TYPE_OTP_LOGIN_V2")


def wallet_kit_client_params(sim: Services, config: Json, body: Json) -> Json:
    """What react-wallet-kit needs before rendering: the Turnstile site key when captcha is on."""
    site_key = config.get("turnstileSiteKey")
    return {"turnstileSiteKey": site_key} if site_key else {}


def wallet_kit_config(sim: Services, config: Json, body: Json) -> Json:
    keys = (
        "enabledProviders",
        "sessionExpirationSeconds",
        "organizationId",
        "oauthClientIds",
        "oauthRedirectUrl",
        "otpAlphanumeric",
        "otpLength",
    )
    return {k: config[k] for k in keys if config.get(k) not in (None, "", {})}
