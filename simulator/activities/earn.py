"""Earn: fee wrappers over the seeded vault catalogue, deposits and withdrawals whose transactions
confirm on the simulator clock, positions that earn the vault's APY, and fee claims.

Wrappers belong to the top organization of the tree (every sub-organization deposits into them).
Each deposit, withdrawal, deployment and claim is a request with a status sequence
(PENDING → COMPLETED after ``CONFIRM_SECONDS``, or a scripted one); only completed ones move money.
A position grows linearly at the vault's APY between events; on every event its yield is split into
Turnkey's fee (10%), the client fee (``clientFeeBps`` of the yield, claimable) and the depositor's part.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal
from typing import Any

from simulator.errors import InvalidArgument, NotFound
from simulator.handling import provider_standin
from simulator.handling.context import Context
from simulator.state import longtail_records
from simulator.state.longtail_records import EarnRequest, EarnWrapper
from simulator.state.store import Organization, Store
from simulator.wire import Json

TURNKEY_YIELD_BPS = 1000  # "Turnkey's fee (10% of yield by default)"
MAX_CLIENT_FEE_BPS = 4000  # client plus Turnkey at most 5,000 bps of yield
CONFIRM_SECONDS = {"deploy": 15, "deposit": 5, "withdraw": 5, "claim": 5}
YEAR_MS = 365 * 24 * 3600 * 1000


# activities ---------------------------------------------------------------------------------------
def earn_deploy_wrapper(ctx: Context, params: Json) -> Json:
    vault = catalogue_vault(ctx.store, params["vaultAddress"], params["chainCaip2"])
    fee = provider_standin.bps(params["clientFeeBps"], "clientFeeBps", MAX_CLIENT_FEE_BPS)
    provider_standin.signer_on(ctx.org, params["clientFeeWallet"], params["chainCaip2"], "clientFeeWallet")
    root = provider_standin.root_of(ctx.store, ctx.org)
    seed = f"{root.organization_id}/{vault['vaultAddress'].lower()}/{fee}/{params['clientFeeWallet'].lower()}"
    wrapper_address = evm_address(seed + "/wrapper")
    existing = longtail_records.earn_wrappers(root.longtail).get(wrapper_address.lower())
    if existing is not None:  # identical parameters re-derive the same wrapper: nothing is redeployed
        return deployed(existing)
    request = new_request(ctx, "deploy", params, wrapper_address=wrapper_address)
    wrapper = EarnWrapper(
        wrapper_address,
        evm_address(seed + "/splitter"),
        request.id,
        ctx.org.organization_id,
        vault,
        fee,
        params["clientFeeWallet"],
    )
    longtail_records.earn_wrappers(root.longtail)[wrapper_address.lower()] = wrapper
    return deployed(wrapper)


def deployed(wrapper: EarnWrapper) -> Json:
    return {
        "wrapperAddress": wrapper.wrapper_address,
        "splitterAddress": wrapper.splitter_address,
        "deployRequestId": wrapper.deploy_request_id,
    }


def earn_deposit(ctx: Context, params: Json) -> Json:
    wrapper = live_wrapper(ctx, params["wrapperAddress"], params["chainCaip2"])
    if wrapper.deposits_disabled:
        raise InvalidArgument(f"deposits to wrapper {wrapper.wrapper_address} are disabled (earn_set_wrapper_state)")
    provider_standin.signer_on(ctx.org, params["signWith"], params["chainCaip2"])
    amount = provider_standin.amount(params["assets"], "assets")
    request = new_request(ctx, "deposit", params, amount=amount, wrapper=wrapper.wrapper_address)
    return {"depositRequestId": request.id}


def earn_withdraw(ctx: Context, params: Json) -> Json:
    wrapper = live_wrapper(ctx, params["wrapperAddress"], params["chainCaip2"])
    provider_standin.signer_on(ctx.org, params["signWith"], params["chainCaip2"])
    value = position(ctx.store, ctx.org, wrapper, params["signWith"], ctx.now_ms)["currentValue"]
    raw = params["amountValue"]
    amount = value if raw == "MAX" else provider_standin.amount(raw, "amountValue")
    if amount <= 0 or amount > value:
        raise InvalidArgument(f"amountValue {raw} exceeds the position's current value {value} in this wrapper")
    request = new_request(ctx, "withdraw", params, amount=amount, max=raw == "MAX", wrapper=wrapper.wrapper_address)
    return {"withdrawRequestId": request.id}


def earn_set_wrapper_state(ctx: Context, params: Json) -> Json:
    wrapper = find_wrapper(ctx.store, ctx.org, params["wrapperAddress"])
    wrapper.deposits_disabled = bool(params["depositsDisabled"])
    return {"wrapperAddress": wrapper.wrapper_address, "depositsDisabled": wrapper.deposits_disabled}


def claim_earn_fees(ctx: Context, params: Json) -> Json:
    wrapper = find_wrapper(ctx.store, ctx.org, params["wrapperAddress"])
    claimable = claimable_fee(ctx.store, ctx.org, wrapper, ctx.now_ms)
    if claimable <= 0:
        raise InvalidArgument(f"no client fees have accrued on wrapper {wrapper.wrapper_address} to claim")
    wrapper.claimed_fee += claimable
    request = new_request(ctx, "claim", params, amount=claimable, wrapper=wrapper.wrapper_address)
    return {"claimRequestId": request.id}


# records ------------------------------------------------------------------------------------------
def new_request(ctx: Context, kind: str, params: Json, **fields: Any) -> EarnRequest:
    """A request of ``kind`` with its status track; ``fields`` are its kind's (EarnRequest)."""
    done = {"status": "COMPLETED", "after": {"seconds": CONFIRM_SECONDS[kind]}}
    user = ctx.principal.user if ctx.principal else None
    track = provider_standin.new_track(
        ctx.store, ctx.org, user, ctx.activity_type, params, ctx.now_ms, [{"status": "PENDING"}, done]
    )
    request = EarnRequest(ctx.new_id(), kind, params.get("signWith", ""), track, **fields)
    request.tx_hash = provider_standin.tx_hash(ctx.source, params.get("chainCaip2", "eip155:8453"))
    longtail_records.earn_requests(ctx.org.longtail)[request.id] = request
    return request


