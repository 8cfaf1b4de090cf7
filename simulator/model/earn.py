"""Earn's rules, as its handlers and its reads share them: wrappers found in the tree's top
organization, requests found across the tree, and positions that grow at the vault's APY.

A position grows linearly at the vault's APY between completed deposits and withdrawals; on every
event its yield is split into Turnkey's fee (10%), the client fee (``clientFeeBps`` of the yield,
claimable) and the depositor's part. The handlers are in ``simulator.activities.earn``.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal

from simulator.errors import InvalidArgument, NotFound
from simulator.standins import longtail
from simulator.state import longtail_records
from simulator.state.longtail_records import EarnRequest, EarnWrapper
from simulator.state.store import Organization, Store
from simulator.wire import Json

TURNKEY_YIELD_BPS = 1000  # "Turnkey's fee (10% of yield by default)"
YEAR_MS = 365 * 24 * 3600 * 1000


def catalogue_vault(store: Store, address: str, caip2: str) -> Json:
    for vault in longtail.seeded(store, "vaults"):
        if vault["vaultAddress"].lower() == address.lower():
            if vault["caip19"].split("/", 1)[0] != caip2:
                raise InvalidArgument(f"vault {address} lives on {vault['caip19'].split('/', 1)[0]}, not {caip2}")
            return dict(vault)
    raise InvalidArgument(f"vault {address} is not in the Earn vault catalogue (list_earn_vaults)")


def find_wrapper(store: Store, org: Organization, address: str) -> EarnWrapper:
    found = longtail_records.earn_wrappers(longtail.root_of(store, org).longtail).get(address.lower())
    if found is None:
        raise NotFound(
            f"no Earn wrapper {address} is deployed for organization {org.organization_id}",
            error_code="EARN_SETUP_REQUIRED",
        )
    return found


def evm_address(seed: str) -> str:
    return "0x" + hashlib.sha256(seed.encode()).hexdigest()[:40]


def tree(store: Store, org: Organization) -> list[Organization]:
    root = longtail.root_of(store, org)
    return [root, *store.descendants(root.organization_id)]


def find_request(store: Store, org: Organization, request_id: str) -> EarnRequest | None:
    for member in tree(store, org):
        found = longtail_records.earn_requests(member.longtail).get(request_id)
        if found is not None:
            return found
    return None


# positions ----------------------------------------------------------------------------------------
def completed(store: Store, org: Organization, wrapper: EarnWrapper, now_ms: int) -> list[tuple[int, EarnRequest]]:
    """(completion time, request) of every completed deposit and withdrawal into ``wrapper``, in time order."""
    done = []
    for member in tree(store, org):
        for request in longtail_records.earn_requests(member.longtail).values():
            if request.wrapper != wrapper.wrapper_address or request.kind not in ("deposit", "withdraw"):
                continue
            step = request.track.reached(now_ms)
            if step["status"] == "COMPLETED":
                done.append((int(step["reachedMs"]), request))
    return sorted(done, key=lambda pair: pair[0])


def position(store: Store, org: Organization, wrapper: EarnWrapper, address: str, now_ms: int) -> Json:
    """One wallet's position in one wrapper: value net of fees, lifetime totals, client fee accrued."""
    fold = address.lower()
    state: Json = {"value": Decimal(0), "deposited": 0, "withdrawn": 0, "clientFee": Decimal(0), "at": 0}
    for at, request in completed(store, org, wrapper, now_ms):
        if request.sign_with.lower() != fold:
            continue
        accrue(state, wrapper, at)
        amount = request.amount or 0  # deposits and withdrawals always carry one
        if request.kind == "deposit":
            state["value"] += amount
            state["deposited"] += amount
        else:
            state["value"] -= min(Decimal(amount), state["value"])
            state["withdrawn"] += amount
            if request.max:
                state.update(value=Decimal(0), deposited=0, withdrawn=0)
    accrue(state, wrapper, now_ms)
    return {**state, "currentValue": int(state["value"])}


def accrue(state: Json, wrapper: EarnWrapper, until_ms: int) -> None:
    if state["value"] > 0 and until_ms > state["at"]:
        gross = state["value"] * Decimal(str(wrapper.vault.get("apyPct", "0"))) * (until_ms - state["at"]) / YEAR_MS
        client = gross * wrapper.client_fee_bps / 10_000
        state["clientFee"] += client
        state["value"] += gross - client - gross * TURNKEY_YIELD_BPS / 10_000
    state["at"] = until_ms


def wallets_in(store: Store, org: Organization, wrapper: EarnWrapper, now_ms: int) -> set[str]:
    return {r.sign_with.lower() for _, r in completed(store, org, wrapper, now_ms)}


def claimable_fee(store: Store, org: Organization, wrapper: EarnWrapper, now_ms: int) -> int:
    accrued = sum(
        position(store, org, wrapper, a, now_ms)["clientFee"] for a in wallets_in(store, org, wrapper, now_ms)
    )
    return int(accrued) - int(wrapper.claimed_fee)
