"""The operation catalogue: every operation of the public API and the auth proxy, declared once.

One name runs through everything: ``create_wallet`` is the URL segment
(``/public/v1/submit/create_wallet``), the schema (``schemas/submit/create_wallet.json``), the
catalogue entry below, the handler (``simulator.activities.wallets.create_wallet``) and its
tests. Dispatch, coverage, the policy view, recording, replay and the README's operations table
all read this table.

An entry says:

- ``kind``: an activity (``submit``), a query or an auth-proxy endpoint (``proxy``);
- ``resource`` / ``action``: what the policy language's ``activity.resource`` and
  ``activity.action`` read, copied from the language's table ("Activity types by resource and
  action"); ``None`` where the table has no row for it (root-quorum-only activities, and the
  ones the public documents leave out), so a policy on resource/action never matches them;
- ``vote``: set on approve_activity and reject_activity, which vote on an existing activity
  instead of starting one;
- ``handler`` / ``preparer``: where the behaviour lives, as ``module:function`` relative to the
  kind's package (``wallets:create_wallet`` is ``simulator.activities.wallets.create_wallet``),
  imported on first use so that the catalogue sits below every domain module; ``None`` means the
  simulator does not serve it (501). simulator/handler_index.py, generated from this table by
  ``python tools/handler_index.py``, lists every one as a typed reference an editor and mypy follow;
- ``policy_context``: a ``module:function`` taking ``(ctx, params)`` that returns what the
  policy language reads beyond ``activity`` for this request (``eth.tx``, ``wallet``,
  ``private_key``, ...), computed before the decision;
- ``partial``: what an implemented operation still lacks, said plainly;
- flags of the service's semantics: ``root_quorum_only``, ``parent_may_run`` (a parent
  organization's credential runs it in a sub-organization on a user's behalf) and
  ``own_credentials`` (a user may run it on their own credentials without a policy).

The activity types each activity accepts, with their intent and result keys, are the
``x-activity-types`` of its schema (generated from the public swagger and the clients' versions):
``Schemas.activity_types(name)`` reads them, and tests/http/test_catalogue.py proves the catalogue,
the schemas and the swagger agree.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from typing import Any


class Kind(str, Enum):
    """An operation's kind, named as its URL says it (``/public/v1/submit/``, ``/query/``, the proxy's ``/v1/``);
    the value is what journal entries, the inspector and the control API show."""

    SUBMIT = "submit"  # an activity
    QUERY = "query"
    PROXY = "proxy"
    ACTIVITY = "submit"  # SUBMIT's name in 0.3: an alias, the same member


class Status(str, Enum):
    IMPLEMENTED = "implemented"
    PARTIAL = "partial"
    ABSENT = "absent"


_PACKAGES = {Kind.SUBMIT: "simulator.activities", Kind.QUERY: "simulator.queries", Kind.PROXY: "simulator.auth_proxy"}


@dataclass(frozen=True)
class Operation:
    name: str
    kind: Kind
    resource: str | None = None
    action: str | None = None
    handler: str | None = None
    preparer: str | None = None
    partial: str = ""
    root_quorum_only: bool = False
    parent_may_run: bool = False
    own_credentials: bool = False
    vote: str | None = None  # approve_activity / reject_activity: a vote on an existing activity
    policy_context: str | None = None  # what policies read beyond ``activity`` (eth.tx, wallet, ...)
    path: str = field(default="", compare=False)

    @property
    def status(self) -> Status:
        if self.handler is None and self.vote is None:
            return Status.ABSENT
        return Status.PARTIAL if self.partial else Status.IMPLEMENTED

    @property
    def key(self) -> str:
        """``submit/create_wallet``: the schema's name and the coverage row."""
        return f"{self.kind.value}/{self.name}"

    def handler_function(self) -> Callable[..., Any]:
        """The handler function (imported on first use), not run: the lifecycle or the pipeline runs it."""
        if self.handler is None:
            raise LookupError(f"{self.key} has no handler")
        return resolve(self.kind, self.handler)

    def run(self) -> Callable[..., Any]:
        """``handler_function``'s name in 0.3 (it never ran the handler): warns."""
        warnings.warn("Operation.run() is now Operation.handler_function()", DeprecationWarning, stacklevel=2)
        return self.handler_function()

    def prepare(self) -> Callable[..., Any] | None:
        return resolve(self.kind, self.preparer) if self.preparer else None

    def describe_for_policies(self) -> Callable[..., Any] | None:
        return resolve(self.kind, self.policy_context) if self.policy_context else None


