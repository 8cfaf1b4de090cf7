"""Earn's reads: request statuses (each poll moves a request along its sequence), the vault
catalogue, the organization's wrappers and one wallet's positions."""

from __future__ import annotations

from decimal import Decimal

from simulator.errors import InvalidArgument, NotFound
from simulator.handler_support.query_context import QueryContext
from simulator.model import earn
from simulator.queries.pagination import paginate
from simulator.standins import longtail
from simulator.state import longtail_records
from simulator.state.longtail_records import EarnWrapper
from simulator.wire import Json

TX_FIELDS = {"deploy": "deployTxHash", "deposit": "depositTxHash", "withdraw": "withdrawTxHash", "claim": "claimTxHash"}


def get_earn_deploy_status(q: QueryContext, body: Json) -> Json:
    return status_of(q, body["deployRequestId"], "deploy")


def get_earn_deposit_status(q: QueryContext, body: Json) -> Json:
    return status_of(q, body["depositRequestId"], "deposit")


def get_earn_withdraw_status(q: QueryContext, body: Json) -> Json:
    return status_of(q, body["withdrawRequestId"], "withdraw")


def get_claim_earn_fees_status(q: QueryContext, body: Json) -> Json:
    return status_of(q, body["claimRequestId"], "claim")


def status_of(q: QueryContext, request_id: str, kind: str) -> Json:
    request = longtail_records.earn_requests(q.org.longtail).get(request_id)
    if request is None or request.kind != kind:
        raise NotFound(
            f"{kind} request {request_id} not found in organization {q.org.organization_id}",
            error_code="REQUEST_INVALID",
        )
    step = request.track.reached(q.now_ms, poll=True)
    out: Json = {"status": step["status"]}
    if step["status"] == "COMPLETED":
        out[TX_FIELDS[kind]] = request.tx_hash
    elif step["status"] == "FAILED":
        out["error"] = str(step.get("error") or "the transaction reverted (simulated)")
    return out


def list_earn_vaults(q: QueryContext, body: Json) -> Json:
    wanted = body["caip19"].lower()
    enabled = {w.vault["vaultAddress"].lower() for w in wrappers(q)}
    vaults = [
        v
        for v in longtail.seeded(q.store, "vaults")
        if v["caip19"].lower() == wanted and body.get("provider") in (None, "", v["provider"])
    ]
    vaults.sort(key=lambda v: usd(q, v["caip19"], int(v.get("tvl", "0"))), reverse=True)
    shown = [
        {
            **{k: v[k] for k in ("vaultAddress", "provider", "caip19", "tvl", "apyPct", "name", "curator") if k in v},
            "enabled": v["vaultAddress"].lower() in enabled,
            "display": display(q, v["caip19"], int(v.get("tvl", "0"))),
        }
        for v in vaults
    ]
    page = paginate(shown, body.get("paginationOptions"), key=lambda v: str(v["vaultAddress"]))
    cursors = [v["vaultAddress"] for v in page]
    info = {
        "hasNextPage": bool(page) and page[-1] is not shown[-1],
        "hasPreviousPage": bool(page) and page[0] is not shown[0],
        "startCursor": cursors[0] if cursors else "",
        "endCursor": cursors[-1] if cursors else "",
    }
    return {"vaults": page, "pageInfo": info}


def list_earn_enabled_vaults(q: QueryContext, body: Json) -> Json:
    parent_view = q.org.parent_id is None
    out = []
    for wrapper in wrappers(q):
        vault = wrapper.vault
        if body.get("provider") not in (None, "", vault["provider"]):
            continue
        if body.get("caip19") and body["caip19"].lower() != vault["caip19"].lower():
            continue
        out.append(enabled_view(q, wrapper, parent_view))
    return {"enabledVaults": out}


def enabled_view(q: QueryContext, wrapper: EarnWrapper, parent_view: bool) -> Json:
    vault, fee = wrapper.vault, wrapper.client_fee_bps
    total = sum(
        earn.position(q.store, q.org, wrapper, a, q.now_ms)["currentValue"]
        for a in earn.wallets_in(q.store, q.org, wrapper, q.now_ms)
    )
    apy = Decimal(str(vault.get("apyPct", "0")))
    view: Json = {
        "vaultAddress": vault["vaultAddress"],
        "wrapperAddress": wrapper.wrapper_address,
        "provider": vault["provider"],
        "caip19": vault["caip19"],
        "apyPct": str(vault.get("apyPct", "0")),
        "netApyPct": str(apy * (10_000 - fee - earn.TURNKEY_YIELD_BPS) / 10_000),
        "totalDeposited": str(total),
        "display": display(q, vault["caip19"], total),
        "clientFeeBps": str(fee),
        "depositsDisabled": wrapper.deposits_disabled,
        "name": vault.get("name", ""),
        "curator": vault.get("curator", ""),
    }
    if parent_view:  # "only returned to the parent org; unset when a sub-org queries"
        claimable = max(0, earn.claimable_fee(q.store, q.org, wrapper, q.now_ms))
        view.update(claimableClientFee=str(claimable), clientFeeWallet=wrapper.client_fee_wallet)
        view["claimableClientFeeDisplay"] = display(q, vault["caip19"], claimable)
    return view


def list_earn_positions(q: QueryContext, body: Json) -> Json:
    out = []
    for wrapper in wrappers(q):
        held = earn.position(q.store, q.org, wrapper, body["walletAddress"], q.now_ms)
        if held["currentValue"] <= 0 and held["deposited"] == 0:
            continue
        caip19 = wrapper.vault["caip19"]
        totals = {
            "currentValue": held["currentValue"],
            "totalDeposited": held["deposited"],
            "totalWithdrawn": held["withdrawn"],
        }
        shown = {
            f"{k}{unit}": display(q, caip19, v)[unit.lower()] for k, v in totals.items() for unit in ("Usd", "Crypto")
        }
        out.append(
            {
                "vaultAddress": wrapper.vault["vaultAddress"],
                "wrapperAddress": wrapper.wrapper_address,
                "provider": wrapper.vault["provider"],
                "caip19": caip19,
                **{k: str(v) for k, v in totals.items()},
                "display": shown,
                "depositsDisabled": wrapper.deposits_disabled,
            }
        )
    return {"positions": out}


def wrappers(q: QueryContext) -> list[EarnWrapper]:
    return list(longtail_records.earn_wrappers(longtail.root_of(q.store, q.org).longtail).values())


def usd(q: QueryContext, caip19: str, raw: int) -> Decimal:
    try:
        entry = longtail.asset(q.store, caip19, "caip19")
        return Decimal(raw) / (Decimal(10) ** int(entry["decimals"])) * Decimal(str(entry.get("usd", "0")))
    except (InvalidArgument, ArithmeticError):  # an asset the market does not price shows no USD value
        return Decimal(0)


def display(q: QueryContext, caip19: str, raw: int) -> Json:
    try:
        decimals = int(longtail.asset(q.store, caip19, "caip19")["decimals"])
    except InvalidArgument:  # unknown asset: the raw amount is all there is
        decimals = 0
    return {"usd": f"{usd(q, caip19, raw):.2f}", "crypto": str(Decimal(raw) / (Decimal(10) ** decimals))}
