"""HD wallets and their accounts, derived for real from a BIP-39 mnemonic."""

from __future__ import annotations

from simulator.activities.context import Context, Json
from simulator.activities.users import check_limit
from simulator.crypto import addresses, hd
from simulator.errors import InvalidArgument, Unimplemented
from simulator.state.records import Wallet, WalletAccount

MAX_WALLETS = 100
DEFAULT_MNEMONIC_LENGTH = 12


def create_wallet(ctx: Context, params: Json) -> Json:
    check_limit(len(ctx.org.wallets), 1, MAX_WALLETS, "wallets")
    length = params.get("mnemonicLength", DEFAULT_MNEMONIC_LENGTH)
    wallet = new_wallet(ctx, params["walletName"], params["accounts"], mnemonic_length=length)
    return {"walletId": wallet.wallet_id, "addresses": [a.address for a in wallet.accounts]}


def new_wallet(
    ctx: Context,
    name: str,
    accounts: list[Json],
    *,
    mnemonic: str | None = None,
    mnemonic_length: int = DEFAULT_MNEMONIC_LENGTH,
    wallet_id: str | None = None,
) -> Wallet:
    """Make a wallet (shared by create_wallet and scenarios); nothing is stored on failure."""
    if any(w.name == name for w in ctx.org.wallets.values()):
        raise InvalidArgument(f"wallet name must be unique: {name!r} already used")
    wallet = Wallet(wallet_id or ctx.new_id(), name, mnemonic or new_mnemonic(ctx, mnemonic_length), ctx.now_ms)
    add_accounts(ctx, wallet, accounts)
    ctx.org.wallets[wallet.wallet_id] = wallet
    return wallet


def new_mnemonic(ctx: Context, length: int) -> str:
    if length not in hd.MNEMONIC_LENGTHS:
        raise InvalidArgument(f"invalid mnemonic length {length}: accepted values are 12, 15, 18, 21, 24")
    return hd.generate_mnemonic(ctx.source.bytes(hd.MNEMONIC_LENGTHS[length]))


def add_accounts(ctx: Context, wallet: Wallet, accounts: list[Json]) -> list[WalletAccount]:
    """Derive each requested account; a path may be used once per wallet."""
    used = {a.path for a in wallet.accounts}
    seed = hd.mnemonic_to_seed(wallet.mnemonic)
    made = []
    for spec in accounts:
        if spec["path"] in used:
            raise InvalidArgument(
                f"invalid path {spec['path']!r}: paths cannot be reused within the same HD wallet"
            )
        used.add(spec["path"])
        made.append(derive_account(ctx, wallet.wallet_id, seed, spec))
    wallet.accounts.extend(made)
    return made


def derive_account(ctx: Context, wallet_id: str, seed: bytes, spec: Json) -> WalletAccount:
    curve, fmt = spec["curve"], spec["addressFormat"]
    try:
        key = hd.derive(seed, curve, spec["path"])
        address = addresses.address_for(fmt, curve, key.public_key)
    except addresses.UnsupportedAddressFormat as exc:
        raise Unimplemented(str(exc)) from None
    except hd.DerivationError as exc:
        raise InvalidArgument(str(exc)) from None
    return WalletAccount(
        account_id=ctx.new_id(),
        organization_id=ctx.org.organization_id,
        wallet_id=wallet_id,
        curve=curve,
        path=spec["path"],
        address_format=fmt,
        address=address,
        public_key=addresses.public_key_hex(curve, key.public_key),
        created_ms=ctx.now_ms,
        name=spec.get("name"),
    )