def package_of(kind: Kind) -> str:
    """The package a ``module:function`` of ``kind`` names a module of (simulator/handler_index.py lists them all)."""
    return _PACKAGES[kind]


@cache
def resolve(kind: Kind, spec: str) -> Callable[..., Any]:
    module, _, function = spec.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(f"{_PACKAGES[kind]}.{module}"), function)
    return found


def activity(
    name: str, resource: str | None = None, action: str | None = None, handler: str | None = None, **flags: Any
) -> Operation:
    return Operation(name, Kind.SUBMIT, resource, action, handler, **flags)


def query(name: str, handler: str | None = None) -> Operation:
    return Operation(name, Kind.QUERY, handler=handler)


def proxy(name: str, handler: str | None = None) -> Operation:
    return Operation(name, Kind.PROXY, handler=handler, path=f"/v1/{name}")


OPERATIONS: tuple[Operation, ...] = (
    # consensus
    activity("approve_activity", vote="VOTE_SELECTION_APPROVED"),
    activity("reject_activity", vote="VOTE_SELECTION_REJECTED"),
    # organizations and sub-organizations
    activity("create_sub_organization", "ORGANIZATION", "CREATE", "suborgs:create_sub_organization"),
    activity("delete_sub_organization", "ORGANIZATION", "DELETE", "suborgs:delete_sub_organization"),
    activity("update_organization_name", handler="organization:update_organization_name", root_quorum_only=True),
    activity("update_root_quorum", handler="organization:update_root_quorum", root_quorum_only=True),
    activity("set_organization_feature", handler="organization:set_organization_feature", root_quorum_only=True),
    activity("remove_organization_feature", handler="organization:remove_organization_feature", root_quorum_only=True),
    activity("set_ip_allowlist", handler="ip_allowlist:set_ip_allowlist"),
    activity("remove_ip_allowlist", handler="ip_allowlist:remove_ip_allowlist"),
    activity(
        "create_smart_contract_interface",
        "SMART_CONTRACT_INTERFACE",
        "CREATE",
        "smart_contract_interfaces:create_smart_contract_interface",
    ),
    activity(
        "delete_smart_contract_interface",
        "SMART_CONTRACT_INTERFACE",
        "DELETE",
        "smart_contract_interfaces:delete_smart_contract_interface",
    ),
    # users, tags and invitations
    activity("create_users", "USER", "CREATE", "users:create_users"),
    activity("create_api_only_users", "USER", "CREATE", "users:create_api_only_users"),
    activity("update_user", "USER", "UPDATE", "users:update_user"),
    activity("update_user_name", "USER", "UPDATE", "users:update_user_name"),
    activity("update_user_email", "USER", "UPDATE", "users:update_user_email"),
    activity("update_user_phone_number", "USER", "UPDATE", "users:update_user_phone_number"),
    activity("delete_users", "USER", "DELETE", "users:delete_users"),
    activity("create_user_tag", "USER", "CREATE", "user_tags:create_user_tag"),
    activity("update_user_tag", "USER", "UPDATE", "user_tags:update_user_tag"),
    activity("delete_user_tags", "USER", "DELETE", "user_tags:delete_user_tags"),
    activity("create_invitations", "INVITATION", "CREATE", "invitations:create_invitations"),
    activity("delete_invitation", "INVITATION", "DELETE", "invitations:delete_invitation"),
    # credentials
    activity("create_api_keys", "CREDENTIAL", "CREATE", "credentials:create_api_keys", own_credentials=True),
    activity("delete_api_keys", "CREDENTIAL", "DELETE", "credentials:delete_api_keys", own_credentials=True),
    activity(
        "create_authenticators", "CREDENTIAL", "CREATE", "credentials:create_authenticators", own_credentials=True
    ),
    activity(
        "delete_authenticators", "CREDENTIAL", "DELETE", "credentials:delete_authenticators", own_credentials=True
    ),
    activity(
        "create_oauth_providers", "CREDENTIAL", "CREATE", "providers:create_oauth_providers", own_credentials=True
    ),
    activity(
        "delete_oauth_providers", "CREDENTIAL", "DELETE", "providers:delete_oauth_providers", own_credentials=True
    ),
    activity("create_oauth2_credential", "AUTH", "CREATE", "credentials:create_oauth2_credential"),
    activity("update_oauth2_credential", "AUTH", "UPDATE", "credentials:update_oauth2_credential"),
    activity("delete_oauth2_credential", "AUTH", "DELETE", "credentials:delete_oauth2_credential"),
    activity(
        "create_fiat_on_ramp_credential", "ON_RAMP_CREDENTIALS", "CREATE", "credentials:create_fiat_on_ramp_credential"
    ),
    activity(
        "update_fiat_on_ramp_credential", "ON_RAMP_CREDENTIALS", "UPDATE", "credentials:update_fiat_on_ramp_credential"
    ),
    activity(
        "delete_fiat_on_ramp_credential", "ON_RAMP_CREDENTIALS", "DELETE", "credentials:delete_fiat_on_ramp_credential"
    ),
    # policies
    activity("create_policy", "POLICY", "CREATE", "policies:create_policy"),
    activity("create_policies", "POLICY", "CREATE", "policies:create_policies"),
    activity("update_policy", "POLICY", "UPDATE", "policies:update_policy"),
    activity("delete_policy", "POLICY", "DELETE", "policies:delete_policy"),
    activity("delete_policies", "POLICY", "DELETE", "policies:delete_policies"),
    activity("create_mfa_policy", "MFA_POLICY", "CREATE", "mfa:create_mfa_policy", preparer="mfa:prepare_order"),
    activity("update_mfa_policy", "MFA_POLICY", "UPDATE", "mfa:update_mfa_policy", preparer="mfa:prepare_order"),
    activity("delete_mfa_policy", "MFA_POLICY", "DELETE", "mfa:delete_mfa_policy"),
    activity("create_webhook_endpoint", "WEBHOOK_ENDPOINT", "CREATE", "webhook_endpoints:create_webhook_endpoint"),
    activity("update_webhook_endpoint", "WEBHOOK_ENDPOINT", "UPDATE", "webhook_endpoints:update_webhook_endpoint"),
    activity("delete_webhook_endpoint", "WEBHOOK_ENDPOINT", "DELETE", "webhook_endpoints:delete_webhook_endpoint"),
    # wallets and private keys
    activity(
        "create_wallet",
        "WALLET",
        "CREATE",
        "wallets:create_wallet",
        preparer="wallets:prepare_wallet",
    ),
    activity("create_wallet_accounts", "WALLET", "CREATE", "wallets:create_wallet_accounts"),
    activity("update_wallet", "WALLET", "UPDATE", "wallets:update_wallet"),
    activity("delete_wallets", "WALLET", "DELETE", "wallets:delete_wallets"),
    activity("delete_wallet_accounts", "WALLET", "DELETE", "wallets:delete_wallet_accounts"),
    activity(
        "export_wallet",
        "WALLET",
        "EXPORT",
        "key_lifecycle:export_wallet",
        policy_context="key_lifecycle:export_wallet_context",
    ),
    activity(
        "export_wallet_account",
        "WALLET",
        "EXPORT",
        "key_lifecycle:export_wallet_account",
        policy_context="key_lifecycle:export_wallet_account_context",
    ),
    activity("init_import_wallet", "WALLET", "IMPORT", "key_lifecycle:init_import_wallet"),
    activity("import_wallet", "WALLET", "IMPORT", "key_lifecycle:import_wallet"),
    activity("create_private_keys", "PRIVATE_KEY", "CREATE", "private_keys:create_private_keys"),
    activity("delete_private_keys", "PRIVATE_KEY", "DELETE", "private_keys:delete_private_keys"),
    activity(
        "export_private_key",
        "PRIVATE_KEY",
        "EXPORT",
        "key_lifecycle:export_private_key",
        policy_context="key_lifecycle:export_private_key_context",
    ),
    activity("init_import_private_key", "PRIVATE_KEY", "IMPORT", "key_lifecycle:init_import_private_key"),
    activity("import_private_key", "PRIVATE_KEY", "IMPORT", "key_lifecycle:import_private_key"),
    activity("create_private_key_tag", "PRIVATE_KEY", "CREATE", "private_keys:create_private_key_tag"),
    activity("update_private_key_tag", "PRIVATE_KEY", "UPDATE", "private_keys:update_private_key_tag"),
    activity("delete_private_key_tags", "PRIVATE_KEY", "DELETE", "private_keys:delete_private_key_tags"),
    # signing and transactions
    activity(
        "sign_raw_payload",
        "PRIVATE_KEY",
        "SIGN",
        "signing:sign_raw_payload",
        policy_context="signing:payload_policy_context",
    ),
    activity(
        "sign_raw_payloads",
        "PRIVATE_KEY",
        "SIGN",
        "signing:sign_raw_payloads",
        policy_context="signing:payload_policy_context",
    ),
    activity(
        "sign_transaction",
        "PRIVATE_KEY",
        "SIGN",
        "transactions:sign_transaction",
        policy_context="transactions:policy_context",
    ),
    activity(
        "eth_send_transaction",
        "PRIVATE_KEY",
        "SIGN",
        "broadcast:eth_send_transaction",
        policy_context="broadcast:eth_send_policy_context",
    ),
    activity(
        "sol_send_transaction",
        "PRIVATE_KEY",
        "SIGN",
        "broadcast_solana:sol_send_transaction",
        policy_context="broadcast_solana:sol_send_policy_context",
    ),
    activity("eth_send_raw_transaction", handler="broadcast:eth_send_raw_transaction"),
    activity("eth_undelegate_7702", handler="broadcast:eth_undelegate_7702"),
    # end-user authentication, sessions and recovery
    activity("init_otp", "OTP", "CREATE", "otp:init_otp", parent_may_run=True),
    activity("init_otp_auth", "AUTH", "CREATE", "otp:init_otp_auth", parent_may_run=True),  # language.mdx: AUTH
    activity("verify_otp", "OTP", "VERIFY", "otp:verify_otp", parent_may_run=True),
    activity("otp_login", "AUTH", "CREATE", "otp:otp_login", parent_may_run=True),
    activity("otp_auth", "AUTH", "CREATE", "otp:otp_auth", parent_may_run=True),
    activity("oauth_login", "AUTH", "CREATE", "oauth:oauth_login", parent_may_run=True),
    activity("oauth2_authenticate", "AUTH", "CREATE", "oauth:oauth2_authenticate", parent_may_run=True),
    activity("stamp_login", "AUTH", "CREATE", "sessions:stamp_login", parent_may_run=True),
    activity("oauth", "AUTH", "CREATE", "oauth:oauth", parent_may_run=True),
    activity("email_auth", "AUTH", "CREATE", "recovery:email_auth", parent_may_run=True),
    activity("create_read_only_session", handler="sessions:create_read_only_session"),
    activity("create_read_write_session", "AUTH", "CREATE", "sessions:create_read_write_session"),
    activity(
        "init_user_email_recovery", "RECOVERY", "CREATE", "recovery:init_user_email_recovery", parent_may_run=True
    ),
    activity("recover_user", handler="recovery:recover_user", own_credentials=True),
    activity("create_session_profile", "SESSION_PROFILE", "CREATE", "session_profiles:create_session_profile"),
    # secrets, fiat on-ramp
    activity("init_import_secrets", handler="secrets:init_import_secrets"),
    activity("import_secrets", handler="secrets:import_secrets"),
    activity("export_secrets", handler="secrets:export_secrets", policy_context="secrets:export_secrets_context"),
    activity("init_fiat_on_ramp", handler="onramp:init_fiat_on_ramp"),
    # swaps and earn
    activity("create_swap_quote", handler="swaps:create_swap_quote"),
    activity("execute_swap", handler="swaps:execute_swap"),
    activity("upsert_swap_config", handler="swaps:upsert_swap_config"),
    activity("claim_swap_fees", handler="swaps:claim_swap_fees"),
    activity("earn_deploy_wrapper", handler="earn:earn_deploy_wrapper"),
    activity("earn_deposit", handler="earn:earn_deposit"),
    activity("earn_withdraw", handler="earn:earn_withdraw"),
    activity("earn_set_wrapper_state", handler="earn:earn_set_wrapper_state"),
    activity("claim_earn_fees", handler="earn:claim_earn_fees"),
    # Spark
    activity("spark_claim_transfer", handler="spark:spark_claim_transfer"),
    activity("spark_prepare_lightning_receive", handler="spark:spark_prepare_lightning_receive"),
    activity("spark_prepare_transfer", handler="spark:spark_prepare_transfer"),
    activity("spark_sign_frost", handler="spark:spark_sign_frost"),
    # verifiable apps (TVC)
    activity("create_tvc_app", handler="tvc:create_tvc_app"),
    activity("create_tvc_deployment", handler="tvc:create_tvc_deployment"),
    activity("create_tvc_manifest_approvals", handler="tvc_quorum:create_tvc_manifest_approvals"),
    activity("create_tvc_operator", handler="tvc:create_tvc_operator"),
    activity("create_tvc_quorum_key", handler="tvc_quorum:create_tvc_quorum_key"),
    activity("delete_tvc_app_and_deployments", handler="tvc:delete_tvc_app_and_deployments"),
    activity("delete_tvc_deployment", handler="tvc:delete_tvc_deployment"),
    activity("post_tvc_quorum_key_share", handler="tvc_quorum:post_tvc_quorum_key_share"),
    activity("re_encrypt_tvc_quorum_key_share", handler="tvc_quorum:re_encrypt_tvc_quorum_key_share"),
    activity("restore_tvc_deployment", handler="tvc:restore_tvc_deployment"),
    activity("set_tvc_app_live_deployment", handler="tvc:set_tvc_app_live_deployment"),
    # queries: organization
    query("whoami", "organization:whoami"),
    query("get_organization", "organization:get_organization"),
    query("get_organization_configs", "organization:get_organization_configs"),
    query("list_suborgs", "suborgs:list_suborgs"),
    query("list_verified_suborgs", "suborgs:list_verified_suborgs"),
    query("get_ip_allowlist", "ip_allowlist:get_ip_allowlist"),
    query("list_smart_contract_interfaces", "smart_contract_interfaces:list_smart_contract_interfaces"),
    query("get_smart_contract_interface", "smart_contract_interfaces:get_smart_contract_interface"),
    query("list_policies", "policies:list_policies"),
    query("get_policy", "policies:get_policy"),
    query("get_mfa_policy", "mfa:get_mfa_policy"),
    query("get_mfa_policies", "mfa:get_mfa_policies"),
    query("get_mfa_status", "mfa:get_mfa_status"),
    query("list_webhook_endpoints", "webhook_endpoints:list_webhook_endpoints"),
    query("list_email_events", "webhook_endpoints:list_email_events"),
    query("get_session_profile", "session_profiles:get_session_profile"),
    query("get_session_profiles", "session_profiles:get_session_profiles"),
    # queries: users and credentials
    query("list_users", "users:list_users"),
    query("get_user", "users:get_user"),
    query("get_api_keys", "credentials:get_api_keys"),
    query("get_api_key", "credentials:get_api_key"),
    query("get_authenticators", "credentials:get_authenticators"),
    query("get_authenticator", "credentials:get_authenticator"),
    query("list_user_tags", "user_tags:list_user_tags"),
    query("get_oauth_providers", "providers:get_oauth_providers"),
    query("get_oauth2_credential", "credentials:get_oauth2_credential"),
    query("list_oauth2_credentials", "credentials:list_oauth2_credentials"),
    query("list_fiat_on_ramp_credentials", "credentials:list_fiat_on_ramp_credentials"),
    # queries: wallets and keys
    query("list_wallets", "wallets:list_wallets"),
    query("get_wallet", "wallets:get_wallet"),
    query("list_wallet_accounts", "wallets:list_wallet_accounts"),
    query("get_wallet_account", "wallets:get_wallet_account"),
    query("list_private_keys", "private_keys:list_private_keys"),
    query("get_private_key", "private_keys:get_private_key"),
    query("list_private_key_tags", "private_keys:list_private_key_tags"),
    query("get_wallet_address_balances", "wallets:get_wallet_address_balances"),
    query("list_secrets", "secrets:list_secrets"),
    # queries: activities
    query("get_activity", "activities:get_activity"),
    query("list_activities", "activities:list_activities"),
    query("get_policy_evaluations", "activities:get_policy_evaluations"),
    query("list_app_proofs", "activities:list_app_proofs"),
    # queries: transactions
    query("get_send_transaction_status", "transactions:get_send_transaction_status"),
    query("get_nonces", "transactions:get_nonces"),
    query("get_gas_usage", "transactions:get_gas_usage"),
    query("list_eth_transaction_history", "transactions:list_eth_transaction_history"),
    query("list_sol_transaction_history", "transactions:list_sol_transaction_history"),
    query("list_supported_assets", "swaps:list_supported_assets"),
    query("get_onramp_transaction_status", "onramp:get_onramp_transaction_status"),
    query("get_boot_proof", "boot_proofs:get_boot_proof"),
    query("get_latest_boot_proof", "boot_proofs:get_latest_boot_proof"),
    # queries: swaps and earn
    query("get_swap_status", "swaps:get_swap_status"),
    query("get_claim_earn_fees_status", "earn:get_claim_earn_fees_status"),
    query("get_earn_deploy_status", "earn:get_earn_deploy_status"),
    query("get_earn_deposit_status", "earn:get_earn_deposit_status"),
    query("get_earn_withdraw_status", "earn:get_earn_withdraw_status"),
    query("list_earn_enabled_vaults", "earn:list_earn_enabled_vaults"),
    query("list_earn_positions", "earn:list_earn_positions"),
    query("list_earn_vaults", "earn:list_earn_vaults"),
    # queries: verifiable apps (TVC)
    query("get_app_status", "tvc:get_app_status"),
    query("get_tvc_app", "tvc:get_tvc_app"),
    query("get_tvc_deployment", "tvc:get_tvc_deployment"),
    query("get_tvc_deployment_debug_logs", "tvc:get_tvc_deployment_debug_logs"),
    query("get_tvc_deployment_provisioning_details", "tvc:get_tvc_deployment_provisioning_details"),
    query("get_tvc_qos_versions", "tvc:get_tvc_qos_versions"),
    query("list_tvc_apps", "tvc:list_tvc_apps"),
    query("list_tvc_app_deployments", "tvc:list_tvc_app_deployments"),
    query("validate_tvc_image", "tvc:validate_tvc_image"),
    # the auth proxy (/v1/<name> on its own port)
    proxy("otp_init", "endpoints:otp_init"),
    proxy("otp_verify", "endpoints:otp_verify"),
    proxy("otp_login", "endpoints:otp_login"),
    proxy("oauth2_authenticate", "endpoints:oauth2_authenticate"),
    proxy("oauth_login", "endpoints:oauth_login"),
    proxy("signup", "endpoints:signup"),
    proxy("account", "endpoints:account"),
    proxy("wallet_kit_config", "endpoints:wallet_kit_config"),
    proxy("otp_init_v2", "endpoints:otp_init_v2"),
    proxy("otp_verify_v2", "endpoints:otp_verify_v2"),
    proxy("otp_login_v2", "endpoints:otp_login_v2"),
    proxy("signup_v2", "endpoints:signup_v2"),
    proxy("wallet_kit_client_params", "endpoints:wallet_kit_client_params"),
)

_BY_KEY = {op.key: op for op in OPERATIONS}


def get(kind: Kind | str, name: str) -> Operation | None:
    """The operation ``name`` of ``kind`` (``"submit"``, ``"query"`` or ``"proxy"``), or None."""
    value = kind.value if isinstance(kind, Kind) else Kind(kind).value  # (calling the Enum costs more than the lookup)
    return _BY_KEY.get(f"{value}/{name}")


def of_kind(kind: Kind | str) -> Iterator[Operation]:
    wanted = Kind(kind)
    return (op for op in OPERATIONS if op.kind is wanted)
