"""What the inspector shows of organizations: the tree, and each one's contents without secrets.

Every resource is shown in its wire shape (``to_api``), which never carries a mnemonic or a
private key; the few facts the wire leaves out (an account exported) are added by name.
"""

from __future__ import annotations

from typing import Any

from simulator.state.records import Wallet
from simulator.state.store import Organization, Store
from simulator.wire import Json


def tree(store: Store) -> list[Json]:
    """Every organization in tree order (parents before their sub-organizations), with its depth.

    A deleted sub-organization, which its parent no longer lists, comes last, marked ``detached``."""
    ordered: list[Json] = []

    def visit(org: Organization, depth: int) -> None:
        ordered.append(summary(org, depth, detached=False))
        for child_id in org.children:
            if child_id in store.orgs:
                visit(store.orgs[child_id], depth + 1)

    for org in store.orgs.values():
        if org.parent_id is None:
            visit(org, 0)
    seen = {o["organizationId"] for o in ordered}
    ordered += [summary(org, 0, detached=True) for org in store.orgs.values() if org.organization_id not in seen]
    return ordered


def summary(org: Organization, depth: int, detached: bool) -> Json:
    return {
        "organizationId": org.organization_id,
        "name": org.name,
        "parentId": org.parent_id,
        "depth": depth,
        "detached": detached,
        "counts": {
            "users": len(org.users),
            "wallets": len(org.wallets),
            "privateKeys": len(org.private_keys),
            "policies": len(org.policies),
            "activities": len(org.activities),
        },
    }


def details(store: Store, org: Organization) -> Json:
    """One organization's contents, as the page lays them out."""
    return {
        "organizationId": org.organization_id,
        "name": org.name,
        "parentId": org.parent_id,
        "parentName": store.orgs[org.parent_id].name if org.parent_id in store.orgs else None,
        "children": [{"organizationId": c, "name": store.orgs[c].name} for c in org.children if c in store.orgs],
        "createdMs": org.created_ms,
        "rootQuorum": root_quorum(org),
        "features": org.features_api(),
        "users": [user | {"tagNames": tag_names(org, user["userTags"])} for user in api_list(org.users)],
        "tags": api_list(org.tags),
        "wallets": [wallet_view(w) for w in org.wallets.values()],
        "privateKeys": [
            key | {"tagNames": tag_names(org, key["privateKeyTags"])} for key in api_list(org.private_keys)
        ],
        "policies": api_list(org.policies),
        "authProxy": auth_proxy_configs(store, org),
        "webhookEndpoints": api_list(org.webhook_endpoints),
    }


def api_list(records: dict[str, Any]) -> list[Json]:
    return [record.to_api() for record in records.values()]


def root_quorum(org: Organization) -> Json:
    users = [
        {"userId": uid, "userName": org.users[uid].name if uid in org.users else None} for uid in org.root_user_ids
    ]
    return {"threshold": org.root_threshold, "users": users}


def tag_names(org: Organization, tag_ids: list[str]) -> list[str]:
    return [org.tags[t].name if t in org.tags else t for t in tag_ids]


def wallet_view(wallet: Wallet) -> Json:
    accounts = [account.to_api() | {"exported": account.exported} for account in wallet.accounts]
    return wallet.to_api() | {"accounts": accounts}


def auth_proxy_configs(store: Store, org: Organization) -> list[Json]:
    """The organization's auth proxy configurations, without the sealed proxy key."""
    return [
        {k: v for k, v in config.items() if k != "encryptedProxyKey"}
        for config in store.proxy_configs.values()
        if config.get("organizationId") == org.organization_id
    ]
