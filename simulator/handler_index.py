"""Every function the operation catalogue names by string, as a reference an editor and a type checker follow.

Generated from simulator/operations/catalogue.py by ``python tools/handler_index.py`` (tests/http/test_handler_index.py
fails while it is stale); do not edit. The catalogue imports a handler's module on first use, so that
start-up does not pay for every family; the references below sit under ``TYPE_CHECKING`` for the same
reason. ``mypy simulator`` checks that each exists and has its kind's signature (``Handler``,
``Preparer``, ``Query``, ``ProxyHandler``), and an editor goes from a catalogue name to its function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    import simulator.activities.broadcast
    import simulator.activities.broadcast_solana
    import simulator.activities.credentials
    import simulator.activities.earn
    import simulator.activities.invitations
    import simulator.activities.ip_allowlist
    import simulator.activities.key_lifecycle
    import simulator.activities.mfa
    import simulator.activities.oauth
    import simulator.activities.onramp
    import simulator.activities.organization
    import simulator.activities.otp
    import simulator.activities.policies
    import simulator.activities.private_keys
    import simulator.activities.providers
    import simulator.activities.recovery
    import simulator.activities.secrets
    import simulator.activities.session_profiles
    import simulator.activities.sessions
    import simulator.activities.signing
    import simulator.activities.smart_contract_interfaces
    import simulator.activities.spark
    import simulator.activities.suborgs
    import simulator.activities.swaps
    import simulator.activities.transactions
    import simulator.activities.tvc
    import simulator.activities.tvc_quorum
    import simulator.activities.user_tags
    import simulator.activities.users
    import simulator.activities.wallets
    import simulator.activities.webhook_endpoints
    import simulator.auth_proxy.endpoints
    import simulator.queries.activities
    import simulator.queries.boot_proofs
    import simulator.queries.credentials
    import simulator.queries.earn
    import simulator.queries.ip_allowlist
    import simulator.queries.mfa
    import simulator.queries.onramp
    import simulator.queries.organization
    import simulator.queries.policies
    import simulator.queries.private_keys
    import simulator.queries.providers
    import simulator.queries.secrets
    import simulator.queries.session_profiles
    import simulator.queries.smart_contract_interfaces
    import simulator.queries.suborgs
    import simulator.queries.swaps
    import simulator.queries.transactions
    import simulator.queries.tvc
    import simulator.queries.user_tags
    import simulator.queries.users
    import simulator.queries.wallets
    import simulator.queries.webhook_endpoints
    from simulator.activities import Handler, Preparer
    from simulator.pipeline import Services
    from simulator.queries import Query
    from simulator.wire import Json

    ProxyHandler = Callable[[Services, Json, Json], Json]

    ACTIVITIES: dict[str, Handler] = {
        "broadcast:eth_send_raw_transaction": simulator.activities.broadcast.eth_send_raw_transaction,
        "broadcast:eth_send_transaction": simulator.activities.broadcast.eth_send_transaction,
        "broadcast:eth_undelegate_7702": simulator.activities.broadcast.eth_undelegate_7702,
        "broadcast_solana:sol_send_transaction": simulator.activities.broadcast_solana.sol_send_transaction,
        "credentials:create_api_keys": simulator.activities.credentials.create_api_keys,
        "credentials:create_authenticators": simulator.activities.credentials.create_authenticators,
        "credentials:create_fiat_on_ramp_credential": simulator.activities.credentials.create_fiat_on_ramp_credential,
        "credentials:create_oauth2_credential": simulator.activities.credentials.create_oauth2_credential,
        "credentials:delete_api_keys": simulator.activities.credentials.delete_api_keys,
        "credentials:delete_authenticators": simulator.activities.credentials.delete_authenticators,
        "credentials:delete_fiat_on_ramp_credential": simulator.activities.credentials.delete_fiat_on_ramp_credential,
        "credentials:delete_oauth2_credential": simulator.activities.credentials.delete_oauth2_credential,
        "credentials:update_fiat_on_ramp_credential": simulator.activities.credentials.update_fiat_on_ramp_credential,
        "credentials:update_oauth2_credential": simulator.activities.credentials.update_oauth2_credential,
        "earn:claim_earn_fees": simulator.activities.earn.claim_earn_fees,
        "earn:earn_deploy_wrapper": simulator.activities.earn.earn_deploy_wrapper,
        "earn:earn_deposit": simulator.activities.earn.earn_deposit,
        "earn:earn_set_wrapper_state": simulator.activities.earn.earn_set_wrapper_state,
        "earn:earn_withdraw": simulator.activities.earn.earn_withdraw,
        "invitations:create_invitations": simulator.activities.invitations.create_invitations,
        "invitations:delete_invitation": simulator.activities.invitations.delete_invitation,
        "ip_allowlist:remove_ip_allowlist": simulator.activities.ip_allowlist.remove_ip_allowlist,
        "ip_allowlist:set_ip_allowlist": simulator.activities.ip_allowlist.set_ip_allowlist,
        "key_lifecycle:export_private_key": simulator.activities.key_lifecycle.export_private_key,
        "key_lifecycle:export_wallet": simulator.activities.key_lifecycle.export_wallet,
        "key_lifecycle:export_wallet_account": simulator.activities.key_lifecycle.export_wallet_account,
        "key_lifecycle:import_private_key": simulator.activities.key_lifecycle.import_private_key,
        "key_lifecycle:import_wallet": simulator.activities.key_lifecycle.import_wallet,
        "key_lifecycle:init_import_private_key": simulator.activities.key_lifecycle.init_import_private_key,
        "key_lifecycle:init_import_wallet": simulator.activities.key_lifecycle.init_import_wallet,
        "mfa:create_mfa_policy": simulator.activities.mfa.create_mfa_policy,
        "mfa:delete_mfa_policy": simulator.activities.mfa.delete_mfa_policy,
        "mfa:update_mfa_policy": simulator.activities.mfa.update_mfa_policy,
        "oauth:oauth": simulator.activities.oauth.oauth,
        "oauth:oauth2_authenticate": simulator.activities.oauth.oauth2_authenticate,
        "oauth:oauth_login": simulator.activities.oauth.oauth_login,
        "onramp:init_fiat_on_ramp": simulator.activities.onramp.init_fiat_on_ramp,
        "organization:remove_organization_feature": simulator.activities.organization.remove_organization_feature,
        "organization:set_organization_feature": simulator.activities.organization.set_organization_feature,
        "organization:update_organization_name": simulator.activities.organization.update_organization_name,
        "organization:update_root_quorum": simulator.activities.organization.update_root_quorum,
        "otp:init_otp": simulator.activities.otp.init_otp,
        "otp:init_otp_auth": simulator.activities.otp.init_otp_auth,
        "otp:otp_auth": simulator.activities.otp.otp_auth,
        "otp:otp_login": simulator.activities.otp.otp_login,
        "otp:verify_otp": simulator.activities.otp.verify_otp,
        "policies:create_policies": simulator.activities.policies.create_policies,
        "policies:create_policy": simulator.activities.policies.create_policy,
        "policies:delete_policies": simulator.activities.policies.delete_policies,
        "policies:delete_policy": simulator.activities.policies.delete_policy,
        "policies:update_policy": simulator.activities.policies.update_policy,
        "private_keys:create_private_key_tag": simulator.activities.private_keys.create_private_key_tag,
        "private_keys:create_private_keys": simulator.activities.private_keys.create_private_keys,
        "private_keys:delete_private_key_tags": simulator.activities.private_keys.delete_private_key_tags,
        "private_keys:delete_private_keys": simulator.activities.private_keys.delete_private_keys,
        "private_keys:update_private_key_tag": simulator.activities.private_keys.update_private_key_tag,
        "providers:create_oauth_providers": simulator.activities.providers.create_oauth_providers,
        "providers:delete_oauth_providers": simulator.activities.providers.delete_oauth_providers,
        "recovery:email_auth": simulator.activities.recovery.email_auth,
        "recovery:init_user_email_recovery": simulator.activities.recovery.init_user_email_recovery,
        "recovery:recover_user": simulator.activities.recovery.recover_user,
        "secrets:export_secrets": simulator.activities.secrets.export_secrets,
        "secrets:import_secrets": simulator.activities.secrets.import_secrets,
        "secrets:init_import_secrets": simulator.activities.secrets.init_import_secrets,
        "session_profiles:create_session_profile": simulator.activities.session_profiles.create_session_profile,
        "sessions:create_read_only_session": simulator.activities.sessions.create_read_only_session,
        "sessions:create_read_write_session": simulator.activities.sessions.create_read_write_session,
        "sessions:stamp_login": simulator.activities.sessions.stamp_login,
        "signing:sign_raw_payload": simulator.activities.signing.sign_raw_payload,
        "signing:sign_raw_payloads": simulator.activities.signing.sign_raw_payloads,
        "smart_contract_interfaces:create_smart_contract_interface": simulator.activities.smart_contract_interfaces.create_smart_contract_interface,
        "smart_contract_interfaces:delete_smart_contract_interface": simulator.activities.smart_contract_interfaces.delete_smart_contract_interface,
        "spark:spark_claim_transfer": simulator.activities.spark.spark_claim_transfer,
        "spark:spark_prepare_lightning_receive": simulator.activities.spark.spark_prepare_lightning_receive,
        "spark:spark_prepare_transfer": simulator.activities.spark.spark_prepare_transfer,
        "spark:spark_sign_frost": simulator.activities.spark.spark_sign_frost,
        "suborgs:create_sub_organization": simulator.activities.suborgs.create_sub_organization,
        "suborgs:delete_sub_organization": simulator.activities.suborgs.delete_sub_organization,
        "swaps:claim_swap_fees": simulator.activities.swaps.claim_swap_fees,
        "swaps:create_swap_quote": simulator.activities.swaps.create_swap_quote,
        "swaps:execute_swap": simulator.activities.swaps.execute_swap,
        "swaps:upsert_swap_config": simulator.activities.swaps.upsert_swap_config,
        "transactions:sign_transaction": simulator.activities.transactions.sign_transaction,
        "tvc:create_tvc_app": simulator.activities.tvc.create_tvc_app,
        "tvc:create_tvc_deployment": simulator.activities.tvc.create_tvc_deployment,
        "tvc:create_tvc_operator": simulator.activities.tvc.create_tvc_operator,
        "tvc:delete_tvc_app_and_deployments": simulator.activities.tvc.delete_tvc_app_and_deployments,
        "tvc:delete_tvc_deployment": simulator.activities.tvc.delete_tvc_deployment,
        "tvc:restore_tvc_deployment": simulator.activities.tvc.restore_tvc_deployment,
        "tvc:set_tvc_app_live_deployment": simulator.activities.tvc.set_tvc_app_live_deployment,
        "tvc_quorum:create_tvc_manifest_approvals": simulator.activities.tvc_quorum.create_tvc_manifest_approvals,
        "tvc_quorum:create_tvc_quorum_key": simulator.activities.tvc_quorum.create_tvc_quorum_key,
        "tvc_quorum:post_tvc_quorum_key_share": simulator.activities.tvc_quorum.post_tvc_quorum_key_share,
        "tvc_quorum:re_encrypt_tvc_quorum_key_share": simulator.activities.tvc_quorum.re_encrypt_tvc_quorum_key_share,
        "user_tags:create_user_tag": simulator.activities.user_tags.create_user_tag,
        "user_tags:delete_user_tags": simulator.activities.user_tags.delete_user_tags,
        "user_tags:update_user_tag": simulator.activities.user_tags.update_user_tag,
        "users:create_api_only_users": simulator.activities.users.create_api_only_users,
        "users:create_users": simulator.activities.users.create_users,
        "users:delete_users": simulator.activities.users.delete_users,
        "users:update_user": simulator.activities.users.update_user,
        "users:update_user_email": simulator.activities.users.update_user_email,
        "users:update_user_name": simulator.activities.users.update_user_name,
        "users:update_user_phone_number": simulator.activities.users.update_user_phone_number,
        "wallets:create_wallet": simulator.activities.wallets.create_wallet,
        "wallets:create_wallet_accounts": simulator.activities.wallets.create_wallet_accounts,
        "wallets:delete_wallet_accounts": simulator.activities.wallets.delete_wallet_accounts,
        "wallets:delete_wallets": simulator.activities.wallets.delete_wallets,
        "wallets:update_wallet": simulator.activities.wallets.update_wallet,
        "webhook_endpoints:create_webhook_endpoint": simulator.activities.webhook_endpoints.create_webhook_endpoint,
        "webhook_endpoints:delete_webhook_endpoint": simulator.activities.webhook_endpoints.delete_webhook_endpoint,
        "webhook_endpoints:update_webhook_endpoint": simulator.activities.webhook_endpoints.update_webhook_endpoint,
    }

    PREPARERS: dict[str, Preparer] = {
        "mfa:prepare_order": simulator.activities.mfa.prepare_order,
        "wallets:prepare_wallet": simulator.activities.wallets.prepare_wallet,
    }

    POLICY_CONTEXTS: dict[str, Handler] = {
        "broadcast:eth_send_policy_context": simulator.activities.broadcast.eth_send_policy_context,
        "broadcast_solana:sol_send_policy_context": simulator.activities.broadcast_solana.sol_send_policy_context,
        "key_lifecycle:export_private_key_context": simulator.activities.key_lifecycle.export_private_key_context,
        "key_lifecycle:export_wallet_account_context": simulator.activities.key_lifecycle.export_wallet_account_context,
        "key_lifecycle:export_wallet_context": simulator.activities.key_lifecycle.export_wallet_context,
        "secrets:export_secrets_context": simulator.activities.secrets.export_secrets_context,
        "signing:payload_policy_context": simulator.activities.signing.payload_policy_context,
        "transactions:policy_context": simulator.activities.transactions.policy_context,
    }

    QUERIES: dict[str, Query] = {
        "activities:get_activity": simulator.queries.activities.get_activity,
        "activities:get_policy_evaluations": simulator.queries.activities.get_policy_evaluations,
        "activities:list_activities": simulator.queries.activities.list_activities,
        "activities:list_app_proofs": simulator.queries.activities.list_app_proofs,
        "boot_proofs:get_boot_proof": simulator.queries.boot_proofs.get_boot_proof,
        "boot_proofs:get_latest_boot_proof": simulator.queries.boot_proofs.get_latest_boot_proof,
        "credentials:get_api_key": simulator.queries.credentials.get_api_key,
        "credentials:get_api_keys": simulator.queries.credentials.get_api_keys,
        "credentials:get_authenticator": simulator.queries.credentials.get_authenticator,
        "credentials:get_authenticators": simulator.queries.credentials.get_authenticators,
        "credentials:get_oauth2_credential": simulator.queries.credentials.get_oauth2_credential,
        "credentials:list_fiat_on_ramp_credentials": simulator.queries.credentials.list_fiat_on_ramp_credentials,
        "credentials:list_oauth2_credentials": simulator.queries.credentials.list_oauth2_credentials,
        "earn:get_claim_earn_fees_status": simulator.queries.earn.get_claim_earn_fees_status,
        "earn:get_earn_deploy_status": simulator.queries.earn.get_earn_deploy_status,
        "earn:get_earn_deposit_status": simulator.queries.earn.get_earn_deposit_status,
        "earn:get_earn_withdraw_status": simulator.queries.earn.get_earn_withdraw_status,
        "earn:list_earn_enabled_vaults": simulator.queries.earn.list_earn_enabled_vaults,
        "earn:list_earn_positions": simulator.queries.earn.list_earn_positions,
        "earn:list_earn_vaults": simulator.queries.earn.list_earn_vaults,
        "ip_allowlist:get_ip_allowlist": simulator.queries.ip_allowlist.get_ip_allowlist,
        "mfa:get_mfa_policies": simulator.queries.mfa.get_mfa_policies,
        "mfa:get_mfa_policy": simulator.queries.mfa.get_mfa_policy,
        "mfa:get_mfa_status": simulator.queries.mfa.get_mfa_status,
        "onramp:get_onramp_transaction_status": simulator.queries.onramp.get_onramp_transaction_status,
        "organization:get_organization": simulator.queries.organization.get_organization,
        "organization:get_organization_configs": simulator.queries.organization.get_organization_configs,
        "organization:whoami": simulator.queries.organization.whoami,
        "policies:get_policy": simulator.queries.policies.get_policy,
        "policies:list_policies": simulator.queries.policies.list_policies,
        "private_keys:get_private_key": simulator.queries.private_keys.get_private_key,
        "private_keys:list_private_key_tags": simulator.queries.private_keys.list_private_key_tags,
        "private_keys:list_private_keys": simulator.queries.private_keys.list_private_keys,
        "providers:get_oauth_providers": simulator.queries.providers.get_oauth_providers,
        "secrets:list_secrets": simulator.queries.secrets.list_secrets,
        "session_profiles:get_session_profile": simulator.queries.session_profiles.get_session_profile,
        "session_profiles:get_session_profiles": simulator.queries.session_profiles.get_session_profiles,
        "smart_contract_interfaces:get_smart_contract_interface": simulator.queries.smart_contract_interfaces.get_smart_contract_interface,
        "smart_contract_interfaces:list_smart_contract_interfaces": simulator.queries.smart_contract_interfaces.list_smart_contract_interfaces,
        "suborgs:list_suborgs": simulator.queries.suborgs.list_suborgs,
        "suborgs:list_verified_suborgs": simulator.queries.suborgs.list_verified_suborgs,
        "swaps:get_swap_status": simulator.queries.swaps.get_swap_status,
        "swaps:list_supported_assets": simulator.queries.swaps.list_supported_assets,
        "transactions:get_gas_usage": simulator.queries.transactions.get_gas_usage,
        "transactions:get_nonces": simulator.queries.transactions.get_nonces,
        "transactions:get_send_transaction_status": simulator.queries.transactions.get_send_transaction_status,
        "transactions:list_eth_transaction_history": simulator.queries.transactions.list_eth_transaction_history,
        "transactions:list_sol_transaction_history": simulator.queries.transactions.list_sol_transaction_history,
        "tvc:get_app_status": simulator.queries.tvc.get_app_status,
        "tvc:get_tvc_app": simulator.queries.tvc.get_tvc_app,
        "tvc:get_tvc_deployment": simulator.queries.tvc.get_tvc_deployment,
        "tvc:get_tvc_deployment_debug_logs": simulator.queries.tvc.get_tvc_deployment_debug_logs,
        "tvc:get_tvc_deployment_provisioning_details": simulator.queries.tvc.get_tvc_deployment_provisioning_details,
        "tvc:get_tvc_qos_versions": simulator.queries.tvc.get_tvc_qos_versions,
        "tvc:list_tvc_app_deployments": simulator.queries.tvc.list_tvc_app_deployments,
        "tvc:list_tvc_apps": simulator.queries.tvc.list_tvc_apps,
        "tvc:validate_tvc_image": simulator.queries.tvc.validate_tvc_image,
        "user_tags:list_user_tags": simulator.queries.user_tags.list_user_tags,
        "users:get_user": simulator.queries.users.get_user,
        "users:list_users": simulator.queries.users.list_users,
        "wallets:get_wallet": simulator.queries.wallets.get_wallet,
        "wallets:get_wallet_account": simulator.queries.wallets.get_wallet_account,
        "wallets:get_wallet_address_balances": simulator.queries.wallets.get_wallet_address_balances,
        "wallets:list_wallet_accounts": simulator.queries.wallets.list_wallet_accounts,
        "wallets:list_wallets": simulator.queries.wallets.list_wallets,
        "webhook_endpoints:list_email_events": simulator.queries.webhook_endpoints.list_email_events,
        "webhook_endpoints:list_webhook_endpoints": simulator.queries.webhook_endpoints.list_webhook_endpoints,
    }

    PROXY: dict[str, ProxyHandler] = {
        "endpoints:account": simulator.auth_proxy.endpoints.account,
        "endpoints:oauth2_authenticate": simulator.auth_proxy.endpoints.oauth2_authenticate,
        "endpoints:oauth_login": simulator.auth_proxy.endpoints.oauth_login,
        "endpoints:otp_init": simulator.auth_proxy.endpoints.otp_init,
        "endpoints:otp_init_v2": simulator.auth_proxy.endpoints.otp_init_v2,
        "endpoints:otp_login": simulator.auth_proxy.endpoints.otp_login,
        "endpoints:otp_login_v2": simulator.auth_proxy.endpoints.otp_login_v2,
        "endpoints:otp_verify": simulator.auth_proxy.endpoints.otp_verify,
        "endpoints:otp_verify_v2": simulator.auth_proxy.endpoints.otp_verify_v2,
        "endpoints:signup": simulator.auth_proxy.endpoints.signup,
        "endpoints:signup_v2": simulator.auth_proxy.endpoints.signup_v2,
        "endpoints:wallet_kit_client_params": simulator.auth_proxy.endpoints.wallet_kit_client_params,
        "endpoints:wallet_kit_config": simulator.auth_proxy.endpoints.wallet_kit_config,
    }
