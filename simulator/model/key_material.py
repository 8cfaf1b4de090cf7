"""Key material as several families make and guard it: an HD wallet drawn from the simulator's
mnemonic stream with its accounts derived (wallets, imports, sub-organizations, TVC, swaps, the
scenario seed), a key derived and an address computed (signing, Spark, private keys), a private
key made (private keys, imports, the scenario seed), and the refusal to delete what was never
exported (wallets, private keys, sub-organizations)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from simulator.clock import Source
from simulator.crypto import addresses, hd, keys
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.model import mnemonic_pool
from simulator.state import lookups
from simulator.state.records import PrivateKey, Wallet, WalletAccount
from simulator.wire import Json

MAX_WALLETS = 100
DEFAULT_MNEMONIC_LENGTH = 12
MAX_PRIVATE_KEYS = 1000


@dataclass
class PreparedWallet:
    """The costly, state-free part of a new wallet, computed outside the store lock."""

    mnemonic: str
    seed: bytes
    keys: dict[tuple[str, str], hd.DerivedKey] = field(default_factory=dict)
    slot: mnemonic_pool.Slot | None = None  # its place in the mnemonic stream, claimed once the wallet is stored


def new_wallet(
    ctx: Context,
    name: str,
    accounts: list[Json],
    *,
    mnemonic: str | None = None,
    mnemonic_length: int = DEFAULT_MNEMONIC_LENGTH,
    wallet_id: str | None = None,
    prepared: PreparedWallet | None = None,
) -> Wallet:
    """Make a wallet (shared by create_wallet and scenarios); nothing is stored on failure."""
    if lookups.wallet_named(ctx.org, name):
        raise InvalidArgument(f"wallet name must be unique: {name!r} already used")
    if prepared is None:
        prepared = PreparedWallet(mnemonic, seed_of(mnemonic)) if mnemonic else new_prepared(ctx, mnemonic_length)
    else:
        prepared = still_next(ctx.source, prepared)
    wallet = Wallet(wallet_id or ctx.new_id(), name, prepared.mnemonic, ctx.now_ms, prepared.seed)
    add_accounts(ctx, wallet, accounts, prepared)
    if prepared.slot is not None:
        stream_pool(ctx.source).claim(prepared.slot)
    ctx.org.wallets[wallet.wallet_id] = wallet
    return wallet


def stream_pool(source: Source) -> mnemonic_pool.MnemonicPool:
    pool = mnemonic_pool.pool_for(source)
    assert pool is not None, "a stream slot comes from the source's pool"
    return pool


def still_next(source: Source, prepared: PreparedWallet) -> PreparedWallet:
    """The preparer's mnemonic if it is still the stream's next, else the next one drawn now
    (another wallet was stored in between, or the request waited for approvals)."""
    if prepared.slot is None or stream_pool(source).is_next(prepared.slot):
        return prepared
    stream_pool(source).release(prepared.slot)
    return drawn_wallet(source, len(prepared.mnemonic.split()), reserve=False)


def seed_of(mnemonic: str) -> bytes:
    try:
        return hd.mnemonic_to_seed(mnemonic)
    except hd.DerivationError as exc:
        raise InvalidArgument(str(exc)) from None


def new_prepared(ctx: Context, length: int) -> PreparedWallet:
    if length not in hd.MNEMONIC_LENGTHS:
        raise InvalidArgument(f"invalid mnemonic length {length}: accepted values are 12, 15, 18, 21, 24")
    return drawn_wallet(ctx.source, length, reserve=False)


def drawn_wallet(source: Source, length: int, *, reserve: bool = True) -> PreparedWallet:
    """A new mnemonic and its seed: the simulator's mnemonic stream's next entry (a seeded run
    repeats it; ``new_wallet`` claims it), or straight from ``source`` where no pool serves it (a
    Context built outside a simulator). ``reserve``: a preparer's, outside the store lock."""
    pool = mnemonic_pool.pool_for(source)
    if pool is not None:
        slot, (mnemonic, seed) = pool.peek(length, reserve=reserve)
        return PreparedWallet(mnemonic, seed, slot=slot)
    mnemonic = hd.generate_mnemonic(source.bytes(hd.MNEMONIC_LENGTHS[length]))
    return PreparedWallet(mnemonic, hd.mnemonic_to_seed(mnemonic))


