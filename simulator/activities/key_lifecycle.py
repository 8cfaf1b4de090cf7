"""Export and import of wallets, wallet accounts and private keys, with the enclave's real bundles.

Export seals the mnemonic (wallets) or the raw 32-byte private key (accounts and private keys, on
every curve) to the request's ``targetPublicKey`` inside the signed envelope, and sets the
``exported`` flag. Import is two steps: init_import_* makes a target key for the user and returns
it signed; import_* opens what the client sealed to it, then makes the wallet or key with the
``imported`` flag. Bundles are signed with the simulator's ``signer`` key, which clients must be
told to trust (@turnkey/crypto's ``dangerouslyOverrideSignerPublicKey``).
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric import ec

from simulator.crypto import bundles, keys, mnemonic_languages
from simulator.errors import InvalidArgument, NotFound
from simulator.handler_support.context import Context, require_unique
from simulator.handler_support.limits import check_limit
from simulator.model import documented_rules, key_material
from simulator.model.enclave_bundles import IMPORT_TARGET_TTL_MS, sealed_for_export
from simulator.state.records import ImportTarget, PrivateKey, Wallet, WalletAccount, timestamp
from simulator.wire import Json

WALLET, PRIVATE_KEY = "wallet", "private_key"
_CURVES = {"CURVE_SECP256K1": ec.SECP256K1, "CURVE_P256": ec.SECP256R1}


# export ------------------------------------------------------------------------------------------
def export_wallet(ctx: Context, params: Json) -> Json:
    wallet = find_wallet(ctx, params["walletId"])
    words = wallet.mnemonic
    if params.get("language"):
        try:
            words = mnemonic_languages.in_language(words, params["language"])
        except ValueError:
            raise InvalidArgument(
                f"wallet {wallet.wallet_id}'s mnemonic cannot be written in another language"
            ) from None
    bundle = sealed_for_export(ctx, words.encode(), params["targetPublicKey"])
    wallet.exported = True
    return {"walletId": wallet.wallet_id, "exportBundle": bundle}


def export_wallet_account(ctx: Context, params: Json) -> Json:
    wallet, account = find_account(ctx, params["address"])
    key = key_material.derive(seed_of(wallet), account.curve, account.path)
    bundle = sealed_for_export(ctx, key.private_key, params["targetPublicKey"])
    account.exported = True
    return {"address": account.address, "exportBundle": bundle}


def export_private_key(ctx: Context, params: Json) -> Json:
    key = find_private_key(ctx, params["privateKeyId"])
    bundle = sealed_for_export(ctx, key.secret, params["targetPublicKey"])
    key.exported = True
    return {"privateKeyId": key.private_key_id, "exportBundle": bundle}


def find_wallet(ctx: Context, wallet_id: str) -> Wallet:
    return ctx.org.find(ctx.org.wallets, wallet_id, "wallet")


def find_private_key(ctx: Context, private_key_id: str) -> PrivateKey:
    return ctx.org.find(ctx.org.private_keys, private_key_id, "private key")


def find_account(ctx: Context, address: str) -> tuple[Wallet, WalletAccount]:
    """The wallet account with this address (``0x`` addresses in any letter case)."""
    wanted = address.lower() if address.startswith("0x") else address
    for wallet in ctx.org.wallets.values():
        for account in wallet.accounts:
            if (account.address.lower() if address.startswith("0x") else account.address) == wanted:
                return wallet, account
    raise NotFound(
        f"wallet account with address {address} not found in organization {ctx.org.organization_id}",
        error_code="REQUEST_INVALID",
    )


def seed_of(wallet: Wallet) -> bytes:
    return wallet.seed or mnemonic_languages.seed_of(wallet.mnemonic)


# import ------------------------------------------------------------------------------------------
def init_import_wallet(ctx: Context, params: Json) -> Json:
    return {"importBundle": new_target(ctx, params["userId"], WALLET)}


def init_import_private_key(ctx: Context, params: Json) -> Json:
    return {"importBundle": new_target(ctx, params["userId"], PRIVATE_KEY)}


def new_target(ctx: Context, user_id: str, kind: str) -> str:
    """A fresh target key for the user; it replaces their previous one of this kind."""
    ctx.user(user_id)
    documented_rules.require_own_user(ctx, user_id, init_of(kind))
    key = keys.new_ec_key(ctx.source, "p256")
    org_id = ctx.org.organization_id
    target = ImportTarget(
        ctx.new_id(), org_id, user_id, kind, keys.private_hex(key), ctx.now_ms, ctx.now_ms + IMPORT_TARGET_TTL_MS
    )
    ctx.store.add_import_target(target)
    return bundles.target_bundle(key, org_id, user_id)


def import_wallet(ctx: Context, params: Json) -> Json:
    check_limit(len(ctx.org.wallets), 1, key_material.MAX_WALLETS, "wallets")
    target, plaintext = open_import(ctx, params, WALLET)
    words = mnemonic_from(plaintext)
    prepared = key_material.PreparedWallet(words, mnemonic_languages.seed_of(words))
    wallet = key_material.new_wallet(ctx, params["walletName"], params["accounts"], prepared=prepared)
    wallet.imported = True
    target.state = "used"
    return {"walletId": wallet.wallet_id, "addresses": [a.address for a in wallet.accounts]}


def import_private_key(ctx: Context, params: Json) -> Json:
    check_limit(len(ctx.org.private_keys), 1, key_material.MAX_PRIVATE_KEYS, "private keys")
    name, curve = params["privateKeyName"], params["curve"]
    require_unique([k.name for k in ctx.org.private_keys.values()], [name], "private key name")
    target, plaintext = open_import(ctx, params, PRIVATE_KEY)
    secret = secret_for_curve(plaintext, curve)
    key = key_material.new_private_key(ctx, name, curve, params["addressFormats"], [], secret=secret)
    key.imported = True
    ctx.org.private_keys[key.private_key_id] = key
    target.state = "used"
    return {"privateKeyId": key.private_key_id, "addresses": [dict(a) for a in key.addresses]}


def mnemonic_from(plaintext: bytes) -> str:
    try:
        words = " ".join(plaintext.decode("utf-8").split())
    except UnicodeDecodeError:
        words = ""
    if not words or mnemonic_languages.language_of(words) is None:
        raise InvalidArgument(
            "invalid mnemonic: the bundle must hold a BIP-39 mnemonic of 12, 15, 18, 21 or 24 words from one "
            "of the nine supported word lists, with a valid checksum"
        )
    return words


def secret_for_curve(plaintext: bytes, curve: str) -> bytes:
    """The raw private key, checked against the curve (what encryptPrivateKeyToBundle sends)."""
    if len(plaintext) != 32:
        solana = " (a Solana keypair is sent with keyFormat SOLANA, which keeps its first 32 bytes)"
        hint = solana if len(plaintext) == 64 else ""
        raise InvalidArgument(f"invalid private key for {curve}: expected 32 bytes, got {len(plaintext)}{hint}")
    if curve in _CURVES:
        try:
            ec.derive_private_key(int.from_bytes(plaintext, "big"), _CURVES[curve]())
        except ValueError:
            raise InvalidArgument(
                f"invalid private key for {curve}: not a scalar between 1 and the curve order"
            ) from None
    return plaintext


def open_import(ctx: Context, params: Json, kind: str) -> tuple[ImportTarget, bytes]:
    """The user's live target and what the bundle holds, or an error saying what went wrong."""
    user_id = params["userId"]
    ctx.user(user_id)
    documented_rules.require_own_user(ctx, user_id, f"import_{kind}")
    try:
        enc, ciphertext = bundles.parse_sealed(params["encryptedBundle"])
    except bundles.BundleError as exc:
        raise InvalidArgument(f"invalid encryptedBundle: {exc}") from None
    mine = (ctx.org.organization_id, user_id, kind)
    targets = sorted(ctx.store.import_targets.values(), key=lambda t: (t.organization_id, t.user_id, t.kind) != mine)
    for target in targets:
        plaintext = bundles.open_with(enc, ciphertext, keys.ec_key_from_hex("p256", target.private_key))
        if plaintext is not None:
            refuse_unless_usable(ctx, target, mine)
            return target, plaintext
    if not any(t.state == "live" for t in targets if (t.organization_id, t.user_id, t.kind) == mine):
        raise InvalidArgument(f"user {user_id} has no import in progress: call {init_of(kind)} first")
    raise InvalidArgument(
        f"invalid encryptedBundle: it does not open with the target key of user {user_id}'s {init_of(kind)} "
        "(corrupt ciphertext, or sealed to a key the simulator never issued)"
    )


