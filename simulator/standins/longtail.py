"""The stand-in for the providers behind the long-tail operations (swaps, earn, on-ramp, TVC,
secrets), and its scenario key (``longtail``): what the simulated markets, vault catalogue and
container registry hold, and scripted status sequences for the asynchronous operations.

```yaml
longtail:
  assets:      # list_supported_assets and swap pricing; usd is the price a quote uses
    - {caip19: "eip155:8453/erc20:0x8335...", symbol: USDC, decimals: 6, name: USD Coin, stable: true, usd: "1"}
  vaults:      # list_earn_vaults' catalogue
    - {vaultAddress: "0x...", provider: EARN_PROVIDER_MORPHO, caip19: "eip155:8453/erc20:0x8335...",
       tvl: "1000000000000", apyPct: "0.05", name: Steakhouse USDC, curator: Steakhouse}
  tvcImages:   # what validate_tvc_image resolves, and the debug log lines a deployment of it prints
    - {url: "ghcr.io/acme/app:1", digest: "sha256:<64 hex>", logs: ["listening on :3000"]}
    - {url: "ghcr.io/acme/broken:1", error: "manifest unknown"}
  qosVersions: {available: ["v0.6.0"], latest: "v0.6.0"}
  statuses:    # first match decides; match as a rule's (type, organization, user, userTag, parameters, occurrence)
    - name: swaps fail on the provider
      match: {type: EXECUTE_SWAP}
      times: 1
      sequence:
        - {status: PENDING}
        - {status: FAILED, after: {polls: 2}, error: {reason: PROVIDER_FILL_FAILED, message: no fill}}
```

Without the key, a small default market (ETH, WETH and USDC on Ethereum and Base, SOL and USDC on
Solana), one Morpho USDC vault on Base and the operations' default sequences apply. Each scripted
step's ``after`` counts from the request: simulated seconds, or polls of the operation's status query
(every poll counts, as get_activity's do): a ``StatusTrack`` (simulator.state.status_track) in the
record's ``track``. Seeding replaces the defaults table by table.
"""

from __future__ import annotations

import copy
from typing import Any

from simulator.clock import Source
from simulator.errors import InvalidArgument
from simulator.handler_support.matching import first_script
from simulator.state.status_track import StatusTrack
from simulator.state.store import Organization, Store
from simulator.wire import Json, decimal_digits

KEY = "longtail"
BASE_USDC = "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
DEFAULTS: Json = {
    "assets": [
        {"caip19": "eip155:1/slip44:60", "symbol": "ETH", "decimals": 18, "name": "Ether", "usd": "3000"},
        {
            "caip19": "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
            "symbol": "USDC",
            "decimals": 6,
            "name": "USD Coin",
            "stable": True,
            "usd": "1",
        },
        {"caip19": "eip155:8453/slip44:60", "symbol": "ETH", "decimals": 18, "name": "Ether", "usd": "3000"},
        {
            "caip19": "eip155:8453/erc20:0x4200000000000000000000000000000000000006",
            "symbol": "WETH",
            "decimals": 18,
            "name": "Wrapped Ether",
            "usd": "3000",
        },
        {"caip19": BASE_USDC, "symbol": "USDC", "decimals": 6, "name": "USD Coin", "stable": True, "usd": "1"},
        {
            "caip19": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501",
            "symbol": "SOL",
            "decimals": 9,
            "name": "Solana",
            "usd": "150",
        },
        {
            "caip19": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
            "symbol": "USDC",
            "decimals": 6,
            "name": "USD Coin",
            "stable": True,
            "usd": "1",
        },
    ],
    "vaults": [
        {
            "vaultAddress": "0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183",
            "provider": "EARN_PROVIDER_MORPHO",
            "caip19": BASE_USDC,
            "tvl": "250000000000000",
            "apyPct": "0.0612",
            "name": "Steakhouse USDC",
            "curator": "Steakhouse Financial",
        },
    ],
    "tvcImages": [],
    "qosVersions": {
        "available": ["v2026.2.6", "v0.6.0", "v0.5.2"],
        "latest": "v2026.2.6",
    },  # the quickstart's, then older
    "statuses": [],
}
SOLANA_ALIASES = {
    "solana:mainnet": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    "solana:devnet": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
}


def apply(scenario: Any, store: Store) -> None:
    """Seed ``store`` from a scenario's ``longtail`` key (the hook simulator.scenario.seed calls)."""
    apply_section(store, scenario.data.get(KEY) or {})


def apply_section(store: Store, section: Json) -> None:
    """Each table the section names replaces the current one (scripts are added after earlier ones)."""
    for table, value in section.items():
        if table == "statuses":
            store.longtail_seed["statuses"] = [*store.longtail_seed.get("statuses", []), *copy.deepcopy(value)]
        else:
            store.longtail_seed[table] = copy.deepcopy(value)


