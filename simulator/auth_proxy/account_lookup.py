"""The auth proxy's "verification token required for account lookups" setting
(``verificationTokenRequiredForGetAccountPii``): with it on, ``/v1/account`` looks up an e-mail
address or a phone number only for a caller who proves the contact is theirs.

The proof is an unexpired verification token (verify_otp) for that contact and channel, or, for an
e-mail address, an OIDC token from a trusted issuer whose ``email`` claim is that address (what
react-wallet-kit sends for social linking). The token is read, not spent: the login or sign-up
after the lookup uses it. Other filters (OIDC_TOKEN, PUBLIC_KEY, ...) hold no contact and are
looked up as before.
"""

from __future__ import annotations

from simulator.auth import attested
from simulator.crypto import service_keys, tokens
from simulator.errors import InvalidArgument
from simulator.pipeline import Services
from simulator.wire import Json

SETTING = "verificationTokenRequiredForGetAccountPii"
CHANNELS = {"EMAIL": "OTP_TYPE_EMAIL", "PHONE_NUMBER": "OTP_TYPE_SMS"}


def check_access(sim: Services, config: Json, body: Json) -> None:
    """Refuse an e-mail or phone lookup without a token proving the contact, when the setting is on."""
    channel = CHANNELS.get(body["filterType"])
    if not config.get(SETTING) or channel is None:
        return
    wanted = body["filterValue"].lower()
    now_ms = sim.clock.now_ms()
    if body.get("verificationToken"):
        try:
            claims = attested.verification_claims(body["verificationToken"], now_ms, sim.store.used_tokens)
        except ValueError as exc:
            raise InvalidArgument(f"invalid verification token: {exc}") from None
        if claims.get("verification_type") == channel and str(claims.get("contact", "")).lower() == wanted:
            return
        raise InvalidArgument(
            f"the verification token is for another contact than this {body['filterType']} lookup's filterValue"
        )
    if body.get("oidcToken") and channel == "OTP_TYPE_EMAIL" and oidc_email(body["oidcToken"], now_ms) == wanted:
        return
    raise InvalidArgument(
        f"a verification token for this {body['filterType'].lower().replace('_', ' ')} is required: the auth proxy "
        f"configuration {config['configId']} requires one for account lookups by e-mail or phone number"
    )


def oidc_email(token: str, now_ms: int) -> str | None:
    """The e-mail claim of an unexpired OIDC token a trusted issuer signed, else None."""
    try:
        issuer = str(tokens.claims_of(token).get("iss"))
        if issuer not in attested.ISSUER_KEYS:
            return None
        claims = tokens.verify(token, service_keys.private(attested.ISSUER_KEYS[issuer]).public_key())
    except ValueError:
        return None
    if int(claims.get("exp", 0)) <= now_ms // 1000:
        return None
    email = claims.get("email")
    return email.lower() if isinstance(email, str) else None
