"""Identities vouched for by a token instead of a registered key: X-Stamp-Attested and X-Session.

An attested stamp (@turnkey/core >= 2.7 logs in with it) signs the body with a fresh client key
and carries the token that binds that key to a person: an OTP verification token whose
``public_key`` is the key (``..._P256_VERIFICATION_TOKEN``), or an OIDC token whose nonce is the
SHA-256 of the key's hex (``..._P256_OIDC``). The body may name the parent organization, so the
user is found from the token: the verified contact, or the OAuth provider (iss, sub, aud), in
the named organization first, else in exactly one of its sub-organizations.

A read-only session token (create_read_only_session) in ``X-Session`` lets its user read, never
write.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from simulator.auth.stamps import ATTESTED_TOKEN, Stamp
from simulator.crypto import service_keys, tokens
from simulator.errors import PermissionDenied, Unauthenticated
from simulator.http.request_body import json_or_none
from simulator.state.records import User
from simulator.state.store import Organization, Store
from simulator.wire import Json

ISSUER_KEYS = {service_keys.PROVIDER_ISSUER: "oauth-provider", service_keys.TURNKEY_ISSUER: "turnkey-oauth-issuer"}
# The activities an attested identity may stamp: logging in, and MFA approvals (core's only uses).
ATTESTED_TYPES = ("ACTIVITY_TYPE_STAMP_LOGIN", "ACTIVITY_TYPE_APPROVE_ACTIVITY", "ACTIVITY_TYPE_REJECT_ACTIVITY")
READ_ONLY = "SESSION_TYPE_READ_ONLY"


def verification_claims(token: str, now_ms: int, used: set[str]) -> Json:
    """The claims of an unexpired, unspent OTP verification token the simulator signed; ValueError otherwise."""
    try:  # the legacy token (verify_otp V1) or the enclave's (V2)
        claims = tokens.verify(token, service_keys.private("verification").public_key())
    except ValueError:
        claims = tokens.verify(token, service_keys.private("enclave").public_key())
    expiry = claims.get("exp", 0)  # the enclave's: a millisecond string; the legacy token's: seconds
    if (int(expiry) if isinstance(expiry, str) else int(expiry) * 1000) <= now_ms:
        raise ValueError("expired")
    if claims.get("id") in used:
        raise ValueError("already used")
    return claims


def oidc_claims(token: str, public_key: str, now_ms: int) -> Json:
    """The claims of an unexpired OIDC token from a trusted issuer whose nonce binds ``public_key``; ValueError otherwise."""
    issuer = str(tokens.claims_of(token).get("iss"))
    if issuer not in ISSUER_KEYS:
        raise ValueError(f"unknown issuer {issuer!r} (trusted: {', '.join(ISSUER_KEYS)})")
    claims = tokens.verify(token, service_keys.private(ISSUER_KEYS[issuer]).public_key())
    if any(not claims.get(c) for c in ("iss", "sub", "aud")):
        raise ValueError("aud, sub and iss are required")
    if int(claims.get("exp", 0)) <= now_ms // 1000:
        raise ValueError("expired")
    expected = hashlib.sha256(public_key.encode()).hexdigest()
    # oauth2_authenticate's tokens carry whatever nonce the client asked for, as the service's do
    if claims["iss"] != service_keys.TURNKEY_ISSUER and expected not in (claims.get("nonce"), claims.get("tknonce")):
        raise ValueError("the nonce must be the SHA-256 of the public key's hex")
    return claims


def audience(claims: Json) -> str:
    aud = claims["aud"]
    return str(aud[0] if isinstance(aud, list) else aud)


def attested_user(
    store: Store, stamp: Stamp, body: bytes, target_org_id: str, now_ms: int
) -> tuple[Organization, User]:
    """The organization and user an attested stamp's token names, or 401."""
    activity_type = _field(body, "type")
    if activity_type not in ATTESTED_TYPES:
        raise Unauthenticated(
            f"X-Stamp-Attested is accepted for {', '.join(ATTESTED_TYPES)} only, not {activity_type or 'a query'}",
            error_code="SIGNATURE_INVALID",
        )
    assert stamp.attestation is not None
    target = store.org(target_org_id)
    try:
        if stamp.scheme == ATTESTED_TOKEN:
            claims = verification_claims(stamp.attestation, now_ms, store.used_tokens)
            return _token_user(store, target, claims, stamp.handle)
        claims = oidc_claims(stamp.attestation, stamp.handle, now_ms)
    except ValueError as exc:
        raise Unauthenticated(f"invalid attested stamp: {exc}", error_code="SIGNATURE_INVALID") from None
    wanted = (claims["iss"], claims["sub"], audience(claims))
    return _find(
        store,
        target,
        lambda u: any((p["issuer"], p["subject"], p["audience"]) == wanted for p in u.oauth_providers),
        f"an OAuth provider for issuer {wanted[0]}, subject {wanted[1]}, audience {wanted[2]}",
    )


