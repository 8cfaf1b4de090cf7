"""Reads of credentials: API keys, authenticators, OAuth 2.0 and fiat on-ramp credentials."""

from __future__ import annotations

from simulator.errors import NotFound
from simulator.handler_support.query_context import QueryContext
from simulator.wire import Json


def get_api_keys(q: QueryContext, body: Json) -> Json:
    user_id = body.get("userId")
    users = [q.find(q.org.users, user_id, "user")] if user_id else list(q.org.users.values())
    return {"apiKeys": [k.to_api() for u in users for k in u.api_keys.values()]}


def get_api_key(q: QueryContext, body: Json) -> Json:
    for user in q.org.users.values():
        if body["apiKeyId"] in user.api_keys:
            return {"apiKey": user.api_keys[body["apiKeyId"]].to_api()}
    raise NotFound(
        f"api key {body['apiKeyId']} not found in organization {q.org.organization_id}",
        error_code="CREDENTIAL_NOT_FOUND",
    )


def get_authenticators(q: QueryContext, body: Json) -> Json:
    user = q.find(q.org.users, body["userId"], "user")
    return {"authenticators": [a.to_api() for a in user.authenticators.values()]}


def get_authenticator(q: QueryContext, body: Json) -> Json:
    for user in q.org.users.values():
        if body["authenticatorId"] in user.authenticators:
            return {"authenticator": user.authenticators[body["authenticatorId"]].to_api()}
    raise NotFound(
        f"authenticator {body['authenticatorId']} not found in organization {q.org.organization_id}",
        error_code="CREDENTIAL_NOT_FOUND",
    )


def list_fiat_on_ramp_credentials(q: QueryContext, body: Json) -> Json:
    return {"fiatOnRampCredentials": [c.to_api() for c in q.org.fiat_credentials.values()]}


def get_oauth2_credential(q: QueryContext, body: Json) -> Json:
    cred = q.find(q.org.oauth2_credentials, body["oauth2CredentialId"], "oauth2 credential")
    return {"oauth2Credential": cred.to_api()}


def list_oauth2_credentials(q: QueryContext, body: Json) -> Json:
    return {"oauth2Credentials": [c.to_api() for c in q.org.oauth2_credentials.values()]}
