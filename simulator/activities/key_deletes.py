"""Deleting wallets, wallet accounts, private keys and whole sub-organizations.

The service's rule: key material that was never exported is not deleted unless the request sets
``deleteWithoutExport`` (ignored for what was exported). The refusal is InvalidArgument with
``WALLET_ACCOUNT_NOT_EXPORTED``, the one code the service documents for it. A deleted private key
leaves the tags that listed it (tags keep their name); policies are free text and stay as written.
"""

from __future__ import annotations

from simulator.errors import InvalidArgument, PermissionDenied
from simulator.handling.context import Context
from simulator.state.records import Wallet, WalletAccount
from simulator.wire import Json

NOT_EXPORTED = "WALLET_ACCOUNT_NOT_EXPORTED"


def delete_wallets(ctx: Context, params: Json) -> Json:
    ids = distinct(params["walletIds"])
    found = ctx.existing(ctx.org.wallets, ids, "wallets")
    if not params.get("deleteWithoutExport"):
        refuse_unexported("wallet", [w.wallet_id for w in found if not w.exported])
    for wallet_id in ids:
        del ctx.org.wallets[wallet_id]
    return {"walletIds": ids}


def delete_wallet_accounts(ctx: Context, params: Json) -> Json:
    """An account counts as exported when it or its whole wallet was exported."""
    ids = distinct(params["walletAccountIds"])
    accounts: dict[str, tuple[Wallet, WalletAccount]] = {
        a.account_id: (w, a) for w in ctx.org.wallets.values() for a in w.accounts
    }
    found = ctx.existing(accounts, ids, "wallet accounts")
    if not params.get("deleteWithoutExport"):
        refuse_unexported("wallet account", [a.account_id for w, a in found if not (a.exported or w.exported)])
    ctx.store.remove_wallet_accounts(ctx.org, set(ids))
    return {"walletAccountIds": ids}


def delete_private_keys(ctx: Context, params: Json) -> Json:
    ids = distinct(params["privateKeyIds"])
    found = ctx.existing(ctx.org.private_keys, ids, "private keys")
    if not params.get("deleteWithoutExport"):
        refuse_unexported("private key", [k.private_key_id for k in found if not k.exported])
    for key_id in ids:
        del ctx.org.private_keys[key_id]
    return {"privateKeyIds": ids}


def delete_sub_organization(ctx: Context, params: Json) -> Json:
    """Run inside the sub-organization, by one of its root users (a parent cannot do it alone)."""
    org = ctx.org
    if org.parent_id is None:
        raise InvalidArgument(
            f"organization {org.organization_id} is not a sub-organization: delete_sub_organization runs in the "
            "sub-organization to delete"
        )
    if ctx.principal is None or ctx.principal.user.user_id not in org.root_user_ids:
        raise PermissionDenied(
            "request not authorized: a sub-organization is deleted by one of its own root users",
            error_code="INVALID_ACTIVITY_CALLER",
        )
    if org.children:
        raise InvalidArgument(
            f"organization {org.organization_id} has sub-organizations of its own ({', '.join(org.children)}); "
            "delete them first"
        )
    if not params.get("deleteWithoutExport"):
        unexported = [f"wallet {w.wallet_id}" for w in org.wallets.values() if not w.exported]
        unexported += [f"private key {k.private_key_id}" for k in org.private_keys.values() if not k.exported]
        refuse_unexported("sub-organization key material", unexported)
    ctx.store.detach_organization(org)
    return {"subOrganizationUuid": org.organization_id}


def refuse_unexported(what: str, ids: list[str]) -> None:
    if ids:
        raise InvalidArgument(
            f"{what} has not been exported: {', '.join(ids)}; export it first, or set deleteWithoutExport: true "
            "to delete it anyway",
            error_code=NOT_EXPORTED,
        )


def distinct(ids: list[str]) -> list[str]:
    return list(dict.fromkeys(ids))
