"""API keys, authenticators (created, deleted), OAuth 2.0 and fiat on-ramp credentials."""

from __future__ import annotations

from simulator.activities.versions import adapted
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.model import credential_records
from simulator.model.credential_records import (
    add_api_keys,
    add_authenticators,
    new_api_key,
    new_authenticator,
    oauth2_credential,
    oauth2_fields,
)
from simulator.state.records import Record
from simulator.wire import Json


def create_api_keys(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    keys = [new_api_key(ctx, p) for p in params["apiKeys"]]
    add_api_keys(ctx, user, keys)
    return {"apiKeyIds": [k.api_key_id for k in keys]}


def delete_api_keys(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    ids = params["apiKeyIds"]
    ctx.existing(user.api_keys, ids, "api keys", "CREDENTIAL_NOT_FOUND", f"user {user.user_id}")
    for key_id in ids:
        ctx.store.remove_api_key(ctx.org, user, key_id)
    return {"apiKeyIds": list(ids)}


def delete_authenticators(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    ids = params["authenticatorIds"]
    ctx.existing(user.authenticators, ids, "authenticators", "CREDENTIAL_NOT_FOUND", f"user {user.user_id}")
    for auth_id in ids:
        ctx.store.remove_authenticator(ctx.org, user, auth_id)
    return {"authenticatorIds": list(ids)}


def create_oauth2_credential(ctx: Context, params: Json) -> Json:
    return {"oauth2CredentialId": credential_records.new_oauth2_credential(ctx, params)}


def update_oauth2_credential(ctx: Context, params: Json) -> Json:
    cred_id = params["oauth2CredentialId"]
    record = oauth2_credential(ctx, cred_id)
    record.fields.update(oauth2_fields(params))
    record.updated_ms = ctx.now_ms
    return {"oauth2CredentialId": cred_id}


def create_fiat_on_ramp_credential(ctx: Context, params: Json) -> Json:
    return {"fiatOnRampCredentialId": credential_records.new_fiat_on_ramp_credential(ctx, params)}


def delete_oauth2_credential(ctx: Context, params: Json) -> Json:
    cred_id = params["oauth2CredentialId"]
    if not cred_id:
        raise InvalidArgument("oauth2_credential_id must be set")
    oauth2_credential(ctx, cred_id)
    del ctx.org.oauth2_credentials[cred_id]
    return {"oauth2CredentialId": cred_id}


def fiat_credential(ctx: Context, cred_id: str) -> Record:
    return ctx.org.find(ctx.org.fiat_credentials, cred_id, "fiat on-ramp credential")


def update_fiat_on_ramp_credential(ctx: Context, params: Json) -> Json:
    """Sets the provider, project and keys given; the intent spells ``Onramp``, the result ``OnRamp``."""
    cred_id = params["fiatOnrampCredentialId"]
    record = fiat_credential(ctx, cred_id)
    record.fields.update(params)
    record.updated_ms = ctx.now_ms
    return {"fiatOnRampCredentialId": cred_id}


def delete_fiat_on_ramp_credential(ctx: Context, params: Json) -> Json:
    cred_id = params["fiatOnrampCredentialId"]
    fiat_credential(ctx, cred_id)
    del ctx.org.fiat_credentials[cred_id]
    return {"fiatOnRampCredentialId": cred_id}


@adapted
def create_authenticators(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    made = []
    for spec in params["authenticators"]:
        made.append(new_authenticator(ctx, spec, challenge_must_match=True))
    taken = [a.credential_id for a in made if ctx.store.credential_refs(a.credential_id)]
    ids = [a.credential_id for a in made]
    if taken or len(set(ids)) != len(ids):
        raise InvalidArgument(
            f"authenticator with credential id {', '.join(taken) or 'repeated in the request'} already exists",
            error_code="CREDENTIAL_CONFLICT",
        )
    add_authenticators(ctx, user, made)
    return {"authenticatorIds": [a.authenticator_id for a in made]}