def _token_user(store: Store, target: Organization, claims: Json, public_key: str) -> tuple[Organization, User]:
    if str(claims.get("public_key", "")).lower() != public_key:
        raise ValueError("the verification token names another public key than the stamp's")
    issuer = store.orgs.get(str(claims.get("organization_id")))
    if issuer is None or not (issuer is target or store.is_below(target, issuer)):
        raise ValueError("the verification token was issued for another organization")
    field = "phone_number" if claims.get("verification_type") == "OTP_TYPE_SMS" else "email"
    contact = str(claims.get("contact", "")).lower()
    what = f"{field.replace('_', ' ')} {claims.get('contact')}"
    return _find(store, target, lambda u: (getattr(u, field) or "").lower() == contact, what)


def _find(store: Store, target: Organization, match: Callable[[User], bool], what: str) -> tuple[Organization, User]:
    """The named organization's matching user, else the one sub-organization that has one."""
    found = [u for u in target.users.values() if match(u)]
    if found:
        return target, found[0]
    below = [(o, u) for o in store.descendants(target.organization_id) for u in o.users.values() if match(u)]
    if len({o.organization_id for o, _ in below}) > 1:
        raise Unauthenticated(f"more than one suborg associated with {what}", error_code="CREDENTIAL_CONFLICT")
    if not below:
        raise Unauthenticated(
            f"no user with {what} in organization {target.organization_id} or its sub-organizations",
            error_code="PUBLIC_KEY_NOT_FOUND",
        )
    return below[0]


def session_user(store: Store, token: str, body: bytes, target_org_id: str, now_ms: int) -> tuple[Organization, User]:
    """The user of a live read-only session token, for a read of its organization (or a sub-organization)."""
    try:
        claims = tokens.verify(token, service_keys.private("notarizer").public_key(), double_hash=True)
    except ValueError as exc:
        raise Unauthenticated(f"invalid session: {exc}", error_code="SESSION_INVALID") from None
    if claims.get("session_type") != READ_ONLY:
        raise Unauthenticated(
            "invalid session: X-Session takes a read-only session token", error_code="SESSION_INVALID"
        )
    if int(claims.get("exp", 0)) <= now_ms // 1000:
        raise Unauthenticated("invalid session: expired", error_code="SESSION_EXPIRED")
    if _field(body, "type") is not None and _field(body, "parameters") is not None:
        raise PermissionDenied(
            "a read-only session (X-Session) cannot submit activities; stamp the request instead",
            error_code="REQUEST_NOT_AUTHORIZED",
        )
    org = store.orgs.get(str(claims.get("organization_id")))
    user = org.users.get(str(claims.get("user_id"))) if org is not None else None
    target = store.org(target_org_id)
    if org is None or user is None:
        raise Unauthenticated("invalid session: its user no longer exists", error_code="SESSION_INVALID")
    if not (org is target or store.is_below(target, org) or store.is_below(org, target)):
        raise PermissionDenied(
            f"the read-only session of organization {org.organization_id} cannot read organization {target_org_id}",
            error_code="REQUEST_NOT_AUTHORIZED",
        )
    return org, user


def _field(body: bytes, name: str) -> Any:
    parsed = json_or_none(body)
    return parsed.get(name) if isinstance(parsed, dict) else None
