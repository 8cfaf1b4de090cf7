"""Values matched by role, not by value: what makes two runs of one suite comparable.

Ids, fingerprints, addresses, keys, signatures and timestamps differ between the real service and a simulator
(and between two seeds), so a string is compared by where it came from: the first place it was seen in this
recording (a request's field, sent by the client, or an earlier answer's, produced by the service), named by
the aligned exchange's number and the field's path, the same on both sides. A value seen for the first time in
an answer is ``produced`` (only its type is compared); the same id sent back later is that role on both sides.
Short words, enum values, numbers and sentences are compared as they are, a sentence (an error message) with
the values it names replaced by their roles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

CONSTANT = re.compile(r"^[A-Z0-9_]+$")  # enum values such as ACTIVITY_STATUS_COMPLETED: compared as they are
MIN_PRODUCED = 8  # shorter strings are names and flags (recording.py draws the line at the same length)
# fields whose values are times, counters of time or parts of a signature: their type is compared, not their value
VOLATILE_KEYS = frozenset(
    {"seconds", "nanos", "timestampMs", "createdAt", "updatedAt", "expiresAt", "expirationTime", "exp", "iat", "v"}
)
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
LONG_TOKEN = re.compile(r"\b(?:0x)?[0-9a-fA-F]{16,}\b|\b[1-9A-HJ-NP-Za-km-z]{32,}\b|\b\d{10,}\b")
PRODUCED = "(a value the answer produced)"


@dataclass(frozen=True)
class Norm:
    """A string as compared: ``role`` (first seen elsewhere: ``label`` names where), ``produced`` (first seen
    here) or ``literal`` (``label`` is the text, its named values replaced)."""

    kind: str
    label: str

    def shown(self) -> str:
        if self.kind == "role":
            return f"<{self.label}>"
        if self.kind == "produced":
            return PRODUCED
        return self.label


def looks_produced(value: str, key: str) -> bool:
    if key in VOLATILE_KEYS:
        return True
    text = value.strip()
    if text.isdigit():
        return len(text) >= 10  # an epoch time in seconds or milliseconds
    if "/" in text and "." in text:
        return False  # a URL or a type name (type.googleapis.com/...): base64 and JWTs never hold both
    return len(text) >= MIN_PRODUCED and not CONSTANT.match(text) and " " not in text


def is_time(value: str, key: str) -> bool:
    return key in VOLATILE_KEYS or (value.isdigit() and len(value) >= 10)


class Roles:
    """The roles of one recording's values, learnt exchange by exchange in the aligned order."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}

    def learn(self, value: Any, where: str) -> None:
        """Every produced-looking string in ``value`` not seen yet gets the role ``where`` + its path."""
        # shortest path first, then by name: the same role on both sides whatever order each wrote its keys in
        for path, key, text in sorted(strings(value, ""), key=lambda found: (found[0].count("."), found[0])):
            if text not in self.first and looks_produced(text, key) and not is_time(text, key):
                self.first[text] = f"{where} {path}" if path else where

    def norm(self, value: str, key: str) -> Norm:
        if is_time(value, key):
            return Norm("produced", "")  # a time is no role: two fields may hold the same second by chance
        if value in self.first:
            return Norm("role", self.first[value])
        if looks_produced(value, key):
            return Norm("produced", "")
        return Norm("literal", self.sentence(value))

    def sentence(self, text: str) -> str:
        """A message with every value it names as that value's role (else a placeholder), so ids never show."""
        for known in sorted((k for k in self.first if len(k) >= MIN_PRODUCED and k in text), key=len, reverse=True):
            text = text.replace(known, f"<{self.first[known]}>")
        text = UUID.sub("<id>", text)
        return LONG_TOKEN.sub("<value>", text)


def strings(value: Any, path: str, key: str = "") -> list[tuple[str, str, str]]:
    """(path, key, string) of every string in a JSON value, depth first."""
    if isinstance(value, dict):
        found = []
        for k, child in value.items():
            found.extend(strings(child, f"{path}.{k}" if path else str(k), str(k)))
        return found
    if isinstance(value, list):
        found = []
        for i, child in enumerate(value):
            found.extend(strings(child, f"{path}.{i}" if path else str(i), key))
        return found
    return [(path, key, value)] if isinstance(value, str) else []
