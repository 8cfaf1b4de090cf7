"""A user as create_users, create_api_only_users and create_sub_organization make one: built from
its parameters with its credentials, tags and OAuth providers, every check made, then stored."""

from __future__ import annotations

from simulator.handler_support.context import Context
from simulator.model import credential_records
from simulator.model.email_address import checked_email
from simulator.model.oidc import oauth_provider
from simulator.model.tags import user_tags
from simulator.state.records import ApiKey, Authenticator, User
from simulator.wire import Json

Built = tuple[User, list[ApiKey], list[Authenticator]]


def build_user(ctx: Context, params: Json) -> Built:
    """A user with its credentials and tags, checked but not yet stored."""
    if params.get("userEmail"):
        checked_email(params["userEmail"], strict=ctx.store.strict_email)
    tag_ids = list(params.get("userTags", []))
    user_tags(ctx, tag_ids)
    user = User(
        user_id=ctx.new_id(),
        name=params["userName"],
        created_ms=ctx.now_ms,
        email=params.get("userEmail"),
        phone_number=params.get("userPhoneNumber"),
        tag_ids=tag_ids,
        oauth_providers=[oauth_provider(ctx, p) for p in params.get("oauthProviders", [])],
    )
    keys = [credential_records.new_api_key(ctx, p) for p in params.get("apiKeys", [])]
    auths = [credential_records.new_authenticator(ctx, p) for p in params.get("authenticators", [])]
    credential_records.check_api_keys(user, keys)
    credential_records.check_authenticators(user, auths)
    return user, keys, auths


def store_user(ctx: Context, user: User, keys: list[ApiKey], auths: list[Authenticator]) -> None:
    ctx.org.users[user.user_id] = user
    for key in keys:
        ctx.store.add_api_key(ctx.org, user, key)
    for auth in auths:
        ctx.store.add_authenticator(ctx.org, user, auth)
