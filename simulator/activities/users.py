"""Users, user tags and invitations (created, changed, deleted)."""

from __future__ import annotations

import json

from simulator.activities import credentials, tags
from simulator.errors import InvalidArgument, ResourceExhausted
from simulator.handling.context import Context, require_unique
from simulator.state.records import ApiKey, Authenticator, Record, Tag, User, timestamp
from simulator.wire import Json, b64url_decode

MAX_USERS = 100
MAX_INVITATIONS = 100


def check_limit(have: int, adding: int, limit: int, what: str) -> None:
    if have + adding > limit:
        raise ResourceExhausted(f"organization has reached its limit of {limit} {what}")


def create_users(ctx: Context, params: Json) -> Json:
    check_limit(len(ctx.org.users), len(params["users"]), MAX_USERS, "users")
    built = [build_user(ctx, p) for p in params["users"]]  # every check before anything is stored
    for user, keys, auths in built:
        store_user(ctx, user, keys, auths)
    return {"userIds": [user.user_id for user, _, _ in built]}


Built = tuple[User, list[ApiKey], list[Authenticator]]


def build_user(ctx: Context, params: Json) -> Built:
    """A user with its credentials and tags, checked but not yet stored."""
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
    keys = [credentials.new_api_key(ctx, p) for p in params.get("apiKeys", [])]
    auths = [credentials.new_authenticator(ctx, p) for p in params.get("authenticators", [])]
    credentials.check_api_keys(user, keys)
    credentials.check_authenticators(user, auths)
    return user, keys, auths


def store_user(ctx: Context, user: User, keys: list[ApiKey], auths: list[Authenticator]) -> None:
    ctx.org.users[user.user_id] = user
    for key in keys:
        ctx.store.add_api_key(ctx.org, user, key)
    for auth in auths:
        ctx.store.add_authenticator(ctx.org, user, auth)


def oauth_provider(ctx: Context, params: Json) -> Json:
    claims = params.get("oidcClaims") or token_claims(params.get("oidcToken", ""))
    missing = [c for c in ("iss", "sub", "aud") if not claims.get(c)]
    if missing:
        raise InvalidArgument(
            f"invalid OIDC token: the token must carry aud, sub and iss (missing {', '.join(missing)})",
            error_code="INVALID_OIDC_TOKEN",
        )
    aud = claims["aud"][0] if isinstance(claims["aud"], list) else claims["aud"]
    return {
        "providerId": ctx.new_id(),
        "providerName": params["providerName"],
        "issuer": claims["iss"],
        "audience": aud,
        "subject": claims["sub"],
        "createdAt": timestamp(ctx.now_ms),
        "updatedAt": timestamp(ctx.now_ms),
    }


def token_claims(token: str) -> Json:
    """The payload of a JWT, unverified (registration is not nonce- or signature-bound here)."""
    try:
        claims = json.loads(b64url_decode(token.split(".")[1]))
        return claims if isinstance(claims, dict) else {}
    except (ValueError, IndexError):
        return {}


def user_tags(ctx: Context, tag_ids: list[str]) -> list[Tag]:
    return ctx.tags(tag_ids, "TAG_TYPE_USER", "user tags")


def create_user_tag(ctx: Context, params: Json) -> Json:
    users = ctx.users(params["userIds"])
    tag = new_tag(ctx, params["userTagName"], "TAG_TYPE_USER")
    for user in users:
        if tag.tag_id not in user.tag_ids:
            user.tag_ids.append(tag.tag_id)
    return {"userTagId": tag.tag_id, "userIds": [u.user_id for u in users]}


def new_tag(ctx: Context, name: str, tag_type: str) -> Tag:
    tags.check_room(ctx)
    require_unique([t.name for t in ctx.org.tags.values() if t.tag_type == tag_type], [name], "tag name")
    tag = Tag(ctx.new_id(), name, tag_type, ctx.now_ms)
    ctx.org.tags[tag.tag_id] = tag
    return tag


def update_user_tag(ctx: Context, params: Json) -> Json:
    tag = user_tags(ctx, [params["userTagId"]])[0]
    adding = ctx.users(params["addUserIds"])
    removing = ctx.users(params["removeUserIds"])
    tags.retag(ctx, tag, params.get("newUserTagName"), adding, removing)
    return {"userTagId": tag.tag_id}


def create_invitations(ctx: Context, params: Json) -> Json:
    invitations = params["invitations"]
    check_limit(len(ctx.org.invitations), len(invitations), MAX_INVITATIONS, "invitations")
    for inv in invitations:
        ctx.user(inv["senderUserId"])
        user_tags(ctx, inv["receiverUserTags"])
    ids = []
    for inv in invitations:
        inv_id = ctx.new_id()
        fields = {"invitationId": inv_id, **inv, "status": "INVITATION_STATUS_CREATED"}
        ctx.org.invitations[inv_id] = Record(inv_id, fields, ctx.now_ms)
        ids.append(inv_id)
    return {"invitationIds": ids}


def delete_user_tags(ctx: Context, params: Json) -> Json:
    ids = list(dict.fromkeys(params["userTagIds"]))
    user_tags(ctx, ids)
    detached = tags.delete_tags(ctx, ids, ctx.org.users.values(), lambda user: user.user_id)
    return {"userTagIds": ids, "userIds": detached}


def delete_invitation(ctx: Context, params: Json) -> Json:
    invitation_id = params["invitationId"]
    ctx.existing(ctx.org.invitations, [invitation_id], "invitation")
    del ctx.org.invitations[invitation_id]
    return {"invitationId": invitation_id}
