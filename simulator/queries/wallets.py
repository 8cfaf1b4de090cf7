"""Reads of wallets, their accounts (listed, or one by address or by derivation path), and address balances."""

from __future__ import annotations

from simulator.errors import InvalidArgument, NotFound, PermissionDenied
from simulator.handler_support.query_context import QueryContext
from simulator.queries.pagination import paginate
from simulator.wire import Json

BALANCE_NETWORKS = ("eip155:1", "eip155:11155111", "eip155:8453", "eip155:84532", "eip155:137", "eip155:80002")


def list_wallets(q: QueryContext, body: Json) -> Json:
    return {"wallets": [w.to_api() for w in q.org.wallets.values()]}


def get_wallet(q: QueryContext, body: Json) -> Json:
    return {"wallet": q.find(q.org.wallets, body["walletId"], "wallet").to_api()}


def list_wallet_accounts(q: QueryContext, body: Json) -> Json:
    wallet_id = body.get("walletId")
    wallets = [q.find(q.org.wallets, wallet_id, "wallet")] if wallet_id else list(q.org.wallets.values())
    accounts = [(w, a) for w in wallets for a in w.accounts]
    page = paginate(accounts, body.get("paginationOptions"), key=lambda pair: pair[1].account_id, default=100)
    out = []
    for wallet, account in page:
        item = account.to_api()
        if body.get("includeWalletDetails"):
            item["walletDetails"] = wallet.to_api()
        out.append(item)
    return {"accounts": out}


def get_wallet_address_balances(q: QueryContext, body: Json) -> Json:
    """Scenario-given balances of one of the organization's addresses; non-zero ones only."""
    if not q.org.balances_access:
        raise PermissionDenied(
            "address balances are in beta and this organization has not been granted access; "
            "ask support to enable it (in the simulator: set balancesAccess: true in the scenario)",
            error_code="FORBIDDEN",
        )
    address = body["address"]
    known = {a.address for w in q.org.wallets.values() for a in w.accounts}
    known |= {a["address"] for k in q.org.private_keys.values() for a in k.addresses}
    if address not in known:
        raise NotFound(
            f"address {address} is not a wallet account of organization {q.org.organization_id}",
            error_code="REQUEST_INVALID",
        )
    assets = q.org.balances.get((address, body["caip2"]), [])
    return {"balances": [dict(a) for a in assets if int(a.get("balance", "0")) != 0]}


def get_wallet_account(q: QueryContext, body: Json) -> Json:
    wallet = q.find(q.org.wallets, body["walletId"], "wallet")
    address, path = body.get("address"), body.get("path")
    if not address and not path:
        raise InvalidArgument("get_wallet_account needs the account's address or its path")
    for account in wallet.accounts:
        if (not address or account.address == address) and (not path or account.path == path):
            return {"account": account.to_api()}
    wanted = " and ".join(f"{name} {value}" for name, value in (("address", address), ("path", path)) if value)
    raise NotFound(f"no account with {wanted} in wallet {wallet.wallet_id}", error_code="REQUEST_INVALID")
