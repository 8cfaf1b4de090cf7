"""Reads of the organization itself: identity, configuration, credentials, policies."""

from __future__ import annotations

from simulator.queries.context import QueryContext
from simulator.state.records import Record
from simulator.wire import Json


def whoami(q: QueryContext, body: Json) -> Json:
    org, user = q.principal.organization, q.principal.user
    return {
        "organizationId": org.organization_id,
        "organizationName": org.name,
        "userId": user.user_id,
        "username": user.name,
    }


def get_organization_configs(q: QueryContext, body: Json) -> Json:
    quorum = {"threshold": q.org.root_threshold, "userIds": list(q.org.root_user_ids)}
    return {"configs": {"features": q.org.features_api(), "quorum": quorum}}


def list_fiat_on_ramp_credentials(q: QueryContext, body: Json) -> Json:
    return {"fiatOnRampCredentials": [c.to_api() for c in q.org.fiat_credentials.values()]}


def get_oauth2_credential(q: QueryContext, body: Json) -> Json:
    cred = q.find(q.org.oauth2_credentials, body["oauth2CredentialId"], "oauth2 credential")
    return {"oauth2Credential": cred.to_api()}


def list_oauth2_credentials(q: QueryContext, body: Json) -> Json:
    return {"oauth2Credentials": [c.to_api() for c in q.org.oauth2_credentials.values()]}


def list_smart_contract_interfaces(q: QueryContext, body: Json) -> Json:
    return {"smartContractInterfaces": [interface_api(c) for c in q.org.smart_contract_interfaces.values()]}


def get_smart_contract_interface(q: QueryContext, body: Json) -> Json:
    sci = q.find(q.org.smart_contract_interfaces, body["smartContractInterfaceId"], "smart contract interface")
    return {"smartContractInterface": interface_api(sci)}


def interface_api(record: Record) -> Json:
    """The stored interface; ``notes`` is required on the wire and "" when none was given (as the service writes it)."""
    return {"notes": "", **record.to_api()}


def list_policies(q: QueryContext, body: Json) -> Json:
    return {"policies": [p.to_api() for p in q.org.policies.values()]}


def get_policy(q: QueryContext, body: Json) -> Json:
    return {"policy": q.find(q.org.policies, body["policyId"], "policy").to_api()}
