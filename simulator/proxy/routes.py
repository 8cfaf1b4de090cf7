"""The auth proxy's HTTP surface: /v1/... with X-Auth-Proxy-Config-Id, origin checks and CORS."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from simulator.errors import ApiError, InvalidArgument, MethodNotAllowed, NotFound, PermissionDenied
from simulator.proxy import config as proxy_config
from simulator.proxy import forward

if TYPE_CHECKING:
    from simulator.core import Simulator

Json = dict[str, Any]
Endpoint = Callable[["Simulator", Json, Json], Json]


def otp_init(sim: Simulator, config: Json, body: Json) -> Json:
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
    return {"otpId": forward.submit(sim, config, "init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", params)["otpId"]}


def otp_verify(sim: Simulator, config: Json, body: Json) -> Json:
    params = {"otpId": body["otpId"], "otpCode": body["otpCode"]}
    if body.get("publicKey") or body.get("public_key"):
        params["publicKey"] = body.get("publicKey") or body.get("public_key")
    return forward.submit(sim, config, "verify_otp", "ACTIVITY_TYPE_VERIFY_OTP", params)


def otp_login(sim: Simulator, config: Json, body: Json) -> Json:
    org_id = body.get("organizationId") or forward.org_for_token(sim, config, body["verificationToken"])
    params: Json = {
        k: body[k] for k in ("verificationToken", "publicKey", "invalidateExisting", "clientSignature") if k in body
    }
    params["expirationSeconds"] = config["sessionExpirationSeconds"]
    return forward.submit(sim, config, "otp_login", "ACTIVITY_TYPE_OTP_LOGIN", params, org_id)


def oauth2_authenticate(sim: Simulator, config: Json, body: Json) -> Json:
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


def oauth_login(sim: Simulator, config: Json, body: Json) -> Json:
    org_id = body.get("organizationId") or forward.find_account(sim, config, "OIDC_TOKEN", body["oidcToken"])
    if org_id is None:
        raise InvalidArgument("no sub-organization has a user with this OIDC token's issuer, subject and audience")
    params: Json = {k: body[k] for k in ("oidcToken", "publicKey", "invalidateExisting") if k in body}
    params["expirationSeconds"] = config["sessionExpirationSeconds"]
    return forward.submit(sim, config, "oauth_login", "ACTIVITY_TYPE_OAUTH_LOGIN", params, org_id)


def signup(sim: Simulator, config: Json, body: Json) -> Json:
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
    result = forward.submit(sim, config, "create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", params)
    out = {"organizationId": result["subOrganizationId"], "userId": result["rootUserIds"][0]}
    if "wallet" in result:
        out["wallet"] = result["wallet"]
    return out


def account(sim: Simulator, config: Json, body: Json) -> Json:
    found = forward.find_account(sim, config, body["filterType"], body["filterValue"])
    return {"organizationId": found} if found else {}


def wallet_kit_config(sim: Simulator, config: Json, body: Json) -> Json:
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


ENDPOINTS: dict[str, Endpoint] = {
    "otp_init": otp_init,
    "otp_verify": otp_verify,
    "otp_login": otp_login,
    "oauth2_authenticate": oauth2_authenticate,
    "oauth_login": oauth_login,
    "signup": signup,
    "account": account,
    "wallet_kit_config": wallet_kit_config,
}


def create_proxy_app(sim: Simulator) -> Flask:
    """The proxy's own application (served on --proxy-port) around the same Simulator."""
    app = Flask("simulator-proxy")
    app.extensions["simulator"] = sim
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.add_url_rule("/v1/<op>", "call", call, methods=["POST"], provide_automatic_options=False)
    app.add_url_rule("/v1/<op>", "preflight", preflight, methods=["OPTIONS"])
    app.register_error_handler(ApiError, render_error)
    app.register_error_handler(HTTPException, render_http_error)
    return app


def render_error(error: ApiError) -> Any:
    allowed = not isinstance(error, PermissionDenied) or "origin" not in error.message
    return cors(jsonify(error.to_body()), allowed), error.status


def render_http_error(error: HTTPException) -> Any:
    if error.code == 405:
        return render_error(MethodNotAllowed(f"method {request.method} is not allowed on {request.path}; use POST"))
    return render_error(NotFound(f"unknown auth proxy path {request.path}; endpoints are POST /v1/<name>"))


def call(op: str) -> Any:
    sim: Simulator = current_app.extensions["simulator"]
    endpoint = ENDPOINTS.get(op)
    if endpoint is None:
        raise NotFound(f"unknown auth proxy endpoint /v1/{op}; known: {', '.join('/v1/' + e for e in ENDPOINTS)}")
    with sim.lock:
        config = proxy_config.active(sim.store, request.headers.get("X-Auth-Proxy-Config-Id"))
    if not proxy_config.origin_allowed(config, request.headers.get("Origin")):
        raise PermissionDenied(
            f"origin {request.headers.get('Origin')} is not allowed by auth proxy configuration {config['configId']}",
            error_code="FORBIDDEN",
        )
    body = request.get_json(silent=True) or {}
    if not isinstance(body, dict):
        raise InvalidArgument("bad request body: expected a JSON object")
    try:
        return cors(jsonify(endpoint(sim, config, body)))
    except KeyError as missing:
        raise InvalidArgument(f"bad request body: {missing.args[0]} is required for /v1/{op}") from None


def preflight(op: str) -> Any:
    """Browsers send no custom headers in a preflight: allow an origin some enabled configuration allows."""
    sim: Simulator = current_app.extensions["simulator"]
    origin = request.headers.get("Origin")
    with sim.lock:
        configs = [c for c in sim.store.proxy_configs.values() if c.get("enabled", True)]
    allowed = any(proxy_config.origin_allowed(c, origin) for c in configs)
    return cors(Response(status=204 if allowed else 403), allowed)


def cors(response: Response, allowed: bool = True) -> Response:
    """CORS headers for an allowed origin; none for a refused one, so the browser blocks it."""
    if not allowed:
        return response
    response.headers["Access-Control-Allow-Origin"] = request.headers.get("Origin", "*")
    response.headers["Access-Control-Allow-Headers"] = "Content-Type, X-Auth-Proxy-Config-Id, X-Captcha-Token"
    response.headers["Access-Control-Allow-Methods"] = "POST, OPTIONS"
    response.headers["Vary"] = "Origin"
    return response
