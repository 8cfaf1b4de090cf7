"""The local chain stand-in behind the broadcast activities: nonces, status sequences, fees, blocks.

No node runs: a sent transaction is signed for real and kept; its status moves along the service's
values (INITIALIZED → BROADCASTING → INCLUDED, or FAILED) on the simulator clock or with polls of
get_send_transaction_status; nonces count per address and chain. A scenario's ``broadcast`` key
seeds it:

```yaml
broadcast:
  nonces:      # starting nonces (the next one to use) per address and chain
    - {address: "0x...", caip2: "eip155:1", nonce: 7, gasStationNonce: 2}
  gasUsage:    # get_gas_usage per organization (id or name); sponsored fees add to usageUsd
    - {organization: Acme, windowDurationMinutes: 60, windowLimitUsd: "50", usageUsd: "12.5"}
  statuses:    # first match decides; match as a rule's (type, organization, user, userTag, parameters, occurrence)
    - {name: the 2nd transfer reverts, match: {type: ETH_SEND_TRANSACTION, occurrence: 2}, outcome: reverted}
    - {name: stuck on Base, match: {parameters: {caip2: "eip155:8453"}}, outcome: stuck}
    - name: custom
      sequence: [{status: INITIALIZED}, {status: FAILED, after: {seconds: 5}, error: {message: dropped}}]
```

``outcome`` is ``included`` (the default), ``failed`` (dropped before inclusion: no hash, the nonce
stays used), ``reverted`` (mined and reverted: a hash, a fee, a revert chain) or ``stuck`` (never
leaves BROADCASTING); ``sequence`` spells the steps out as the long tail's status scripts do.
"""

from __future__ import annotations

import copy
from typing import Any

from simulator.crypto.hashing import keccak256
from simulator.handler_support.matching import first_script
from simulator.standins import longtail
from simulator.state.records import SentTransaction
from simulator.state.status_track import StatusTrack
from simulator.state.store import Organization, Store
from simulator.wire import Json

KEY = "broadcast"
OUTCOMES = ("included", "failed", "reverted", "stuck")
ETH_BLOCK_MS, SOL_SLOT_MS = 12_000, 400
FINALITY_MS = {"eip155": 15 * 60_000, "solana": 13_000}  # ~2 epochs on Ethereum, ~32 slots on Solana
DEFAULT_GAS_USAGE = {"windowDurationMinutes": 1440, "windowLimitUsd": "100", "usageUsd": "0"}
NATIVE = {  # caip2 reference -> (symbol, name); every other EVM chain pays in ETH
    "137": ("POL", "Polygon Ecosystem Token"),
    "80002": ("POL", "Polygon Ecosystem Token"),
    "56": ("BNB", "BNB"),
    "97": ("BNB", "BNB"),
    "143": ("MON", "Monad"),
    "10143": ("MON", "Monad"),
}


# the scenario's key ---------------------------------------------------------------------------------
def apply(scenario: Any, store: Store) -> None:
    """Seed ``store`` from a scenario's ``broadcast`` key (the hook the scenario loader calls)."""
    apply_section(store, scenario.data.get(KEY) or {})


def apply_section(store: Store, section: Json) -> None:
    for entry in section.get("nonces", []):
        for field, prefix in (("nonce", ""), ("gasStationNonce", "station ")):
            if field in entry:
                store.chain_nonces[nonce_key(entry["caip2"], entry["address"], prefix)] = int(entry[field])
    for entry in section.get("gasUsage", []):
        store.broadcast_seed.setdefault("gasUsage", {})[entry["organization"]] = {
            k: v for k, v in entry.items() if k != "organization"
        }
    scripts = section.get("statuses", [])
    store.broadcast_seed["statuses"] = [*store.broadcast_seed.get("statuses", []), *copy.deepcopy(scripts)]


# nonces ---------------------------------------------------------------------------------------------
def nonce_key(caip2: str, address: str, prefix: str = "") -> str:
    folded = address.lower() if address.startswith("0x") else address
    return f"{prefix}{longtail.canonical_caip2(caip2)} {folded}"


def next_nonce(store: Store, caip2: str, address: str, station: bool = False) -> int:
    return store.chain_nonces.get(nonce_key(caip2, address, "station " if station else ""), 0)


def use_nonce(store: Store, caip2: str, address: str, nonce: int, station: bool = False) -> None:
    """The nonce is taken: the next one is past it (a later nonce leaves a gap, as a node queues it)."""
    key = nonce_key(caip2, address, "station " if station else "")
    store.chain_nonces[key] = max(store.chain_nonces.get(key, 0), nonce + 1)