def init_of(kind: str) -> str:
    return f"init_import_{kind}"


def refuse_unless_usable(ctx: Context, target: ImportTarget, mine: tuple[str, str, str]) -> None:
    """The bundle opened with ``target``: fine only if it is this import's live, unexpired target."""
    again = f"call {init_of(mine[2])} again and encrypt to its importBundle"
    if (target.organization_id, target.user_id, target.kind) != mine:
        raise InvalidArgument(
            f"invalid encryptedBundle: it was sealed to another import's target ({init_of(target.kind)} for user "
            f"{target.user_id} of organization {target.organization_id}); encrypt to the importBundle of "
            f"{init_of(mine[2])} for user {mine[1]}"
        )
    if target.state == "replaced":
        raise InvalidArgument(
            f"invalid encryptedBundle: it was sealed to a stale target that a later {init_of(mine[2])} "
            "replaced; encrypt to the newest importBundle"
        )
    if target.state == "used":
        raise InvalidArgument(
            "invalid encryptedBundle: its target was already used by an earlier import (each target serves "
            f"one import); {again}"
        )
    if target.expires_ms <= ctx.now_ms:
        expired = timestamp(target.expires_ms)["seconds"]
        raise InvalidArgument(f"invalid encryptedBundle: its target expired at {expired} (epoch seconds); {again}")


# what policies read (the language's `wallet`, `wallet_account`, `private_key` of export requests) --
def export_wallet_context(ctx: Context, params: Json) -> Json:
    wallet = ctx.org.wallets.get(params["walletId"])
    return {"wallet": wallet_view(wallet)} if wallet else {}


def export_wallet_account_context(ctx: Context, params: Json) -> Json:
    try:
        wallet, account = find_account(ctx, params["address"])
    except NotFound:
        return {}
    return {"wallet": wallet_view(wallet), "wallet_account": {"address": account.address}}


def export_private_key_context(ctx: Context, params: Json) -> Json:
    key = ctx.org.private_keys.get(params["privateKeyId"])
    if key is None:
        return {}
    view = {"id": key.private_key_id, "label": key.name, "tags": list(key.tag_ids)}
    return {"private_key": {**view, "imported": key.imported, "exported": key.exported}}


def wallet_view(wallet: Wallet) -> Json:
    return {"id": wallet.wallet_id, "label": wallet.name, "imported": wallet.imported, "exported": wallet.exported}
