"""One wallet account, by address or by derivation path."""

from __future__ import annotations

from simulator.errors import InvalidArgument, NotFound
from simulator.queries.context import QueryContext
from simulator.wire import Json


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