def catalogue_vault(store: Store, address: str, caip2: str) -> Json:
    for vault in provider_standin.seeded(store, "vaults"):
        if vault["vaultAddress"].lower() == address.lower():
            if vault["caip19"].split("/", 1)[0] != caip2:
                raise InvalidArgument(f"vault {address} lives on {vault['caip19'].split('/', 1)[0]}, not {caip2}")
            return dict(vault)
    raise InvalidArgument(f"vault {address} is not in the Earn vault catalogue (list_earn_vaults)")


def find_wrapper(store: Store, org: Organization, address: str) -> EarnWrapper:
    found = longtail_records.earn_wrappers(provider_standin.root_of(store, org).longtail).get(address.lower())
    if found is None:
        raise NotFound(
            f"no Earn wrapper {address} is deployed for organization {org.organization_id}",
            error_code="EARN_SETUP_REQUIRED",
        )
    return found


def live_wrapper(ctx: Context, address: str, caip2: str) -> EarnWrapper:
    wrapper = find_wrapper(ctx.store, ctx.org, address)
    if wrapper.vault["caip19"].split("/", 1)[0] != caip2:
        raise InvalidArgument(f"wrapper {address} lives on {wrapper.vault['caip19'].split('/', 1)[0]}, not {caip2}")
    deploy = find_request(ctx.store, ctx.org, wrapper.deploy_request_id)
    if deploy is None or deploy.track.reached(ctx.now_ms)["status"] != "COMPLETED":
        raise InvalidArgument(
            f"wrapper {address} is not deployed yet: poll get_earn_deploy_status until COMPLETED",
            error_code="EARN_SETUP_REQUIRED",
        )
    return wrapper


def evm_address(seed: str) -> str:
    return "0x" + hashlib.sha256(seed.encode()).hexdigest()[:40]


def tree(store: Store, org: Organization) -> list[Organization]:
    root = provider_standin.root_of(store, org)
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
