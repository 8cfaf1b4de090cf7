"""Auth proxy configurations: enabling one creates the proxy user, its key and its policy.

The proxy's private key is kept sealed (HPKE, to the simulator's vault key) in the
configuration and opened per request only, as the interface describes.
"""

from __future__ import annotations

import base58
from cryptography.hazmat.primitives.asymmetric import ec

from simulator.crypto import hpke, keys, service_keys
from simulator.errors import NotFound, PermissionDenied
from simulator.handler_support.context import Context
from simulator.local_hosts import is_loopback_origin
from simulator.model import credential_records, policy_records
from simulator.state.records import User
from simulator.state.store import Store
from simulator.wire import Json

DEFAULTS: Json = {
    "enabled": True,
    "allowedOrigins": [],  # none: loopback origins only (origin_allowed); ["*"] every origin
    "sessionExpirationSeconds": "900",
    "enabledProviders": ["email", "sms", "passkey", "wallet", "google", "apple", "x", "discord"],
    "otpLength": "6",
    "otpAlphanumeric": False,
    "appName": "Simulated App",
    "oauthClientIds": {},
    "oauthRedirectUrl": "",
    "verificationTokenRequiredForGetAccountPii": False,  # the dashboard's "require verification token for account lookups"
}
PROXY_CONDITION = (
    "(activity.resource == 'AUTH' && activity.action == 'CREATE') || "
    "(activity.resource == 'OTP' && activity.action == 'CREATE') || "
    "(activity.resource == 'OTP' && activity.action == 'VERIFY') || "
    "(activity.resource == 'ORGANIZATION' && activity.action == 'CREATE')"
)


def enable(ctx: Context, settings: Json) -> Json:
    """Create the proxy user, key and policy in ``ctx.org`` and store the configuration."""
    config_id = settings.get("configId") or ctx.new_id()
    user = User(ctx.new_id(), "Auth Proxy", ctx.now_ms)
    ctx.org.users[user.user_id] = user
    private = keys.new_ec_key(ctx.source, "p256")
    key = credential_records.new_api_key(
        ctx,
        {"apiKeyName": "Auth Proxy key", "publicKey": keys.compressed_hex(private), "curveType": "API_KEY_CURVE_P256"},
    )
    ctx.store.add_api_key(ctx.org, user, key)
    policy_records.add_policies(
        ctx,
        [
            {
                "policyName": f"Auth proxy {config_id}",
                "effect": "EFFECT_ALLOW",
                "notes": "created with the auth proxy: authentication activities only",
                "condition": PROXY_CONDITION,
                "consensus": f"approvers.any(user, user.id == '{user.user_id}')",
            }
        ],
    )
    enc, sealed = hpke.seal(
        service_keys.public_hex("vault"), bytes.fromhex(keys.private_hex(private)), keys.new_ec_key(ctx.source, "p256")
    )
    config = {
        **DEFAULTS,
        **{k: v for k, v in settings.items() if k != "configId"},
        "configId": config_id,
        "organizationId": ctx.org.organization_id,
        "proxyUserId": user.user_id,
        "encryptedProxyKey": str(base58.b58encode(enc + sealed).decode()),
    }
    ctx.store.proxy_configs[config_id] = config
    ctx.org.features["FEATURE_NAME_AUTH_PROXY"] = config_id
    return config


def active(store: Store, config_id: str | None) -> Json:
    """The configuration named by the request's header, if it exists and is enabled."""
    if not config_id:
        raise NotFound("auth proxy configuration not found: the X-Auth-Proxy-Config-Id header is required")
    config = store.proxy_configs.get(config_id)
    if config is None:
        raise NotFound(f"auth proxy configuration {config_id} not found")
    if not config.get("enabled", True):
        raise PermissionDenied(f"auth proxy configuration {config_id} is disabled; enable it in the dashboard")
    return config


def proxy_key(config: Json) -> ec.EllipticCurvePrivateKey:
    """Open the sealed proxy key (per request; it is never kept in the clear)."""
    raw = base58.b58decode(config["encryptedProxyKey"])
    secret = hpke.open_sealed(service_keys.private("vault"), raw[:65], raw[65:])
    return keys.ec_key_from_hex("p256", secret.hex())


def origin_allowed(config: Json, origin: str | None) -> bool:
    """A configuration's ``allowedOrigins``; none listed: loopback origins only (a page on this machine), so
    that no website the developer visits drives the proxy; ``"*"`` listed: every origin."""
    allowed = config.get("allowedOrigins") or []
    if not allowed:
        return origin is None or is_loopback_origin(origin)
    return origin is None or "*" in allowed or origin in allowed


def configure(ctx: Context, settings: Json) -> Json:
    """Enable the auth proxy for ``ctx.org``, or change the configuration ``settings["configId"]`` names."""
    existing = ctx.store.proxy_configs.get(settings.get("configId") or "")
    if existing is not None:
        existing.update({k: v for k, v in settings.items() if k not in ("configId", "encryptedProxyKey")})
        return public(existing)
    return public(enable(ctx, settings))


def public(config: Json) -> Json:
    """A configuration without its sealed key."""
    return {k: v for k, v in config.items() if k != "encryptedProxyKey"}
