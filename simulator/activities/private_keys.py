"""Private keys (one key each, not HD) and their tags."""

from __future__ import annotations

from simulator.activities.versions import adapted
from simulator.handler_support.context import Context, require_unique
from simulator.handler_support.limits import check_limit
from simulator.model import tags
from simulator.model.key_material import MAX_PRIVATE_KEYS, delete_exported, new_private_key
from simulator.model.tags import new_tag
from simulator.wire import Json


@adapted
def create_private_keys(ctx: Context, params: Json) -> Json:
    specs = params["privateKeys"]
    check_limit(len(ctx.org.private_keys), len(specs), MAX_PRIVATE_KEYS, "private keys")
    require_unique(
        [k.name for k in ctx.org.private_keys.values()], [s["privateKeyName"] for s in specs], "private key name"
    )
    made = [
        new_private_key(ctx, s["privateKeyName"], s["curve"], s["addressFormats"], s["privateKeyTags"]) for s in specs
    ]
    for key in made:
        ctx.org.private_keys[key.private_key_id] = key
    return {
        "privateKeys": [{"privateKeyId": k.private_key_id, "addresses": [dict(a) for a in k.addresses]} for k in made]
    }


def create_private_key_tag(ctx: Context, params: Json) -> Json:
    ids = params["privateKeyIds"]
    ctx.existing(ctx.org.private_keys, ids, "private keys")
    tag = new_tag(ctx, params["privateKeyTagName"], "TAG_TYPE_PRIVATE_KEY")
    for key_id in ids:
        ctx.org.private_keys[key_id].tag_ids.append(tag.tag_id)
    return {"privateKeyTagId": tag.tag_id, "privateKeyIds": list(ids)}


def update_private_key_tag(ctx: Context, params: Json) -> Json:
    tag = ctx.tags([params["privateKeyTagId"]], "TAG_TYPE_PRIVATE_KEY", "private key tags")[0]
    adding = ctx.existing(ctx.org.private_keys, params["addPrivateKeyIds"], "private keys")
    removing = ctx.existing(ctx.org.private_keys, params["removePrivateKeyIds"], "private keys")
    tags.retag(ctx, tag, params.get("newPrivateKeyTagName"), adding, removing)
    return {"privateKeyTagId": tag.tag_id}


def delete_private_key_tags(ctx: Context, params: Json) -> Json:
    """The result names the keys the tags were detached from."""
    ids = list(dict.fromkeys(params["privateKeyTagIds"]))
    ctx.tags(ids, "TAG_TYPE_PRIVATE_KEY", "private key tags")
    detached = tags.delete_tags(ctx, ids, ctx.org.private_keys.values(), lambda key: key.private_key_id)
    return {"privateKeyTagIds": ids, "privateKeyIds": detached}


def delete_private_keys(ctx: Context, params: Json) -> Json:
    ids, without_export = params["privateKeyIds"], bool(params.get("deleteWithoutExport"))
    return {
        "privateKeyIds": delete_exported(ctx, ctx.org.private_keys, ids, "private keys", "private key", without_export)
    }
