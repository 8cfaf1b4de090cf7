"""The time functions of a policy's ``time`` field: ``time.now``, ``Timestamp(...)`` and ``CronSpan(...)``.

As time-based-policies.mdx and language.mdx ("Time expressions") describe them:

- ``Timestamp('<rfc3339>')``: an instant; only a zero UTC offset (``Z``, ``z``, ``+00:00``, ``-00:00``).
- ``CronSpan('<cron>', '<duration>', '<tz>')``: true when ``time.now`` lies in ``[fire, fire + duration)``
  for some fire of the cron schedule, read in the IANA zone ``tz``. The cron is a strict 5-field subset
  (numbers, ranges, lists and ``*``; no steps, macros, names or seconds; day-of-week 0-6, Sunday 0;
  day-of-month and day-of-week OR'd when both are restricted); the duration is whole ``d``/``h``/``m``,
  more than zero and at most 7 days. The duration is elapsed time added to the fire instant.

Arguments are checked when the policy is stored (:func:`check_call`), so evaluation only computes.
No cron library is used: the subset is small, and a library would accept forms the service refuses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache, total_ordering
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

UTC = timezone.utc

RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
ZERO_OFFSETS = ("Z", "z", "+00:00", "-00:00")
DURATION = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?")
MAX_DURATION = timedelta(days=7)
# minute, hour, day of month, month, day of week (0-6, Sunday 0)
CRON_FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day-of-month", 1, 31), ("month", 1, 12), ("day-of-week", 0, 6))
CRON_PART = re.compile(r"(\d+)(?:-(\d+))?")


class TimeArgumentError(ValueError):
    """A time function's argument the service refuses (a parse error at create_policy)."""


@total_ordering
@dataclass(frozen=True, slots=True)
class Instant:
    """A ``timestamp`` value: milliseconds since the epoch, UTC. Ordered and compared only with another."""

    ms: int

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Instant):
            return NotImplemented
        return self.ms < other.ms

    def __str__(self) -> str:
        return datetime.fromtimestamp(self.ms / 1000, UTC).isoformat().replace("+00:00", "Z")


def timestamp(text: str) -> Instant:
    """``Timestamp(text)``: TimeArgumentError unless RFC 3339 with a zero offset."""
    match = RFC3339.fullmatch(text)
    if match is None:
        raise TimeArgumentError(f"Timestamp({text!r}): not an RFC 3339 date-time (e.g. '2025-01-01T00:00:00Z')")
    if match.group(8) not in ZERO_OFFSETS:
        raise TimeArgumentError(f"Timestamp({text!r}): only a zero UTC offset is accepted (Z, +00:00 or -00:00)")
    try:
        moment = datetime.fromisoformat(text[: match.start(8)].replace("t", "T").replace(" ", "T")).replace(tzinfo=UTC)
    except ValueError as exc:
        raise TimeArgumentError(f"Timestamp({text!r}): {exc}") from None
    return Instant(int(moment.timestamp() * 1000))


def duration(text: str) -> timedelta:
    """A whole-number ``d``/``h``/``m`` duration, more than zero and at most 7 days."""
    match = DURATION.fullmatch(text)
    if not text or match is None:
        raise TimeArgumentError(f"duration {text!r}: write whole days, hours and minutes such as '8h', '90m', '1d12h'")
    days, hours, minutes = (int(g or 0) for g in match.groups())
    span = timedelta(days=days, hours=hours, minutes=minutes)
    if not timedelta(0) < span <= MAX_DURATION:
        raise TimeArgumentError(f"duration {text!r}: must be more than zero and no more than 7 days")
    return span


@dataclass(frozen=True, slots=True)
class Cron:
    """A parsed 5-field cron: the allowed values of each field, and which fields were restricted."""

    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    days_restricted: bool
    weekdays_restricted: bool

    def fires_on(self, day: date) -> bool:
        if day.month not in self.months:
            return False
        weekday = (day.weekday() + 1) % 7  # Python's Monday 0 -> cron's Sunday 0
        if self.days_restricted and self.weekdays_restricted:  # OR'd, as the docs say
            return day.day in self.days or weekday in self.weekdays
        return day.day in self.days and weekday in self.weekdays


@lru_cache(maxsize=256)
def cron(text: str) -> Cron:
    """The strict subset's cron; TimeArgumentError names what is not supported."""
    parts = text.split()
    if len(parts) != 5:
        raise TimeArgumentError(
            f"cron {text!r}: exactly 5 fields (minute hour day-of-month month day-of-week), no seconds or macros"
        )
    minutes, hours, days, months, weekdays = (
        _cron_field(part, name, low, high, text) for part, (name, low, high) in zip(parts, CRON_FIELDS, strict=True)
    )
    return Cron(minutes, hours, days, months, weekdays, parts[2] != "*", parts[4] != "*")


def _cron_field(part: str, name: str, low: int, high: int, text: str) -> frozenset[int]:
    if part == "*":
        return frozenset(range(low, high + 1))
    found: set[int] = set()
    for item in part.split(","):
        match = CRON_PART.fullmatch(item)
        if match is None:
            raise TimeArgumentError(
                f"cron {text!r}: {name} {item!r} is not supported (numbers, ranges a-b, lists a,b and * only; "
                "no steps, names or macros)"
            )
        first, last = int(match.group(1)), int(match.group(2) or match.group(1))
        if not low <= first <= last <= high:
            raise TimeArgumentError(f"cron {text!r}: {name} {item!r} is outside {low}-{high}")
        found.update(range(first, last + 1))
    return frozenset(found)


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise TimeArgumentError(f"time zone {name!r} is not an IANA time zone name (e.g. 'America/New_York')") from None


def check_call(function: str, args: Sequence[object]) -> None:
    """Refuse a time function's arguments the service refuses (called when the policy is stored)."""
    if function == "Timestamp":
        if len(args) != 1 or not isinstance(args[0], str):
            raise TimeArgumentError("Timestamp takes one string literal: Timestamp('2025-01-01T00:00:00Z')")
        timestamp(args[0])
        return
    if len(args) != 3 or not all(isinstance(a, str) for a in args):
        raise TimeArgumentError(
            "CronSpan takes three string literals: CronSpan('0 9 * * 1-5', '8h', 'America/New_York')"
        )
    cron(str(args[0]))
    duration(str(args[1]))
    zone(str(args[2]))


def cron_span(now: Instant, cron_text: str, duration_text: str, tz: str) -> bool:
    """Whether ``now`` lies in ``[fire, fire + duration)`` for some fire of the schedule in ``tz``."""
    schedule, span, where = cron(cron_text), duration(duration_text), zone(tz)
    moment = datetime.fromtimestamp(now.ms / 1000, UTC)
    local_today = moment.astimezone(where).date()
    # a window is at most 7 days long, so a fire that still covers now is at most 8 local days back
    for back in range(9):
        day = local_today - timedelta(days=back)
        if not schedule.fires_on(day):
            continue
        for hour in schedule.hours:
            for minute in schedule.minutes:
                fire = datetime(day.year, day.month, day.day, hour, minute, tzinfo=where).astimezone(UTC)
                if fire <= moment < fire + span:
                    return True
    return False
