"""What a recording must never hold: anything that lets its reader act as the user.

A value under one of the keys below, in a request or an answer, is replaced by ``[redacted: what]`` and the
place named in the exchange's ``redactions``; a stamp header keeps its public key and scheme (who stamped) and
loses its signature (a stamp replays its request for minutes). The shape stays (a string for a string), so the
diff still compares the field's presence and type. Nothing here sees a private key: the recorder forwards
requests the client stamped.
"""

from __future__ import annotations

import base64
import json
from typing import Any

# key -> what it is; matched on the key's name anywhere in a body
SECRETS = {
    "session": "session token",
    "sessionToken": "session token",
    "credentialBundle": "credential bundle",
    "exportBundle": "exported key bundle",
    "encryptedBundle": "encrypted key bundle",
    "encryptedOtpBundle": "encrypted OTP bundle",
    "otpCode": "OTP code",
    "verificationToken": "OTP verification token",
    "oidcToken": "OIDC token",
    "authCode": "OAuth authorization code",
    "encryptedClientSecret": "OAuth client secret",
    "clientSecret": "OAuth client secret",
    "privateKey": "private key",
    "apiPrivateKey": "API private key",
    "mnemonic": "mnemonic",
}
SECRET_HEADERS = {"authorization": "authorization header", "cookie": "cookie", "x-captcha-token": "captcha token"}
STAMP_HEADERS = ("x-stamp", "x-stamp-webauthn")
KEPT_HEADERS = ("content-type", "x-auth-proxy-config-id", "x-client-version")


def redact(value: Any, where: str, found: list[dict[str, str]]) -> Any:
    """``value`` with every secret replaced; each replacement appended to ``found`` as {where, what}."""
    if isinstance(value, dict):
        out = {}
        for key, child in value.items():
            place = f"{where}.{key}"
            if key in SECRETS and isinstance(child, str) and child:
                out[key] = f"[redacted: {SECRETS[key]}]"
                found.append({"where": place, "what": SECRETS[key]})
            else:
                out[key] = redact(child, place, found)
        return out
    if isinstance(value, list):
        return [redact(child, f"{where}.{i}", found) for i, child in enumerate(value)]
    return value


def request_headers(headers: dict[str, str], found: list[dict[str, str]]) -> dict[str, str]:
    """The headers a reader of the recording needs: content type, the auth proxy's config id, who stamped."""
    kept: dict[str, str] = {}
    for name, value in headers.items():
        lower = name.lower()
        if lower in KEPT_HEADERS:
            kept[lower] = value
        elif lower in STAMP_HEADERS:
            kept[lower] = stamp_without_signature(value)
            found.append({"where": f"request.headers.{lower}.signature", "what": "stamp signature"})
        elif lower in SECRET_HEADERS:
            kept[lower] = f"[redacted: {SECRET_HEADERS[lower]}]"
            found.append({"where": f"request.headers.{lower}", "what": SECRET_HEADERS[lower]})
    return kept


def stamp_without_signature(value: str) -> str:
    """The stamp's JSON (base64url) with its signature fields redacted, as JSON text; unreadable: redacted whole."""
    try:
        padded = value + "=" * (-len(value) % 4)
        stamp = json.loads(base64.urlsafe_b64decode(padded))
    except (ValueError, TypeError):
        return "[redacted: stamp]"
    if not isinstance(stamp, dict):
        return "[redacted: stamp]"
    for key in ("signature", "authenticatorData", "clientDataJson"):
        if key in stamp:
            stamp[key] = "[redacted: stamp signature]"
    return json.dumps(stamp, sort_keys=True)