def seeded(store: Store, table: str) -> Any:
    return store.longtail_seed.get(table, DEFAULTS[table])


# the market ---------------------------------------------------------------------------------------
def canonical_caip2(caip2: str) -> str:
    return SOLANA_ALIASES.get(caip2, caip2)


def assets_on(store: Store, caip2: str) -> list[Json]:
    wanted = canonical_caip2(caip2)
    return [a for a in seeded(store, "assets") if a["caip19"].split("/", 1)[0] == wanted]


def asset(store: Store, caip19: str, field: str) -> Json:
    """The seeded asset ``caip19`` (the EVM address part in any letter case), or a refusal naming ``field``."""
    wanted = caip19.lower() if caip19.startswith("eip155:") else caip19
    for entry in seeded(store, "assets"):
        known = entry["caip19"].lower() if entry["caip19"].startswith("eip155:") else entry["caip19"]
        if known == wanted:
            return dict(entry)
    if "/" not in caip19 or ":" not in caip19.split("/", 1)[0]:
        raise InvalidArgument(f"invalid {field} {caip19!r}: expected a CAIP-19 asset id such as {BASE_USDC}")
    raise InvalidArgument(
        f"unsupported {field} {caip19}: the asset is not in the simulated market "
        "(seed it under the scenario's longtail.assets)"
    )


# status sequences ---------------------------------------------------------------------------------
def new_track(
    store: Store, org: Organization, user: Any, activity_type: str, params: Json, now_ms: int, default: list[Json]
) -> StatusTrack:
    """The status sequence a new asynchronous request follows: a matching script's, else ``default``."""
    scripts = [] if user is None else seeded(store, "statuses")
    script = first_script(scripts, "status:", store, org, user, activity_type, params)
    return StatusTrack.start(default if script is None else script["sequence"], now_ms)


def root_of(store: Store, org: Organization) -> Organization:
    """The top organization of ``org``'s tree (where swap and earn configuration live)."""
    while org.parent_id and org.parent_id in store.orgs:
        org = store.orgs[org.parent_id]
    return org


def tx_hash(source: Source, caip2: str) -> str:
    """A transaction id in the chain's own form (EVM 0x-hex hash, Solana base58 signature)."""
    if caip2.startswith("solana:"):
        import base58

        return str(base58.b58encode(source.bytes(64)).decode())
    return "0x" + bytes(source.bytes(32)).hex()


def amount(value: str, field: str, allow_zero: bool = False) -> int:
    """A base-unit amount (a decimal integer string), refused with the field's name otherwise."""
    if not decimal_digits(value) or (int(value) == 0 and not allow_zero):
        raise InvalidArgument(f"invalid {field} {value!r}: expected a positive integer amount in base units")
    return int(value)


def bps(value: str | None, field: str, maximum: int, default: int = 0) -> int:
    if value in (None, ""):
        return default
    if not decimal_digits(str(value)) or int(str(value)) > maximum:
        raise InvalidArgument(f"invalid {field} {value!r}: expected basis points from 0 to {maximum}")
    return int(str(value))


# the organization's addresses -----------------------------------------------------------------------
CHAIN_FORMATS = {"eip155": "ADDRESS_FORMAT_ETHEREUM", "solana": "ADDRESS_FORMAT_SOLANA"}


def address_format(org: Organization, address: str, field: str) -> str:
    """The address format of a wallet account or private-key address of ``org`` (EVM in any case)."""
    fold = address.lower() if address.startswith("0x") else address
    for wallet in org.wallets.values():
        for account in wallet.accounts:
            if (account.address.lower() if fold.startswith("0x") else account.address) == fold:
                return account.address_format
    for key in org.private_keys.values():
        if address == key.private_key_id:
            raise InvalidArgument(f"invalid {field}: private key identifiers are not supported; use an address")
        for entry in key.addresses:
            if (entry["address"].lower() if fold.startswith("0x") else entry["address"]) == fold:
                return str(entry["format"])
    raise InvalidArgument(
        f"invalid {field} {address}: not a wallet account or private key address of organization {org.organization_id}"
    )


def signer_on(org: Organization, address: str, caip2: str, field: str = "signWith") -> None:
    """Refuse an address of ``org`` that cannot sign on the chain ``caip2``."""
    found = address_format(org, address, field)
    wanted = CHAIN_FORMATS.get(caip2.split(":", 1)[0])
    if wanted is None:
        raise InvalidArgument(f"unsupported chain {caip2}: the simulator supports eip155 and solana chains here")
    if found != wanted:
        raise InvalidArgument(f"invalid {field} {address}: a {found} address cannot sign on {caip2} (needs {wanted})")
