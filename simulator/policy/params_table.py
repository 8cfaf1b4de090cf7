"""The ``activity.params`` fields the policy engine exposes, per activity type: the one place they are listed.

From the table in https://docs.turnkey.com/features/policies/language ("Appendix", "Activity
parameters"): only these top-level fields are readable; any other read of ``activity.params`` is a
``MissingField`` evaluation error naming these. An activity type the table leaves out exposes no field.
The fields' shapes (nested structs, list items, ints) come from the request schemas
(:mod:`simulator.policy.params`), whose nested names are the ones the page's Spark structs give.
"""

from __future__ import annotations

SOURCE = "https://docs.turnkey.com/features/policies/language#activity-parameters"

EXPOSED: dict[str, tuple[str, ...]] = {
    # Signing
    "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD": ("hash_function", "encoding"),
    "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2": ("hash_function", "encoding"),
    "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS": ("hash_function", "encoding"),
    "ACTIVITY_TYPE_SIGN_TRANSACTION_V2": ("type",),
    # User management
    "ACTIVITY_TYPE_DELETE_USERS": ("user_ids",),
    # API key management
    "ACTIVITY_TYPE_CREATE_API_KEYS": ("user_id",),
    "ACTIVITY_TYPE_CREATE_API_KEYS_V2": ("user_id",),
    "ACTIVITY_TYPE_DELETE_API_KEYS": ("user_id", "api_key_ids"),
    # Export
    "ACTIVITY_TYPE_EXPORT_WALLET": ("target_public_key",),
    "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT": ("target_public_key",),
    "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY": ("target_public_key",),
    # Wallet management
    "ACTIVITY_TYPE_UPDATE_WALLET": ("wallet_id",),
    # Authentication
    "ACTIVITY_TYPE_INIT_OTP_AUTH_V2": ("otp_length",),
    "ACTIVITY_TYPE_INIT_OTP_AUTH_V3": ("otp_length",),
    "ACTIVITY_TYPE_OTP_LOGIN": ("session_profile_id",),
    "ACTIVITY_TYPE_OTP_LOGIN_V2": ("session_profile_id",),
    "ACTIVITY_TYPE_STAMP_LOGIN": ("session_profile_id",),
    "ACTIVITY_TYPE_OAUTH_LOGIN": ("session_profile_id",),
    # Webhook endpoints
    "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT": ("endpoint_id",),
    "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT": ("endpoint_id",),
    # Spark
    "ACTIVITY_TYPE_SPARK_SIGN_FROST": ("sign_with", "signatures"),
    "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER": ("sign_with", "transfer"),
    "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER": ("sign_with", "claim"),
    "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE": ("sign_with", "lightning_receive"),
}
