"""HD wallets and their accounts, derived for real from a BIP-39 mnemonic (by model/key_material.py,
which the other families that make wallets share), and their deletion.

The service's rule for deletes: key material that was never exported is not deleted unless the
request sets ``deleteWithoutExport`` (ignored for what was exported). The refusal is InvalidArgument
with ``WALLET_ACCOUNT_NOT_EXPORTED``, the one code the service documents for it (private keys and
sub-organizations use the same refusal). A deleted private key leaves the tags that listed it (tags
keep their name); policies are free text and stay as written.
"""

from __future__ import annotations

import contextlib

from simulator.clock import Source
from simulator.crypto import hd
from simulator.errors import InvalidArgument, documented
from simulator.handler_support.context import Context
from simulator.handler_support.limits import check_limit
from simulator.model.key_material import (
    DEFAULT_MNEMONIC_LENGTH,
    MAX_WALLETS,
    PreparedWallet,
    add_to_wallet,
    delete_exported,
    distinct,
    drawn_wallet,
    new_wallet,
    refuse_unexported,
)
from simulator.state.records import Wallet, WalletAccount
from simulator.wire import Json


def prepare_wallet(source: Source, params: Json) -> PreparedWallet | None:
    """Peek at the next mnemonic with its seed (from the pool, computed ahead) and derive the
    accounts; the stream moves on only when the wallet is stored (a refusal leaves it)."""
    length = params.get("mnemonicLength", DEFAULT_MNEMONIC_LENGTH)
    if length not in hd.MNEMONIC_LENGTHS:
        return None
    prepared = drawn_wallet(source, length)
    for spec in params["accounts"]:
        with contextlib.suppress(hd.DerivationError):  # refused later, inside the activity, with its message
            prepared.keys[(spec["curve"], spec["path"])] = hd.derive(prepared.seed, spec["curve"], spec["path"])
    return prepared


def create_wallet(ctx: Context, params: Json) -> Json:
    check_limit(len(ctx.org.wallets), 1, MAX_WALLETS, "wallets")
    length = params.get("mnemonicLength", DEFAULT_MNEMONIC_LENGTH)
    prepared = ctx.prepared if isinstance(ctx.prepared, PreparedWallet) else None
    wallet = new_wallet(ctx, params["walletName"], params["accounts"], mnemonic_length=length, prepared=prepared)
    return {"walletId": wallet.wallet_id, "addresses": [a.address for a in wallet.accounts]}


def create_wallet_accounts(ctx: Context, params: Json) -> Json:
    """More accounts for an existing wallet; ``persist: false`` only shows their addresses."""
    made = add_to_wallet(ctx, params["walletId"], params["accounts"], persist=params.get("persist", True))
    return {"addresses": [a.address for a in made]}


def update_wallet(ctx: Context, params: Json) -> Json:
    """Rename a wallet (names stay unique in the organization); no name changes nothing."""
    wallet = ctx.existing(ctx.org.wallets, [params["walletId"]], "wallet")[0]
    name = params.get("walletName")
    if name is not None and name != wallet.name:
        if not name.strip():
            raise InvalidArgument("walletName must not be empty")
        if any(w.name == name for w in ctx.org.wallets.values()):
            raise InvalidArgument(f"wallet name must be unique: {name!r} already used")
        wallet.name = name
    return {"walletId": wallet.wallet_id}


def delete_wallets(ctx: Context, params: Json) -> Json:
    without_export = bool(params.get("deleteWithoutExport"))
    return {
        "walletIds": delete_exported(ctx, ctx.org.wallets, params["walletIds"], "wallets", "wallet", without_export)
    }


def delete_wallet_accounts(ctx: Context, params: Json) -> Json:
    """An account counts as exported when it or its whole wallet was exported."""
    ids = distinct(params["walletAccountIds"])
    accounts: dict[str, tuple[Wallet, WalletAccount]] = {
        a.account_id: (w, a) for w in ctx.org.wallets.values() for a in w.accounts
    }
    foreign = [i for i in ids if i not in accounts and account_elsewhere(ctx, i)]
    if foreign:  # the catalogue's 400/3 for another organization's account; an unknown one stays 404/5
        raise InvalidArgument(
            documented(
                "wallet account not part of your organization",
                f"{', '.join(foreign)} belongs to another organization than {ctx.org.organization_id}",
            )
        )
    found = ctx.existing(accounts, ids, "wallet accounts")
    if not params.get("deleteWithoutExport"):
        refuse_unexported("wallet account", [a.account_id for w, a in found if not (a.exported or w.exported)])
    ctx.store.remove_wallet_accounts(ctx.org, set(ids))
    return {"walletAccountIds": ids}


def account_elsewhere(ctx: Context, account_id: str) -> bool:
    """Whether another organization of the simulator holds the wallet account."""
    return any(
        a.account_id == account_id
        for org in ctx.store.orgs.values()
        if org is not ctx.org
        for w in org.wallets.values()
        for a in w.accounts
    )
