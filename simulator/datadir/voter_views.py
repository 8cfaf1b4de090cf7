"""Voters written once each under the kept document's ``views`` and named in the votes that show them."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from simulator.datadir.watchers import Op
from simulator.state import codec


class Views:
    """Voters as activities show them (``Vote.user``, about 1.5 KB each, one shared dict per user state) written
    once each under ``views`` and named in the votes (``{"__view__": name}``): half of what an activity
    takes on disk, and of what a start reads."""

    def __init__(self) -> None:
        self.names: dict[int, tuple[Any, str]] = {}  # id of a shared view -> (the view, kept alive; its name)
        self.pairs: dict[str, tuple[str, Any]] = {}  # name -> (name, the view): one pair shared by the lazy activities

    def reset(self) -> None:
        """Forget the views written (a whole base follows: it writes those its activities name)."""
        self.names, self.pairs = {}, {}

    def remember(self, name: str, view: Any) -> tuple[str, Any]:
        """``view``, written under ``name`` (a whole base names it): the pair lazy activities hold."""
        self.names[id(view)] = (view, name)
        pair = self.pairs.get(name)
        if pair is None or pair[1] is not view:
            pair = self.pairs[name] = (name, view)
        return pair

    def pairs_of(self, named: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
        """The (name, view) pairs the votes of ``named`` (``votes_of``'s) name."""
        found = []
        for vote in named.get("votes") or ():
            user = vote.get("user") if isinstance(vote, dict) else None
            if isinstance(user, dict) and VIEW in user:
                found.append(self.pairs[user[VIEW]])
        return tuple(found)

    def votes_of(self, encoded: dict[str, Any], ops: list[Op]) -> dict[str, Any]:
        """``encoded`` (an activity) with its voters named, the new ones written by ``ops`` (a copy: the encoding
        may be shared with a memo)."""
        votes = encoded.get("votes")
        if not votes:
            return encoded
        named = []
        for vote in votes:
            user = vote.get("user") if isinstance(vote, dict) else None
            if not isinstance(user, dict):
                named.append(vote)
                continue
            known = self.names.get(id(user))
            if known is None or known[0] is not user:
                # named by content, so that names never collide with those of an earlier run or a base
                name = hashlib.sha256(json.dumps(user, sort_keys=True).encode()).hexdigest()[:24]
                known = self.names[id(user)] = (user, name)
                self.pairs[name] = (name, user)
                codec.note_inexact()  # wire JSON written as it is: the record is read back
                ops.append([["views", name], user])
            named.append({**vote, "user": {VIEW: known[1]}})
        return {**encoded, "votes": named}

    def document(self, document: dict[str, Any]) -> dict[str, Any]:
        """A whole kept document with its activities' voters named, and its ``views``."""
        self.reset()
        ops: list[Op] = []
        store = document["store"]
        activities = {k: self.votes_of(a, ops) for k, a in store["activities"].items()}
        return {**document, "store": {**store, "activities": activities}, "views": {op[0][1]: op[1] for op in ops}}


VIEW = "__view__"


def resolve_views(document: dict[str, Any]) -> None:
    """The voters named in the votes back in them (one shared dict each), ``views`` removed."""
    views = document.pop("views", None)
    if not views:
        return
    for activity in document["store"]["activities"].values():
        if not isinstance(activity, dict):  # a lazy activity (a base's, ``kept_base``): its voters come with it
            continue
        for vote in activity.get("votes") or ():
            user = vote.get("user") if isinstance(vote, dict) else None
            if isinstance(user, dict) and VIEW in user:
                vote["user"] = views[user[VIEW]]
