"""A series' recurrence rule and its dates: dateutil's rrule makes the dates (weekly on chosen
weekdays every N weeks, or monthly on the first working day), and Dutch public holidays (the
pay rules' list, portal/holidays.py) are skipped or moved to the next working day.

Pure: no database. Errors carry stable codes (`words.py` words them for the portal).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache

from dateutil.rrule import DAILY, FR, MO, MONTHLY, SA, SU, TH, TU, WE, WEEKLY, rrule

from portal.holidays import CAO_FEESTDAGEN, feestdagen

WEEKDAYS = (MO, TU, WE, TH, FR, SA, SU)
WORKING_DAYS = (MO, TU, WE, TH, FR)
MAX_PER_YEAR = 1000  # a rule that yields more in a year is refused
YEAR = timedelta(days=366)


@dataclass(frozen=True)
class Rule:
    """What a series repeats by: pattern, weekdays (Monday 0) and every how many weeks, the
    first day and the optional last, and what a holiday does (overslaan, volgende_werkdag)."""

    patroon: str
    weekdagen: tuple[int, ...]
    om_weken: int
    startdatum: date
    einddatum: date | None
    feestdagen: str


@dataclass(frozen=True)
class Occurrence:
    """One date of a rule: the rule's date, the day it is planned on (None: skipped), and
    the holiday that moved or skipped it."""

    datum: date
    gepland_datum: date | None
    feestdag: str | None

    @property
    def moved(self) -> bool:
        return self.gepland_datum is not None and self.gepland_datum != self.datum

    @property
    def skipped(self) -> bool:
        return self.gepland_datum is None


def weekdays_text(weekdays: tuple[int, ...]) -> str:
    return ",".join(str(day) for day in sorted(set(weekdays)))


def weekdays_of(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",") if part.strip())


@cache
def _holidays(year: int) -> dict[date, str]:
    return feestdagen(year, CAO_FEESTDAGEN)


def holiday(day: date) -> str | None:
    """The name of the public holiday on day (the pay rules' list), or None."""
    return _holidays(day.year).get(day)


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day)


def rule_set(rule: Rule, *, until: date) -> rrule:
    """The rule's dates as a dateutil rrule, from its first day to `until` (or its end)."""
    last = min(until, rule.einddatum) if rule.einddatum else until
    start, end = _midnight(rule.startdatum), _midnight(last)
    if rule.patroon == "eerste_werkdag":
        return rrule(MONTHLY, byweekday=WORKING_DAYS, bysetpos=1, dtstart=start, until=end)
    days = tuple(WEEKDAYS[day] for day in rule.weekdagen) or (WEEKDAYS[rule.startdatum.weekday()],)
    return rrule(WEEKLY, interval=rule.om_weken, byweekday=days, dtstart=start, until=end)


def next_working_day(day: date) -> date:
    """The first day after `day` that is Monday to Friday and no holiday."""
    later = rrule(DAILY, byweekday=WORKING_DAYS, dtstart=_midnight(day) + timedelta(days=1))
    return next(d.date() for d in later if holiday(d.date()) is None)


def occurrence(rule: Rule, day: date) -> Occurrence:
    """A date of the rule as it is planned: a holiday skipped or moved to the next working day
    (a first working day of the month always moves: a holiday is no working day)."""
    name = holiday(day)
    if name is None:
        return Occurrence(day, day, None)
    if rule.feestdagen == "volgende_werkdag" or rule.patroon == "eerste_werkdag":
        return Occurrence(day, next_working_day(day), name)
    return Occurrence(day, None, name)


def occurrences(rule: Rule, *, start: date, until: date) -> list[Occurrence]:
    """The rule's dates from `start` to `until` (both included), as they are planned."""
    return [
        occurrence(rule, moment.date())
        for moment in rule_set(rule, until=until)
        if moment.date() >= start
    ]


def preview(rule: Rule, *, today: date, count: int = 10) -> list[Occurrence]:
    """The next `count` dates of the rule from today (or its first day), skipped ones too."""
    start = max(today, rule.startdatum)
    found = []
    for moment in rule_set(rule, until=start + YEAR * 2):
        if moment.date() >= start:
            found.append(occurrence(rule, moment.date()))
            if len(found) >= count:
                break
    return found


def too_many(dates: rrule) -> bool:
    """Whether an rrule yields more than MAX_PER_YEAR dates in its first year."""
    first = next(iter(dates), None)
    if first is None:
        return False
    return len(dates.between(first, first + YEAR, inc=True)) > MAX_PER_YEAR


def rule_errors(rule: Rule) -> list[dict]:
    """Why a rule cannot be a series, at its fields: it yields nothing planned (every date
    skipped counts as nothing), or more than MAX_PER_YEAR dates a year."""
    if rule.patroon not in ("wekelijks", "eerste_werkdag"):
        return [{"field": "patroon", "code": "reeks_patroon", "message": "unknown pattern"}]
    if rule.patroon == "wekelijks" and not rule.weekdagen:
        return [{"field": "weekdagen", "code": "reeks_geen_dagen", "message": "no weekday"}]
    if not 1 <= rule.om_weken <= 52:
        return [{"field": "om_weken", "code": "reeks_om_weken", "message": "1 to 52 weeks"}]
    if rule.einddatum and rule.einddatum < rule.startdatum:
        return [{"field": "einddatum", "code": "reeks_einde_voor_start", "message": "before start"}]
    dates = rule_set(rule, until=rule.startdatum + YEAR)
    if too_many(dates):
        return [
            {
                "field": "weekdagen",
                "code": "reeks_te_vaak",
                "message": f"more than {MAX_PER_YEAR} occurrences a year",
                "params": {"max": MAX_PER_YEAR},
            }
        ]
    planned = (occurrence(rule, moment.date()) for moment in dates)
    if not any(not found.skipped for found in planned):
        return [
            {
                "field": "einddatum" if rule.einddatum else "weekdagen",
                "code": "reeks_leeg",
                "message": "the rule yields no occurrence",
            }
        ]
    return []
