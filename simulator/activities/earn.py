"""Earn: fee wrappers over the seeded vault catalogue, deposits and withdrawals whose transactions
confirm on the simulator clock, positions that earn the vault's APY, and fee claims.

Wrappers belong to the top organization of the tree (every sub-organization deposits into them).
Each deposit, withdrawal, deployment and claim is a request with a status sequence
(PENDING → COMPLETED after ``CONFIRM_SECONDS``, or a scripted one); only completed ones move money.
A position grows linearly at the vault's APY between events; on every event its yield is split into
Turnkey's fee (10%), the client fee (``clientFeeBps`` of the yield, claimable) and the depositor's part.
"""

from __future__ import annotations

from typing import Any

from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.model import documented_rules
from simulator.model.earn import (
    catalogue_vault,
    claimable_fee,
    evm_address,
    find_request,
    find_wrapper,
    position,
)
from simulator.standins import longtail
from simulator.state import longtail_records
from simulator.state.longtail_records import EarnRequest, EarnWrapper
from simulator.wire import Json

MAX_CLIENT_FEE_BPS = 4000  # client plus Turnkey at most 5,000 bps of yield
CONFIRM_SECONDS = {"deploy": 15, "deposit": 5, "withdraw": 5, "claim": 5}


# activities ---------------------------------------------------------------------------------------
def earn_deploy_wrapper(ctx: Context, params: Json) -> Json:
    vault = catalogue_vault(ctx.store, params["vaultAddress"], params["chainCaip2"])
    fee = longtail.bps(params["clientFeeBps"], "clientFeeBps", MAX_CLIENT_FEE_BPS)
    longtail.signer_on(ctx.org, params["clientFeeWallet"], params["chainCaip2"], "clientFeeWallet")
    root = longtail.root_of(ctx.store, ctx.org)
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
    longtail.signer_on(ctx.org, params["signWith"], params["chainCaip2"])
    amount = longtail.amount(params["assets"], "assets")
    request = new_request(ctx, "deposit", params, amount=amount, wrapper=wrapper.wrapper_address)
    return {"depositRequestId": request.id}


def earn_withdraw(ctx: Context, params: Json) -> Json:
    wrapper = live_wrapper(ctx, params["wrapperAddress"], params["chainCaip2"])
    longtail.signer_on(ctx.org, params["signWith"], params["chainCaip2"])
    value = position(ctx.store, ctx.org, wrapper, params["signWith"], ctx.now_ms)["currentValue"]
    raw = params["amountValue"]
    amount = value if raw == "MAX" else longtail.amount(raw, "amountValue")
    if amount <= 0 or amount > value:
        raise InvalidArgument(f"amountValue {raw} exceeds the position's current value {value} in this wrapper")
    request = new_request(ctx, "withdraw", params, amount=amount, max=raw == "MAX", wrapper=wrapper.wrapper_address)
    return {"withdrawRequestId": request.id}


def earn_set_wrapper_state(ctx: Context, params: Json) -> Json:
    parent_only(ctx, "earn_set_wrapper_state")
    wrapper = find_wrapper(ctx.store, ctx.org, params["wrapperAddress"])
    wrapper.deposits_disabled = bool(params["depositsDisabled"])
    return {"wrapperAddress": wrapper.wrapper_address, "depositsDisabled": wrapper.deposits_disabled}


def claim_earn_fees(ctx: Context, params: Json) -> Json:
    parent_only(ctx, "claim_earn_fees")
    wrapper = find_wrapper(ctx.store, ctx.org, params["wrapperAddress"])
    claimable = claimable_fee(ctx.store, ctx.org, wrapper, ctx.now_ms)
    if claimable <= 0:
        raise InvalidArgument(f"no client fees have accrued on wrapper {wrapper.wrapper_address} to claim")
    wrapper.claimed_fee += claimable
    request = new_request(ctx, "claim", params, amount=claimable, wrapper=wrapper.wrapper_address)
    return {"claimRequestId": request.id}


def parent_only(ctx: Context, operation: str) -> None:
    """docs: features/transaction-management/earn/manage-wrappers.mdx: managing wrappers (pausing deposits,
    claiming fees) is for the parent organization; its sub-organizations' wallets deposit and withdraw."""
    if ctx.org.parent_id and documented_rules.enforced(ctx):  # 0.2.0 let a sub-organization do it
        raise InvalidArgument(
            f"{operation} manages the parent organization's Earn wrappers: submit it to the parent organization; "
            f"sub-organization wallets deposit and withdraw only {documented_rules.LENIENT_HINT}"
        )


# records ------------------------------------------------------------------------------------------
def new_request(ctx: Context, kind: str, params: Json, **fields: Any) -> EarnRequest:
    """A request of ``kind`` with its status track; ``fields`` are its kind's (EarnRequest)."""
    done = {"status": "COMPLETED", "after": {"seconds": CONFIRM_SECONDS[kind]}}
    user = ctx.principal.user if ctx.principal else None
    track = longtail.new_track(
        ctx.store, ctx.org, user, ctx.activity_type, params, ctx.now_ms, [{"status": "PENDING"}, done]
    )
    request = EarnRequest(ctx.new_id(), kind, params.get("signWith", ""), track, **fields)
    request.tx_hash = longtail.tx_hash(ctx.source, params.get("chainCaip2", "eip155:8453"))
    longtail_records.earn_requests(ctx.org.longtail)[request.id] = request
    return request


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
