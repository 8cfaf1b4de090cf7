"""Reads of the organization itself: identity, configuration, and the whole organization."""

from __future__ import annotations

from simulator.handler_support.query_context import QueryContext
from simulator.wire import Json


def whoami(q: QueryContext, body: Json) -> Json:
    org, user = q.principal.organization, q.principal.user
    return {
        "organizationId": org.organization_id,
        "organizationName": org.name,
        "userId": user.user_id,
        "username": user.name,
    }


def get_organization_configs(q: QueryContext, body: Json) -> Json:
    quorum = {"threshold": q.org.root_threshold, "userIds": list(q.org.root_user_ids)}
    return {"configs": {"features": q.org.features_api(), "quorum": quorum}}


def invitation(stored: Json) -> Json:
    """v1Invitation: a state saved by an earlier version kept the request's receiverUserEmail; read it as receiverEmail."""
    if "receiverUserEmail" in stored:
        stored = {k: v for k, v in stored.items() if k != "receiverUserEmail"} | {
            "receiverEmail": stored["receiverUserEmail"]
        }
    return stored


def get_organization(q: QueryContext, body: Json) -> Json:
    org = q.org
    return {
        "organizationData": {
            "organizationId": org.organization_id,
            "name": org.name,
            "users": [u.to_api() for u in org.users.values()],
            "policies": [p.to_api() for p in org.policies.values()],
            "privateKeys": [k.to_api() for k in org.private_keys.values()],
            "invitations": [invitation(i.to_api()) for i in org.invitations.values()],
            "tags": [t.to_api() for t in org.tags.values()],
            "rootQuorum": {"threshold": org.root_threshold, "userIds": list(org.root_user_ids)},
            "features": org.features_api(),
            "wallets": [w.to_api() for w in org.wallets.values()],
            "smartContractInterfaceReferences": [
                {
                    "smartContractInterfaceId": sci.record_id,
                    "smartContractAddress": sci.fields.get("smartContractAddress", ""),
                    "digest": sci.fields.get("digest", ""),
                }
                for sci in org.smart_contract_interfaces.values()
            ],
        }
    }
