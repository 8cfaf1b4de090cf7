"""The state's JSON back into records: the codec's way in (``encoding`` is the way out).

Documents of older versions (activities in full under their organizations, intents and results as
values) are read too; a settled activity is decoded when first read (``LazyActivity``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from simulator.state import activity, records, store, votes
from simulator.state.encoding import ACTIVITY_IDS, PLAIN_FIELDS
from simulator.state.lazy_activity import KeptEvaluations, LazyActivity
from simulator.state.tables import ActivityIds, ActivityTable

CLASSES: dict[str, type] = {
    cls.__name__: cls
    for module in (records, votes, activity, store)
    for cls in vars(module).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls)
}
_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})  # taken as they are


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [v if type(v) in _JSON_SCALARS else decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__bytes__" in value:
        return bytes.fromhex(value["__bytes__"])
    if "__set__" in value:
        return {decode(v) for v in value["__set__"]}
    if "__tuple__" in value:
        return tuple(v if type(v) in _JSON_SCALARS else decode(v) for v in value["__tuple__"])
    if "__items__" in value:
        return {decode(k): decode(v) for k, v in value["__items__"]}
    if ACTIVITY_IDS in value:
        return ActivityIds(value[ACTIVITY_IDS])
    if "__type__" in value:
        return build(value)
    return {k: v if type(v) in _JSON_SCALARS else decode(v) for k, v in value.items()}


def build(value: dict[str, Any]) -> Any:
    name = value["__type__"]
    if name == "Activity" and LazyActivity.takes(value):
        return LazyActivity.of(value)
    return build_now(value)


def build_now(value: dict[str, Any]) -> Any:
    name = value["__type__"]
    plain = PLAIN_FIELDS.get(name, ())
    fields = {
        k: v if k in plain or type(v) in _JSON_SCALARS else decode(v) for k, v in value.items() if k != "__type__"
    }
    if name == "Store":
        made = store.Store()
        vars(made).update(fields)
        made.adopt()
        resolve_activities(made)
        return made
    if name == "Activity" and "intent" in fields:
        return activity.Activity.from_older(fields)
    if name not in CLASSES:
        raise ValueError(f"unknown record type {name!r} in the state")
    if name == "Organization" and "default_features_given" not in fields:
        # written by a release before 0.3.0, whose organizations started without features and where none was
        # enforced: the documented defaults keep e-mail auth and OTP working in them, as they did
        fields["features"] = {**dict.fromkeys(store.DEFAULT_FEATURE_NAMES, ""), **fields.get("features", {})}
    if name == "Pending":
        fields["wait"] = activity.Pending.wait_from_document(
            fields.pop("polls_left", None), fields.pop("ready_at_ms", None)
        )
    made = CLASSES[name](**fields)
    if isinstance(made, activity.Activity):
        for vote in made.votes:
            if isinstance(vote, votes.Vote) and not vote.message:
                vote.message = made.request  # the one string, shared again
    return made


LazyActivity.decoder = build_now
KeptEvaluations.decoder = decode


def resolve_activities(made: store.Store) -> None:
    """Organizations' activity ids back to the store's activities (older documents hold them in full)."""
    for org in made.orgs.values():
        ids = org.activities
        if isinstance(ids, ActivityIds):
            org.activities = ActivityTable((i, made.activities[i]) for i in ids if i in made.activities)
        else:  # an older document: one record per table; the store's copy is the one kept
            org.activities = ActivityTable((i, made.activities.get(i, a)) for i, a in ids.items())