# status sequences -----------------------------------------------------------------------------------
def new_track(store: Store, org: Organization, user: Any, activity_type: str, params: Json, now_ms: int) -> StatusTrack:
    """The status steps a new transaction follows: the first matching script's, else inclusion."""
    scripts = [] if user is None else store.broadcast_seed.get("statuses", [])
    script = first_script(scripts, "broadcast:", store, org, user, activity_type, params)
    if script is None:
        steps = steps_for("included", {})
    else:
        steps = script.get("sequence") or steps_for(script.get("outcome", "included"), script.get("error", {}))
    return StatusTrack.start(steps, now_ms)


def steps_for(outcome: str, error: Json) -> list[Json]:
    sent: list[Json] = [{"status": "INITIALIZED"}, {"status": "BROADCASTING", "after": {"polls": 1, "seconds": 1}}]
    last: Json = {"after": {"polls": 2, "seconds": 3}}
    if outcome == "stuck":
        return sent
    if outcome == "failed":
        return [*sent, {**last, "status": "FAILED", "error": {"message": "transaction dropped (simulated)", **error}}]
    if outcome == "reverted":
        return [*sent, {**last, "status": "FAILED", "reverted": True, "error": error}]
    return [*sent, {**last, "status": "INCLUDED"}]


def status_of(sent: SentTransaction, now_ms: int, poll: bool = False) -> Json:
    return sent.track.reached(now_ms, poll)


def on_chain(sent: SentTransaction, now_ms: int) -> Json | None:
    """The step of a transaction that made it into a block (included, or mined and reverted), else None."""
    step = status_of(sent, now_ms)
    return step if step["status"] == "INCLUDED" or step.get("reverted") else None


# what the chain shows ---------------------------------------------------------------------------------
def native_asset(caip2: str) -> Json:
    canonical = longtail.canonical_caip2(caip2)
    if canonical.startswith("solana:"):
        return {"caip19": f"{canonical}/slip44:501", "symbol": "SOL", "name": "Solana", "decimals": 9}
    symbol, name = NATIVE.get(canonical.split(":", 1)[1], ("ETH", "Ether"))
    return {"caip19": f"{canonical}/slip44:60", "symbol": symbol, "name": name, "decimals": 18}


def block_of(caip2: str, included_ms: int) -> Json:
    """A block (or slot) number counted from the epoch at the chain's pace, and a hash derived from it."""
    solana = caip2.startswith("solana:")
    number = included_ms // (SOL_SLOT_MS if solana else ETH_BLOCK_MS)
    digest = keccak256(f"{longtail.canonical_caip2(caip2)}/{number}".encode())
    if solana:
        import base58

        block_hash = base58.b58encode(digest).decode()
    else:
        block_hash = "0x" + digest.hex()
    return {"number": str(number), "hash": block_hash, "timestamp": str(included_ms // 1000)}


def finality(caip2: str, included_ms: int, now_ms: int) -> str:
    return "FINALIZED" if now_ms - included_ms >= FINALITY_MS[caip2.split(":", 1)[0]] else "CONFIRMED"


def usd_of(store: Store, caip2: str, amount: int) -> float:
    """What ``amount`` base units of the chain's native asset are worth at the simulated market's price."""
    asset = native_asset(caip2)
    for entry in longtail.seeded(store, "assets"):
        if entry["symbol"] == asset["symbol"] and "usd" in entry:
            return float(amount / 10 ** int(asset["decimals"]) * float(entry["usd"]))
    return 0.0


def gas_usage(store: Store, org: Organization, now_ms: int) -> Json:
    seeded = store.broadcast_seed.get("gasUsage", {})
    base = {**DEFAULT_GAS_USAGE, **(seeded.get(org.organization_id) or seeded.get(org.name) or {})}
    window_ms = int(base["windowDurationMinutes"]) * 60_000
    sponsored = [
        s
        for s in store.sent_transactions.values()
        if s.organization_id == org.organization_id and s.sponsored and now_ms - s.submitted_ms < window_ms
    ]
    used = float(base["usageUsd"]) + sum(usd_of(store, s.caip2, s.fee) for s in sponsored)
    return {
        "windowDurationMinutes": int(base["windowDurationMinutes"]),
        "windowLimitUsd": str(base["windowLimitUsd"]),
        "usageUsd": f"{used:.6f}".rstrip("0").rstrip("."),
    }
