"""User tags (created, renamed, attached, detached, deleted)."""

from __future__ import annotations

from simulator.handler_support.context import Context
from simulator.model import tags
from simulator.model.tags import new_tag, user_tags
from simulator.wire import Json


def create_user_tag(ctx: Context, params: Json) -> Json:
    users = ctx.users(params["userIds"])
    tag = new_tag(ctx, params["userTagName"], "TAG_TYPE_USER")
    for user in users:
        if tag.tag_id not in user.tag_ids:
            user.tag_ids.append(tag.tag_id)
    return {"userTagId": tag.tag_id, "userIds": [u.user_id for u in users]}


def update_user_tag(ctx: Context, params: Json) -> Json:
    tag = user_tags(ctx, [params["userTagId"]])[0]
    adding = ctx.users(params["addUserIds"])
    removing = ctx.users(params["removeUserIds"])
    tags.retag(ctx, tag, params.get("newUserTagName"), adding, removing)
    return {"userTagId": tag.tag_id}


def delete_user_tags(ctx: Context, params: Json) -> Json:
    ids = list(dict.fromkeys(params["userTagIds"]))
    user_tags(ctx, ids)
    detached = tags.delete_tags(ctx, ids, ctx.org.users.values(), lambda user: user.user_id)
    return {"userTagIds": ids, "userIds": detached}
