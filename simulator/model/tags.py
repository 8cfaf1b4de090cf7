"""What user tags and private-key tags share: the organization's allowance, creating, renaming,
attaching, detaching, deleting (and the user-tag lookup that users and invitations make too)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from simulator.errors import QUOTA, ResourceExhausted, documented
from simulator.handler_support.context import Context, require_unique
from simulator.state.records import Tag

Holder = TypeVar("Holder", bound=Any)  # a user or a private key: anything with ``tag_ids``

# "Tags: 100 in a parent organization, 10 in a sub-organization" (docs.turnkey.com/reference/resource-limits);
# user and private-key tags share the allowance
MAX_TAGS, MAX_SUB_ORGANIZATION_TAGS = 100, 10


def check_room(ctx: Context, adding: int = 1) -> None:
    """Refuse tags past the organization's documented allowance, as the other resource limits are refused."""
    sub = bool(ctx.org.parent_id)
    limit = MAX_SUB_ORGANIZATION_TAGS if sub else MAX_TAGS
    if len(ctx.org.tags) + adding > limit:
        where = "sub-organization" if sub else "organization"
        raise ResourceExhausted(documented(QUOTA, f"{where} has reached its limit of {limit} tags"))


def retag(ctx: Context, tag: Tag, new_name: str | None, adding: Iterable[Holder], removing: Iterable[Holder]) -> None:
    """Rename ``tag`` (unique among tags of its type), attach it to ``adding``, detach it from ``removing``."""
    if new_name and new_name != tag.name:
        others = [t.name for t in ctx.org.tags.values() if t.tag_type == tag.tag_type and t is not tag]
        require_unique(others, [new_name], "tag name")
        tag.name = new_name
    for holder in adding:
        if tag.tag_id not in holder.tag_ids:
            holder.tag_ids.append(tag.tag_id)
    for holder in removing:
        if tag.tag_id in holder.tag_ids:
            holder.tag_ids.remove(tag.tag_id)
    tag.updated_ms = ctx.now_ms


def delete_tags(ctx: Context, ids: list[str], holders: Iterable[Holder], id_of: Callable[[Holder], str]) -> list[str]:
    """Remove the tags ``ids`` (already checked) from every holder and the organization; the holders touched."""
    detached = []
    for holder in holders:
        if any(t in ids for t in holder.tag_ids):
            holder.tag_ids = [t for t in holder.tag_ids if t not in ids]
            detached.append(id_of(holder))
    for tag_id in ids:
        del ctx.org.tags[tag_id]
    return detached


def user_tags(ctx: Context, tag_ids: list[str]) -> list[Tag]:
    return ctx.tags(tag_ids, "TAG_TYPE_USER", "user tags")


def new_tag(ctx: Context, name: str, tag_type: str) -> Tag:
    check_room(ctx)
    require_unique([t.name for t in ctx.org.tags.values() if t.tag_type == tag_type], [name], "tag name")
    tag = Tag(ctx.new_id(), name, tag_type, ctx.now_ms)
    ctx.org.tags[tag.tag_id] = tag
    return tag
