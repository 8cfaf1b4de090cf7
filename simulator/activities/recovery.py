"""Email auth and email recovery: a credential bundle mailed to the user (to the outbox here).

email_auth (V1-V3) makes an expiring P-256 key for the user with that email and mails it sealed to
``targetPublicKey``; the service lets only a parent organization start it for a sub-organization.
init_user_email_recovery (V1/V2) mails a recovery key the same way; recover_user, stamped with
it by that user, registers a new passkey and spends the recovery key.
"""

from __future__ import annotations

from simulator.errors import InvalidArgument, PermissionDenied
from simulator.handler_support.context import Context
from simulator.model import credential_records, documented_rules, session_keys
from simulator.model.email_customization import check_magic_link_template, check_template_variables
from simulator.state.records import User, timestamp
from simulator.wire import Json

EMAIL_AUTH_TYPE = "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256"
RECOVERY_TYPE = "CREDENTIAL_TYPE_RECOVER_USER_KEY_P256"


def email_auth(ctx: Context, params: Json) -> Json:
    assert ctx.principal is not None
    if not ctx.store.is_below(ctx.org, ctx.principal.organization):
        raise PermissionDenied(
            "email_auth can only be initiated by a parent organization for a sub-organization: "
            f"stamp it with a credential of the parent of {ctx.org.organization_id} and name the sub-organization",
            error_code="REQUEST_NOT_AUTHORIZED",
        )
    documented_rules.require_feature(ctx, documented_rules.EMAIL_AUTH, "email_auth")
    check_customization(ctx, params)
    user = session_keys.user_by_email(ctx, params["email"])
    key, bundle = session_keys.sealed_key(ctx, user, params, EMAIL_AUTH_TYPE, "Email Auth")
    mail(ctx, user, "EMAIL_AUTH", bundle, params)
    return {"userId": user.user_id, "apiKeyId": key.api_key_id}


def init_user_email_recovery(ctx: Context, params: Json) -> Json:
    check_customization(ctx, params)
    user = session_keys.user_by_email(ctx, params["email"])
    key, bundle = session_keys.sealed_key(ctx, user, {**params, "invalidateExisting": True}, RECOVERY_TYPE, "Recovery")
    mail(ctx, user, "EMAIL_RECOVERY", bundle, params)
    return {"userId": user.user_id}


def check_customization(ctx: Context, params: Json) -> None:
    """V3 of email auth and V2 of recovery require an app name (the service's rule since 2025-12-16)."""
    latest = ctx.activity_type in ("ACTIVITY_TYPE_EMAIL_AUTH_V3", "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2")
    customization = params.get("emailCustomization") or {}
    if latest and not customization.get("appName"):
        raise InvalidArgument("emailCustomization.appName is required: the email names the application")
    check_magic_link_template(customization)
    check_template_variables(customization)


def mail(ctx: Context, user: User, channel: str, bundle: str, params: Json) -> None:
    """What the email would carry, in the outbox: the bundle (as ``code``) and the magic link."""
    customization = params.get("emailCustomization") or {}
    template = customization.get("magicLinkTemplate")
    ctx.store.outbox.append(
        {
            "otpId": "",
            "organizationId": ctx.org.organization_id,
            "channel": channel,
            "contact": user.email or params["email"],
            "code": bundle,
            "credentialBundle": bundle,
            "magicLink": template.replace("%s", bundle, 1) if template else "",
            "userId": user.user_id,
            "sentAt": timestamp(ctx.now_ms),
            "appName": customization.get("appName", ""),
            "customization": customization,
            "sender": {k: params[k] for k in ("sendFromEmailAddress", "sendFromEmailSenderName") if k in params},
        }
    )


def recover_user(ctx: Context, params: Json) -> Json:
    """A new passkey for the user, stamped by that user's recovery key, which is spent."""
    assert ctx.principal is not None
    user = ctx.user(params["userId"])
    key = user.api_keys.get(ctx.principal.credential_id or "")
    if ctx.principal.user is not user or key is None or key.credential_type != RECOVERY_TYPE:
        raise PermissionDenied(
            f"recover_user must be stamped with user {user.user_id}'s recovery credential "
            "(the key init_user_email_recovery mailed)",
            error_code="REQUEST_NOT_AUTHORIZED",
        )
    authenticator = credential_records.new_authenticator(ctx, params["authenticator"])
    credential_records.add_authenticators(ctx, user, [authenticator])
    ctx.store.remove_api_key(ctx.org, user, key.api_key_id)
    return {"authenticatorId": [authenticator.authenticator_id]}
