"""What each /v1/... call does: find the organization, then submit through the public interface,
stamped with the proxy's key, so authentication, policies and the activity log see it."""

from __future__ import annotations

import json

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from simulator import pipeline
from simulator.auth.stamps import P256
from simulator.auth_proxy_config import config as proxy_config
from simulator.crypto import keys
from simulator.errors import ApiError, InvalidArgument
from simulator.model.oidc import token_claims
from simulator.pipeline import Services, client_time_ms
from simulator.state.store import Organization
from simulator.wire import Json, b64url_encode

CLAIMS = ("iss", "sub", "aud")


def submit(
    sim: Services,
    config: Json,
    op: str,
    activity_type: str,
    parameters: Json,
    org_id: str | None = None,
    result_key: str | None = None,
) -> Json:
    """Run one activity as the proxy user and return its result, or raise the interface's error."""
    body = {
        "parameters": parameters,
        "organizationId": org_id or config["organizationId"],
        "timestampMs": str(client_time_ms(sim)),
        "type": activity_type,
    }
    raw = json.dumps(body).encode()
    key = proxy_config.proxy_key(config)
    signature = key.sign(raw, ec.ECDSA(hashes.SHA256())).hex()
    stamp = b64url_encode(
        json.dumps({"publicKey": keys.compressed_hex(key), "scheme": P256, "signature": signature}).encode()
    )
    activity = pipeline.submit(sim, op, raw, {"X-Stamp": stamp}, "application/json")["activity"]
    if activity["status"] != "ACTIVITY_STATUS_COMPLETED":
        failure = activity.get("failure") or {}
        error = ApiError(failure.get("message") or f"activity {activity['id']} is {activity['status']}")
        error.status, error.grpc_code = 400, failure.get("code", 9)
        raise error
    result = activity["result"]
    return result[result_key] if result_key else next(v for k, v in result.items() if k != "activity")


def sub_orgs(sim: Services, config: Json) -> list[Organization]:
    return sim.store.descendants(config["organizationId"])


def find_account(sim: Services, config: Json, filter_type: str, value: str) -> str | None:
    """The sub-organization of the configuration's organization that the filter names, if any."""
    lowered = value.lower()
    for org in sub_orgs(sim, config):
        if matches(org, filter_type, value, lowered):
            return org.organization_id
    return None


def matches(org: Organization, filter_type: str, value: str, lowered: str) -> bool:
    users = list(org.users.values())
    if filter_type == "EMAIL":
        return any((u.email or "").lower() == lowered for u in users)
    if filter_type == "PHONE_NUMBER":
        return any(u.phone_number == value for u in users)
    if filter_type == "USERNAME":
        return any(u.name == value for u in users)
    if filter_type == "NAME":
        return org.name == value
    if filter_type == "CREDENTIAL_ID":
        return any(value in (a.credential_id for a in u.authenticators.values()) for u in users)
    if filter_type == "PUBLIC_KEY":
        return any(lowered in {k.public_key for k in u.api_keys.values()} for u in users)
    if filter_type in ("OIDC_TOKEN", "OIDC_CLAIMS"):
        claims = token_claims(value) if filter_type == "OIDC_TOKEN" else oidc_claims_filter(value)
        aud = claims.get("aud")
        wanted = (claims.get("iss"), claims.get("sub"), aud[0] if isinstance(aud, list) and aud else aud)
        return any((p["issuer"], p["subject"], p["audience"]) == wanted for u in users for p in u.oauth_providers)
    raise InvalidArgument(
        f"unknown filterType {filter_type!r}: expected EMAIL, PHONE_NUMBER, OIDC_TOKEN, OIDC_CLAIMS, "
        "PUBLIC_KEY, CREDENTIAL_ID, NAME or USERNAME"
    )


def oidc_claims_filter(value: str) -> Json:
    """OIDC_CLAIMS (core 2.x): the filter value is the JSON text of {iss, sub, aud}."""
    try:
        claims = json.loads(value)
    except ValueError:
        claims = None
    if not isinstance(claims, dict) or any(not isinstance(claims.get(k), str) or not claims[k] for k in CLAIMS):
        raise InvalidArgument(
            f"invalid filterValue for OIDC_CLAIMS: expected the JSON text of an object with string iss, sub and aud, "
            f"got {value[:120]!r}"
        )
    return claims


def org_for_token(sim: Services, config: Json, token: str) -> str:
    """The sub-organization whose user the verification token's contact belongs to."""
    claims = token_claims(token)
    kind = "PHONE_NUMBER" if claims.get("verification_type") == "OTP_TYPE_SMS" else "EMAIL"
    found = find_account(sim, config, kind, str(claims.get("contact", "")))
    if found is None:
        raise InvalidArgument("no sub-organization has a user with the verification token's contact; sign up first")
    return found
