"""Users: created (with their credentials, or API-only), renamed, their contacts changed (with
verification tokens), deleted."""

from __future__ import annotations

import re

from simulator.activities.versions import adapted
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.handler_support.limits import check_limit
from simulator.model import verification_tokens
from simulator.model.email_address import checked_email
from simulator.model.tags import user_tags
from simulator.model.user_records import build_user, store_user
from simulator.state.records import User
from simulator.wire import Json

MAX_USERS = 100
E164 = re.compile(r"^\+[1-9][0-9]{1,14}$")
TOKEN_TYPES = {"email": "OTP_TYPE_EMAIL", "phone": "OTP_TYPE_SMS"}


@adapted
def create_users(ctx: Context, params: Json) -> Json:
    check_limit(len(ctx.org.users), len(params["users"]), MAX_USERS, "users")
    built = [build_user(ctx, p) for p in params["users"]]  # every check before anything is stored
    for user, keys, auths in built:
        store_user(ctx, user, keys, auths)
    return {"userIds": [user.user_id for user, _, _ in built]}


def create_api_only_users(ctx: Context, params: Json) -> Json:
    """Users with API keys only (P-256: the intent's keys carry no curve type)."""
    specs = params["apiOnlyUsers"]
    check_limit(len(ctx.org.users), len(specs), MAX_USERS, "users")
    built = [build_user(ctx, {**spec, "authenticators": []}) for spec in specs]
    for user, keys, auths in built:
        store_user(ctx, user, keys, auths)
    return {"userIds": [user.user_id for user, _, _ in built]}


def update_user(ctx: Context, params: Json) -> Json:
    """Every given field replaces the stored one; ``userTagIds`` replaces the whole tag list."""
    user = ctx.user(params["userId"])
    if "userTagIds" in params:
        user_tags(ctx, params["userTagIds"])
    if "userName" in params:
        user.name = checked_name(params["userName"])
    if "userEmail" in params:
        set_email(user, checked_contact(ctx, "email", params["userEmail"]), verified=False)
    if "userPhoneNumber" in params:
        set_phone(user, checked_contact(ctx, "phone", params["userPhoneNumber"]), verified=False)
    if "userTagIds" in params:
        user.tag_ids = list(dict.fromkeys(params["userTagIds"]))
    user.updated_ms = ctx.now_ms
    return {"userId": user.user_id}


def update_user_name(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    user.name = checked_name(params["userName"])
    user.updated_ms = ctx.now_ms
    return {"userId": user.user_id}


def update_user_email(ctx: Context, params: Json) -> Json:
    """An empty address removes the email; a verification token for the new address marks it verified."""
    user = ctx.user(params["userId"])
    email = checked_contact(ctx, "email", params["userEmail"])
    verified = spend_token(ctx, params.get("verificationToken"), "email", email)
    set_email(user, email, verified)
    user.updated_ms = ctx.now_ms
    return {"userId": user.user_id}


def update_user_phone_number(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    phone = checked_contact(ctx, "phone", params["userPhoneNumber"])
    verified = spend_token(ctx, params.get("verificationToken"), "phone", phone)
    set_phone(user, phone, verified)
    user.updated_ms = ctx.now_ms
    return {"userId": user.user_id}


def checked_name(name: str) -> str:
    if not name.strip():
        raise InvalidArgument("userName must not be empty")
    return name


def checked_contact(ctx: Context, kind: str, value: str) -> str | None:
    """None for "" (the service's way to remove a contact), else the value if well-formed."""
    if value == "":
        return None
    if kind == "email":
        return checked_email(value, strict=ctx.store.strict_email)
    if kind == "phone" and not E164.match(value):
        raise InvalidArgument(f"invalid phone number {value!r}: expected E.164, such as +14155550100")
    return value


def spend_token(ctx: Context, token: str | None, kind: str, contact: str | None) -> bool:
    """Whether a verification token proves ``contact``; a token that does not is refused, not ignored."""
    if not token:
        return False
    if contact is None:
        raise InvalidArgument(f"a verification token cannot verify the removal of a {kind} contact")
    claims = verification_tokens.verification_claims(ctx, token)
    if claims.get("verification_type") != TOKEN_TYPES[kind]:
        raise InvalidArgument(
            f"invalid verification token: it verifies a {claims.get('verification_type')} contact, "
            f"not {TOKEN_TYPES[kind]}"
        )
    if str(claims.get("contact", "")).lower() != contact.lower():
        raise InvalidArgument(f"invalid verification token: it was issued for another {kind} contact")
    ctx.store.used_tokens.add(claims["id"])
    return True


def set_email(user: User, email: str | None, verified: bool) -> None:
    if email != user.email or verified:
        user.email_verified = verified and email is not None
    user.email = email


def set_phone(user: User, phone: str | None, verified: bool) -> None:
    if phone != user.phone_number or verified:
        user.phone_verified = verified and phone is not None
    user.phone_number = phone


def delete_users(ctx: Context, params: Json) -> Json:
    """Their API keys, passkeys and MFA policies go with them; their votes stop counting."""
    ids = list(dict.fromkeys(params["userIds"]))
    found = ctx.users(ids)
    in_quorum = [u.user_id for u in found if u.user_id in ctx.org.root_user_ids]
    if in_quorum:
        raise InvalidArgument(
            f"quorum users missing: {', '.join(in_quorum)} belong to the root quorum; "
            "update the root quorum before deleting them"
        )
    for user in found:
        for key in user.api_keys.values():
            ctx.org.ip_allowlists.pop(key.public_key, None)
        ctx.store.remove_user_credentials(user)
        del ctx.org.users[user.user_id]
    return {"userIds": ids}
