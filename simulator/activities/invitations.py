"""Invitations (created, deleted)."""

from __future__ import annotations

from simulator.handler_support.context import Context
from simulator.handler_support.limits import check_limit
from simulator.model.tags import user_tags
from simulator.state.records import Record
from simulator.wire import Json

MAX_INVITATIONS = 100


def create_invitations(ctx: Context, params: Json) -> Json:
    invitations = params["invitations"]
    check_limit(len(ctx.org.invitations), len(invitations), MAX_INVITATIONS, "invitations")
    for inv in invitations:
        ctx.user(inv["senderUserId"])
        user_tags(ctx, inv["receiverUserTags"])
    ids = []
    for inv in invitations:
        inv_id = ctx.new_id()
        # the request names the address receiverUserEmail, the stored v1Invitation receiverEmail
        sent = {k: v for k, v in inv.items() if k != "receiverUserEmail"}
        fields = {"invitationId": inv_id, **sent, "receiverEmail": inv["receiverUserEmail"]}
        fields["status"] = "INVITATION_STATUS_CREATED"
        ctx.org.invitations[inv_id] = Record(inv_id, fields, ctx.now_ms)
        ids.append(inv_id)
    return {"invitationIds": ids}


def delete_invitation(ctx: Context, params: Json) -> Json:
    invitation_id = params["invitationId"]
    ctx.existing(ctx.org.invitations, [invitation_id], "invitation")
    del ctx.org.invitations[invitation_id]
    return {"invitationId": invitation_id}
