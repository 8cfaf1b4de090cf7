"""Query handlers, one per query operation; the key is the URL segment and the schema name.

A handler takes the QueryContext and the validated body and returns the response object.
Queries are not subject to policies: any authenticated user of an organization (or of an
ancestor) reads it all.
"""

from __future__ import annotations

from collections.abc import Callable

from simulator.queries import activities, organization, users, wallets
from simulator.queries.context import Json, QueryContext

Query = Callable[[QueryContext, Json], Json]

QUERIES: dict[str, Query] = {
    "whoami": organization.whoami,
    "get_organization_configs": organization.get_organization_configs,
    "list_fiat_on_ramp_credentials": organization.list_fiat_on_ramp_credentials,
    "get_oauth2_credential": organization.get_oauth2_credential,
    "list_oauth2_credentials": organization.list_oauth2_credentials,
    "list_smart_contract_interfaces": organization.list_smart_contract_interfaces,
    "get_smart_contract_interface": organization.get_smart_contract_interface,
    "list_policies": organization.list_policies,
    "get_policy": organization.get_policy,
    "list_users": users.list_users,
    "get_user": users.get_user,
    "get_api_keys": users.get_api_keys,
    "get_api_key": users.get_api_key,
    "get_authenticators": users.get_authenticators,
    "get_authenticator": users.get_authenticator,
    "list_user_tags": users.list_user_tags,
    "list_wallets": wallets.list_wallets,
    "get_wallet": wallets.get_wallet,
    "list_wallet_accounts": wallets.list_wallet_accounts,
    "list_private_keys": wallets.list_private_keys,
    "get_private_key": wallets.get_private_key,
    "list_private_key_tags": wallets.list_private_key_tags,
    "get_wallet_address_balances": wallets.get_wallet_address_balances,
    "get_activity": activities.get_activity,
    "list_activities": activities.list_activities,
    "get_policy_evaluations": activities.get_policy_evaluations,
    "list_app_proofs": activities.list_app_proofs,
}

__all__ = ["QUERIES", "QueryContext"]
