"""Building the activity envelope: ids, intent and result keys, the requester's vote,
the policy evaluation and, on request, app proofs."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from simulator.activities.context import Context, Json
from simulator.clock import Source
from simulator.crypto import keys
from simulator.state.activity import Activity
from simulator.state.records import timestamp

if TYPE_CHECKING:
    from simulator.auth import Principal

APP_PROOF_SCHEME = "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256"


def fingerprint_of(raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def new_activity(ctx: Context, body: Json, raw: bytes, keys: Json) -> Activity:
    """An activity for this request, before its handler runs (status set by the caller)."""
    principal = ctx.principal
    activity = Activity(
        activity_id=ctx.source.uuid7(ctx.now_ms),
        organization_id=ctx.org.organization_id,
        activity_type=body["type"],
        intent={keys["intentKey"]: body["parameters"]},
        fingerprint=fingerprint_of(raw),
        timestamp_ms=body["timestampMs"],
        created_ms=ctx.now_ms,
        requester_id=principal.user.user_id if principal else None,
    )
    if principal is not None:
        activity.votes.append(vote(ctx, principal, activity, raw, "VOTE_SELECTION_APPROVED"))
    return activity


def vote(ctx: Context, principal: Principal, activity: Activity, raw: bytes, selection: str) -> Json:
    stamp = principal.stamp
    return {
        "id": ctx.new_id(),
        "userId": principal.user.user_id,
        "user": principal.user.to_api(),
        "activityId": activity.activity_id,
        "selection": selection,
        "message": raw.decode("utf-8", errors="replace"),
        "publicKey": stamp_public_key(principal),
        "signature": stamp.signature if stamp else "",
        "scheme": stamp.scheme if stamp else "",
        "createdAt": timestamp(ctx.now_ms),
    }


def stamp_public_key(principal: Principal) -> str:
    stamp = principal.stamp
    if stamp is None:
        return ""
    if stamp.webauthn is None:
        return stamp.handle
    point = principal.user.authenticators[principal.credential_id or ""].public_key
    return keys.compressed_hex(ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point))


def record_evaluation(ctx: Context, activity: Activity, outcomes: list[Json], vote_id: str | None = None) -> None:
    """Keep a policy evaluation tied to its vote, the requester's by default (get_policy_evaluations)."""
    if vote_id is None:
        vote_id = activity.votes[0]["id"] if activity.votes else ""
    ctx.store.evaluations.setdefault(activity.activity_id, []).append(
        {
            "id": ctx.new_id(),
            "activityId": activity.activity_id,
            "organizationId": activity.organization_id,
            "voteId": vote_id,
            "policyEvaluations": outcomes,
            "createdAt": timestamp(ctx.now_ms),
        }
    )


def complete(activity: Activity, result_key: str | None, result: Json, now_ms: int) -> None:
    activity.status = "ACTIVITY_STATUS_COMPLETED"
    activity.result = {result_key: result} if result_key else {}
    activity.updated_ms = now_ms


def app_proof(source: Source, activity: Activity, result: Json) -> Json:
    """A proof signed by a fresh ephemeral P-256 key, shaped like the service's v1AppProof.

    The real key is vouched for by an enclave boot attestation, which cannot exist locally.
    """
    key = keys.new_ec_key(source, "p256")
    payload = json.dumps(
        {
            "type": "APP_PROOF_TYPE_ACTIVITY_RESULT",
            "activityId": activity.activity_id,
            "organizationId": activity.organization_id,
            "activityType": activity.activity_type,
            "fingerprint": activity.fingerprint,
            "timestampMs": str(activity.updated_ms or activity.created_ms),
            "result": result,
        },
        separators=(",", ":"),
        sort_keys=True,
    )
    signature = key.sign(payload.encode(), ec.ECDSA(hashes.SHA256()))
    return {
        "scheme": APP_PROOF_SCHEME,
        "publicKey": keys.uncompressed(key).hex(),
        "proofPayload": payload,
        "signature": signature.hex(),
    }