def add_to_wallet(ctx: Context, wallet_id: str, accounts: list[Json], persist: bool = True) -> list[WalletAccount]:
    """More accounts for the organization's existing wallet ``wallet_id``, derived from its own seed."""
    wallet = ctx.org.find(ctx.org.wallets, wallet_id, "wallet")
    prepared = PreparedWallet(wallet.mnemonic, wallet.seed or seed_of(wallet.mnemonic))
    return add_accounts(ctx, wallet, accounts, prepared, persist=persist)


def add_accounts(
    ctx: Context, wallet: Wallet, accounts: list[Json], prepared: PreparedWallet, persist: bool = True
) -> list[WalletAccount]:
    """Derive each requested account; a path may be used once per wallet and address format (the same key
    in two formats is allowed: @turnkey/spark's setup puts a Spark and a compressed account on one path)."""
    used = {(a.path, a.address_format) for a in wallet.accounts}
    made = []
    for spec in accounts:
        if (spec["path"], spec["addressFormat"]) in used:
            raise InvalidArgument(f"invalid path {spec['path']!r}: paths cannot be reused within the same HD wallet")
        used.add((spec["path"], spec["addressFormat"]))
        made.append(derive_account(ctx, wallet.wallet_id, prepared, spec))
    if persist:
        wallet.accounts.extend(made)
    return made


def derive_account(ctx: Context, wallet_id: str, prepared: PreparedWallet, spec: Json) -> WalletAccount:
    curve, fmt = spec["curve"], spec["addressFormat"]
    key = prepared.keys.get((curve, spec["path"])) or derive(prepared.seed, curve, spec["path"])
    return WalletAccount(
        account_id=ctx.new_id(),
        organization_id=ctx.org.organization_id,
        wallet_id=wallet_id,
        curve=curve,
        path=spec["path"],
        address_format=fmt,
        address=address_of(fmt, curve, key.public_key),
        public_key=addresses.public_key_hex(curve, key.public_key),
        created_ms=ctx.now_ms,
        name=spec.get("name"),
    )


def derive(seed: bytes, curve: str, path: str) -> hd.DerivedKey:
    try:
        return hd.derive(seed, curve, path)
    except hd.DerivationError as exc:
        raise InvalidArgument(str(exc)) from None


def address_of(address_format: str, curve: str, public_key: bytes) -> str:
    """The address, or the service's refusal."""
    try:
        return addresses.address_for(address_format, curve, public_key)
    except hd.DerivationError as exc:
        raise InvalidArgument(str(exc)) from None


# deleting: key material that was never exported stays unless deleteWithoutExport is set
NOT_EXPORTED = "WALLET_ACCOUNT_NOT_EXPORTED"  # the one code the service documents for the refusal


def refuse_unexported(what: str, ids: list[str]) -> None:
    if ids:
        raise InvalidArgument(
            f"{what} has not been exported: {', '.join(ids)}; export it first, or set deleteWithoutExport: true "
            "to delete it anyway",
            error_code=NOT_EXPORTED,
        )


HeldKey = TypeVar("HeldKey", Wallet, PrivateKey)


def delete_exported(
    ctx: Context,
    table: dict[str, HeldKey],
    ids: list[str],
    plural: str,
    singular: str,
    without_export: bool,
) -> list[str]:
    """Delete the keys (wallets, private keys) ``ids`` of ``table``: all must exist and, unless
    ``without_export`` (deleteWithoutExport), have been exported; one refused deletes none."""
    ids = distinct(ids)
    found = ctx.existing(table, ids, plural)
    if not without_export:
        refuse_unexported(singular, [key_id for key_id, key in zip(ids, found) if not key.exported])
    for key_id in ids:
        del table[key_id]
    return ids


def distinct(ids: list[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def new_private_key(
    ctx: Context,
    name: str,
    curve: str,
    formats: list[str],
    tag_ids: list[str],
    secret: bytes | None = None,
    key_id: str | None = None,
) -> PrivateKey:
    """A checked private key (shared by create_private_keys and scenarios), not yet stored."""
    ctx.tags(tag_ids, "TAG_TYPE_PRIVATE_KEY", "private key tags")
    secret = secret or keys.new_secret(ctx.source, curve)
    public = keys.public_key_for(curve, secret)
    found = [{"format": f, "address": address_of(f, curve, public)} for f in formats]
    return PrivateKey(
        key_id or ctx.new_id(),
        name,
        curve,
        secret,
        addresses.public_key_hex(curve, public),
        found,
        ctx.now_ms,
        list(tag_ids),
    )
