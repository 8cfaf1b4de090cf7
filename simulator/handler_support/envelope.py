"""Building the activity envelope: ids, intent and result keys, the requester's vote,
the policy evaluation and, on request, app proofs."""

from __future__ import annotations

import hashlib
import json
import sys
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from simulator.clock import Source
from simulator.crypto import keys
from simulator.handler_support.context import Context
from simulator.state.activity import Activity
from simulator.state.records import User
from simulator.state.votes import Evaluation, Vote
from simulator.wire import Json

if TYPE_CHECKING:
    from simulator.auth import Principal

APP_PROOF_SCHEME = "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256"
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def fingerprint_of(raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def new_activity(ctx: Context, body: Json, raw: bytes, keys: Json, fingerprint: str | None = None) -> Activity:
    """An activity for this request, before its handler runs (status set by the caller); ``fingerprint``:
    ``fingerprint_of(raw)``, when the caller has it already."""
    principal = ctx.principal
    request = raw.decode("utf-8", errors="replace")  # kept once: the requester's vote signs this same text
    activity = Activity.new(
        ctx.source.uuid7(ctx.now_ms),
        ctx.org.organization_id,
        body["type"],
        {keys["intentKey"]: body["parameters"]},
        fingerprint=fingerprint or fingerprint_of(raw),
        created_ms=ctx.now_ms,
        requester_id=principal.user.user_id if principal else None,
        request=request,
        kept_timestamp=body["timestampMs"],
    )
    if principal is not None:
        activity.votes.append(make_vote(ctx, principal, activity, request, "VOTE_SELECTION_APPROVED"))
    return activity


def vote(ctx: Context, principal: Principal, activity: Activity, raw: bytes, selection: str) -> Any:
    """A vote cast by ``raw`` (a Vote record: it reads like the wire dict, ``ballot["id"]``)."""
    return make_vote(ctx, principal, activity, raw.decode("utf-8", errors="replace"), selection)


def make_vote(ctx: Context, principal: Principal, activity: Activity, message: str, selection: str) -> Vote:
    stamp = principal.stamp
    return Vote(
        vote_id=ctx.new_id(),
        user_id=principal.user.user_id,
        user=user_view(principal.user),
        activity_id=activity.activity_id,
        selection=selection,
        message=message,
        public_key=stamp_public_key(principal),
        signature=stamp.signature if stamp else "",
        scheme=sys.intern(stamp.scheme) if stamp else "",
        created_ms=ctx.now_ms,
    )


_USER_VIEWS: dict[str, Json] = {}  # user id -> the view last shown; votes share it while it stays the same
_USER_VIEWS_KEPT = 4096


def user_view(user: User) -> Json:
    """The voter as the vote shows them; identical views are one shared object (votes are many, users few)."""
    view = user.to_api()
    known = _USER_VIEWS.get(user.user_id)
    if known == view:
        return known
    if len(_USER_VIEWS) >= _USER_VIEWS_KEPT:
        _USER_VIEWS.clear()
    _USER_VIEWS[user.user_id] = view
    return view


def stamp_public_key(principal: Principal) -> str:
    stamp = principal.stamp
    if stamp is None:
        return ""
    if stamp.webauthn is None:
        key = principal.user.api_keys.get(principal.credential_id or "")
        return key.public_key if key is not None and key.public_key == stamp.handle else stamp.handle
    point = principal.user.authenticators[principal.credential_id or ""].public_key
    return keys.compressed_hex(ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point))


def record_evaluation(ctx: Context, activity: Activity, outcomes: list[Json], vote_id: str | None = None) -> None:
    """Keep a policy evaluation tied to its vote, the requester's by default (get_policy_evaluations)."""
    if vote_id is None:
        vote_id = activity.votes[0]["id"] if activity.votes else ""
    evaluation = Evaluation(
        ctx.new_id(), activity.activity_id, activity.organization_id, vote_id, shared_outcomes(outcomes), ctx.now_ms
    )
    evaluations = ctx.store.evaluations
    evaluations[activity.activity_id] = (*evaluations.get(activity.activity_id, ()), evaluation)  # few: a tuple


_OUTCOMES: dict[str, list[Json]] = {}  # the few outcome lists most evaluations have, one copy each
_OUTCOMES_KEPT = 1024


def shared_outcomes(outcomes: list[Json]) -> list[Json]:
    """One shared copy of an outcome list seen before (evaluations only ever copy it out)."""
    key: Any = outcomes_key(outcomes)
    if key is None:
        try:
            key = json.dumps(outcomes, sort_keys=True)
        except (TypeError, ValueError):
            return [dict(o) for o in outcomes]
    known = _OUTCOMES.get(key)
    if known is None:
        if len(_OUTCOMES) >= _OUTCOMES_KEPT:
            _OUTCOMES.clear()
        known = _OUTCOMES[key] = [dict(o) for o in outcomes]
    return known


def outcomes_key(outcomes: list[Json]) -> tuple[tuple[tuple[str, str], ...], ...] | None:
    """The outcome list as sorted pairs, when every key and value is a string (what the engine writes): equal
    exactly when their sorted JSON texts are, a fifth of the cost of writing one; None for any other list."""
    found = []
    for outcome in outcomes:
        if type(outcome) is not dict:
            return None
        pairs = tuple(sorted(outcome.items()))
        for name, value in pairs:
            if type(name) is not str or type(value) is not str:
                return None
        found.append(pairs)
    return tuple(found)


def complete(activity: Activity, result_key: str | None, result: Json, now_ms: int) -> None:
    activity.status = "ACTIVITY_STATUS_COMPLETED"
    activity.result = {result_key: result} if result_key else {}
    activity.updated_ms = now_ms


def app_proof(source: Source, activity: Activity, result: Json) -> Json:
    """A proof signed by a fresh ephemeral P-256 key, shaped like the service's v1AppProof.

    As QuorumOS's ephemeral P256Pair, the public key is the encryption key then the signing key
    (130 bytes) and the signature is r||s (64 bytes) over SHA-256 of the payload: what
    @turnkey/crypto's verifyAppProofSignature checks. The real key is vouched for by an enclave
    boot attestation, which cannot exist locally.
    """
    key = keys.new_ec_key(source, "p256")
    # the pair's encryption half signs nothing here: derived from the signing scalar, so the
    # seeded source draws no more than before
    scalar = key.private_numbers().private_value.to_bytes(32, "big")
    encryption = ec.derive_private_key(
        int.from_bytes(hashlib.sha256(scalar).digest(), "big") % P256_ORDER or 1, ec.SECP256R1()
    )
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
    r, s = decode_dss_signature(key.sign(payload.encode(), ec.ECDSA(hashes.SHA256())))
    return {
        "scheme": APP_PROOF_SCHEME,
        "publicKey": keys.uncompressed(encryption).hex() + keys.uncompressed(key).hex(),
        "proofPayload": payload,
        "signature": (r.to_bytes(32, "big") + s.to_bytes(32, "big")).hex(),
    }
