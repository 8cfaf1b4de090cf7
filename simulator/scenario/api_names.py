"""What scenario checks compare names against: the activity types, their parameters, the operations.

Read from the endpoint schemas through ``simulator.operations.activity_types`` (schemas/submit/*.json carry
``x-activity-types`` and one ``parameters`` schema per type), once per process.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache

from simulator.operations.activity_types import kind_of, submit_schemas
from simulator.paths import data_dir


@dataclass(frozen=True)
class Catalog:
    parameters: dict[str, frozenset[str]]  # activity type -> its parameter names
    submit_types: dict[str, tuple[str, ...]]  # submit operation -> the activity types it accepts
    queries: frozenset[str]

    def kinds(self) -> set[str]:
        return {kind_of(t) for t in self.parameters}

    def knows_type(self, name: str) -> bool:
        """A versioned type (ACTIVITY_TYPE_CREATE_USERS_V3) or a kind (CREATE_USERS), as rules match them."""
        return name in self.parameters or name in self.kinds()

    def closest_types(self, name: str) -> list[str]:
        known = sorted(self.kinds() | set(self.parameters))
        return difflib.get_close_matches(name, known, n=3, cutoff=0.6)

    def parameters_of(self, name: str) -> frozenset[str]:
        """The parameter names of a type, or of every version of a kind."""
        found = [p for t, p in self.parameters.items() if name in (t, kind_of(t))]
        return frozenset().union(*found) if found else frozenset()


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    declared = submit_schemas()
    parameters = {t: frozenset((schema or {}).get("properties", {})) for t, schema in declared.parameters.items()}
    queries = frozenset(p.stem for p in (data_dir("schemas") / "query").glob("*.json"))
    return Catalog(parameters, dict(declared.types), queries)
