"""Organization features and smart contract interfaces (created, deleted)."""

from __future__ import annotations

from urllib.parse import urlparse

from simulator.errors import InvalidArgument, NotFound, PermissionDenied
from simulator.handling.context import Context
from simulator.state.records import Record
from simulator.wire import Json


def set_organization_feature(ctx: Context, params: Json) -> Json:
    """Root quorum only (policies cannot grant it); the webhook feature needs an http(s) URL."""
    if ctx.principal is not None and not ctx.principal.is_root:
        raise PermissionDenied(
            "request not authorized: only the root quorum can set organization features "
            f"(user {ctx.principal.user.user_id} is not a root user)"
        )
    name, value = params["name"], params["value"]
    if name == "FEATURE_NAME_WEBHOOK":
        check_webhook_url(value)
    ctx.org.features[name] = value
    return {"features": ctx.org.features_api()}


def remove_organization_feature(ctx: Context, params: Json) -> Json:
    """Root quorum only; removing a feature that is not set is refused."""
    if ctx.principal is not None and not ctx.principal.is_root:
        raise PermissionDenied("request not authorized: only the root quorum can remove organization features")
    if params["name"] not in ctx.org.features:
        raise NotFound(
            f"feature {params['name']} is not set on organization {ctx.org.organization_id}",
            error_code="REQUEST_INVALID",
        )
    del ctx.org.features[params["name"]]
    return {"features": ctx.org.features_api()}


def check_webhook_url(value: str) -> None:
    url = urlparse(value)
    if url.scheme not in ("http", "https") or not url.netloc:
        raise InvalidArgument(
            f"invalid webhook URL {value!r}: expected an absolute http(s) URL such as http://127.0.0.1:9000/hooks",
            error_code="INVALID_FQDN",
        )


def create_smart_contract_interface(ctx: Context, params: Json) -> Json:
    if params.get("type") == "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM":
        from simulator.chains.eth_calls import validate_abi

        validate_abi(params["smartContractInterface"])  # refused on upload, not later when a policy reads it
    sci_id = ctx.new_id()
    fields = {"smartContractInterfaceId": sci_id, "organizationId": ctx.org.organization_id, **params}
    ctx.org.smart_contract_interfaces[sci_id] = Record(sci_id, fields, ctx.now_ms)
    return {"smartContractInterfaceId": sci_id}


def delete_smart_contract_interface(ctx: Context, params: Json) -> Json:
    sci_id = params["smartContractInterfaceId"]
    ctx.org.find(ctx.org.smart_contract_interfaces, sci_id, "smart contract interface")
    del ctx.org.smart_contract_interfaces[sci_id]
    return {"smartContractInterfaceId": sci_id}
