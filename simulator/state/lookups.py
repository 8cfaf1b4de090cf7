"""Questions the state answers from its tables, with facts rather than records: the signer behind an address,
the address formats an address has, whether a wallet name is taken, the endpoints an event goes to.

Each looks through every entry of a table; none hands a record out. A record handed out may be changed, and
serve --data-dir compares after a request what the tables handed out (``WatchedDict``): a signature that looked
through an organization's wallets with ``values()`` would have it compare every wallet after every signature.
What a caller changes it fetches by its key, as any record it changes.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from simulator.state.records import PrivateKey, Wallet, WebhookEndpoint

WALLET_ACCOUNT = "wallet_account"
PRIVATE_KEY = "private_key"


class Holder(Protocol):
    """An organization, as far as these lookups read it."""

    @property
    def wallets(self) -> dict[str, Wallet]: ...

    @property
    def private_keys(self) -> dict[str, PrivateKey]: ...


class Signer(NamedTuple):
    """What signs for an address: a wallet account (``kind`` WALLET_ACCOUNT: its wallet's id, name, seed and
    flags, the account's address, curve, path and format) or a private key (PRIVATE_KEY, also by its id: its id,
    name, curve, secret, tags and flags)."""

    kind: str
    signer_id: str  # the wallet's id, or the private key's
    name: str  # the wallet's name, or the private key's
    curve: str
    imported: bool
    exported: bool
    seed: bytes = b""
    address: str = ""  # the account's address as stored (a private key: "")
    path: str = ""
    address_format: str | None = None
    secret: bytes = b""
    tag_ids: tuple[str, ...] = ()


def signer(org: Holder, sign_with: str) -> Signer | None:
    """The wallet account whose address is ``sign_with`` (in any letter case), else the private key of that id or
    address: the first found, wallets first, as the service looks."""
    wanted = sign_with.lower()
    for wallet in dict.values(org.wallets):  # dict's own: nothing handed out
        for account in wallet.accounts:
            if account.address.lower() == wanted:
                return Signer(  # every field by position: a NamedTuple's keywords cost a call each
                    WALLET_ACCOUNT,
                    wallet.wallet_id,
                    wallet.name,
                    account.curve,
                    wallet.imported,
                    wallet.exported,
                    wallet.seed,
                    account.address,
                    account.path,
                    account.address_format,
                    b"",
                    (),
                )
    for key in dict.values(org.private_keys):
        if key.private_key_id == sign_with or any(a["address"].lower() == wanted for a in key.addresses):
            return Signer(
                PRIVATE_KEY,
                key.private_key_id,
                key.name,
                key.curve,
                key.imported,
                key.exported,
                b"",
                "",
                "",
                None,
                key.secret,
                tuple(key.tag_ids),
            )
    return None


def address_formats(org: Holder, address: str) -> list[str | None]:
    """The format of every wallet account, then every private key address, whose address is ``address`` (in any
    letter case); a private key's address may have none."""
    wanted = address.lower()
    formats: list[str | None] = [
        a.address_format for w in dict.values(org.wallets) for a in w.accounts if a.address.lower() == wanted
    ]
    formats += [
        a.get("format") for k in dict.values(org.private_keys) for a in k.addresses if a["address"].lower() == wanted
    ]
    return formats


def wallet_named(org: Holder, name: str) -> bool:
    """Whether one of the organization's wallets is named ``name``."""
    return any(w.name == name for w in dict.values(org.wallets))


def subscribed_urls(endpoints: dict[str, WebhookEndpoint], event_type: str) -> list[str]:
    """The URLs of the active endpoints subscribed to ``event_type``."""
    return [e.url for e in dict.values(endpoints) if e.subscribed(event_type)]
