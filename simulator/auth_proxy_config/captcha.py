"""The auth proxy's captcha (Cloudflare Turnstile): ``X-Captcha-Token`` on OTP start and sign-up.

The service's own rules are not public. Here, a configuration with a ``turnstileSiteKey`` (which
/v1/wallet_kit_client_params hands to react-wallet-kit) requires a non-empty token on the calls
@turnkey/core sends one with; tokens are not sent to Cloudflare. Cloudflare's published test site
keys keep their meaning: ``2x00000000000000000000AB`` and ``2x00000000000000000000BB`` ("always
blocks") refuse every token, so a test can see the refusal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulator.errors import InvalidArgument

GATED = ("otp_init", "otp_init_v2", "signup", "signup_v2")
ALWAYS_BLOCKS = ("2x00000000000000000000AB", "2x00000000000000000000BB")


def check(config: Mapping[str, Any], op: str, headers: Mapping[str, str]) -> None:
    """Refuse a gated call without an acceptable captcha token, when the configuration turns captcha on."""
    site_key = config.get("turnstileSiteKey")
    if not site_key or op not in GATED:
        return
    token = (headers.get("X-Captcha-Token") or "").strip()
    if not token:
        raise InvalidArgument(
            f"captcha verification failed: /v1/{op} needs an X-Captcha-Token header "
            f"(auth proxy configuration {config.get('configId')} has captcha enabled)"
        )
    if site_key in ALWAYS_BLOCKS:
        raise InvalidArgument(f"captcha verification failed: the token was refused (site key {site_key} always blocks)")
