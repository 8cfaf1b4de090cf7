"""What user tags and private-key tags share: renaming, attaching, detaching, deleting."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from simulator.activities.context import Context, require_unique
from simulator.state.records import Tag

Holder = TypeVar("Holder", bound=Any)  # a user or a private key: anything with ``tag_ids``


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
