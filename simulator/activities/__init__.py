"""Activity handlers, one per submit operation; the key is the URL segment and the schema name.

A handler takes the Context and the validated ``parameters`` and returns the body that goes
under the activity's result key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulator.activities import (
    credentials,
    oauth,
    organization,
    otp,
    policies,
    private_keys,
    sessions,
    signing,
    suborgs,
    users,
    wallets,
)
from simulator.activities.context import Context, Json
from simulator.clock import Source

Handler = Callable[[Context, Json], Json]
Preparer = Callable[[Source, Json], Any]

HANDLERS: dict[str, Handler] = {
    "create_wallet": wallets.create_wallet,
    "create_wallet_accounts": wallets.create_wallet_accounts,
    "create_private_keys": private_keys.create_private_keys,
    "create_private_key_tag": private_keys.create_private_key_tag,
    "sign_raw_payload": signing.sign_raw_payload,
    "sign_raw_payloads": signing.sign_raw_payloads,
    "create_users": users.create_users,
    "create_user_tag": users.create_user_tag,
    "update_user_tag": users.update_user_tag,
    "create_invitations": users.create_invitations,
    "create_api_keys": credentials.create_api_keys,
    "delete_api_keys": credentials.delete_api_keys,
    "delete_authenticators": credentials.delete_authenticators,
    "create_oauth2_credential": credentials.create_oauth2_credential,
    "update_oauth2_credential": credentials.update_oauth2_credential,
    "create_fiat_on_ramp_credential": credentials.create_fiat_on_ramp_credential,
    "create_policy": policies.create_policy,
    "create_policies": policies.create_policies,
    "delete_policies": policies.delete_policies,
    "set_organization_feature": organization.set_organization_feature,
    "remove_organization_feature": organization.remove_organization_feature,
    "create_smart_contract_interface": organization.create_smart_contract_interface,
    "create_sub_organization": suborgs.create_sub_organization,
    "init_otp": otp.init_otp,
    "init_otp_auth": otp.init_otp_auth,
    "verify_otp": otp.verify_otp,
    "otp_login": otp.otp_login,
    "otp_auth": otp.otp_auth,
    "oauth2_authenticate": oauth.oauth2_authenticate,
    "oauth_login": oauth.oauth_login,
    "stamp_login": sessions.stamp_login,
}

# Costly work that needs no state (key derivation), run before the store lock is taken so
# that concurrent requests overlap; the handler finds its result in ``ctx.prepared``.
PREPARERS: dict[str, Preparer] = {
    "create_wallet": wallets.prepare_wallet,
}
