"""Loading: a data directory's change log applied, record by record, to the kept document of its base.

A record's operations (``tracker``) are ``[path, value]`` (set) or ``[path]`` (remove); idempotent, so a record
applied over a state that already holds some of its changes gives the same document.
"""

from __future__ import annotations

import random
from typing import Any

from simulator.clock import replay_draws
from simulator.datadir.voter_views import resolve_views
from simulator.state import codec


class LogApplier:
    """A kept document built from a base and change records, applied in order."""

    def __init__(self, document: dict[str, Any] | None) -> None:
        self.document = document
        if document is not None:
            self._defaults(document)
        self.activity_ids: dict[str, dict[str, bool]] = {}  # organizations' activity ids, as dicts while applying
        self.source_base: Any = None
        self.draws: list[list[Any]] = []

    def whole(self, document: dict[str, Any]) -> None:
        self.document, self.activity_ids, self.source_base, self.draws = document, {}, None, []
        self._defaults(document)

    @staticmethod
    def _defaults(document: dict[str, Any]) -> None:
        """What records may write into that a document of an earlier build lacks."""
        document.setdefault("views", {})
        document.setdefault("webhooks", {"deliveries": [], "nextEvent": 0})

    def apply(self, record: dict[str, Any]) -> None:
        if self.document is None:
            raise ValueError("a change record with no state before it")
        for op in record.get("ops", ()):
            path = op[0]
            if len(path) == 5 and path[:2] == ["store", "orgs"] and path[3] == "activities":
                ids = self._ids(path[2])
                if len(op) == 2:
                    ids[path[4]] = True
                else:
                    ids.pop(path[4], None)
                continue
            if path[:2] == ["store", "orgs"] and (len(path) == 3 or (len(path) == 4 and path[3] == "activities")):
                self.activity_ids.pop(path[2], None)  # the organization, or its activity ids, written whole
            parent = self.document
            for key in path[:-1]:
                parent = parent[key]
            if isinstance(parent, list):  # the webhook delivery log: entries changed or appended, by position
                if path[-1] == len(parent):
                    parent.append(op[1])
                else:
                    parent[path[-1]] = op[1]
            elif len(op) == 2:
                parent[path[-1]] = op[1]
            else:
                parent.pop(path[-1], None)
        source = record.get("source")
        if source:
            if "base" in source:  # always so after a whole document: draws count from this base
                self.source_base = source["base"]
                self.draws = []
            self.draws = self.draws[: source["from"]] + source["draws"]

    def _ids(self, org_id: str) -> dict[str, bool]:
        ids = self.activity_ids.get(org_id)
        if ids is None:
            held = self.document["store"]["orgs"][org_id]["activities"]  # type: ignore[index]
            ids = self.activity_ids[org_id] = dict.fromkeys(held.get(codec.ACTIVITY_IDS, ()), True)
        return ids

    def result(self) -> dict[str, Any] | None:
        document = self.document
        if document is None:
            return None
        resolve_views(document)
        for org_id, ids in self.activity_ids.items():
            document["store"]["orgs"][org_id]["activities"] = {codec.ACTIVITY_IDS: list(ids)}
        self.activity_ids = {}
        if self.source_base is not None or self.draws:
            base = codec.decode(self.source_base if self.source_base is not None else document["source"])
            generator = random.Random()
            generator.setstate(base)
            replay_draws(generator, self.draws)
            document["source"] = codec.encode(generator.getstate())
            self.source_base, self.draws = None, []
        return document
