"""Billing periods: from a day through a day (both included, at most a year, in this century),
and the UTC instants that bound such a period in the carrier's time zone."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from portal.errors import ValidationFailed

# A period is at most a year and lies in this century: a bound like 9999-12-31 would
# overflow when the day after it is computed.
FIRST_DAY = date(2000, 1, 1)
LAST_DAY = date(2099, 12, 31)


def longer_than_a_year(first: date, last: date) -> bool:
    """True when first..last (both included) is more than a year: 1 Jan to 31 Dec is a year."""
    try:
        year_later = first.replace(year=first.year + 1)
    except ValueError:  # 29 February
        year_later = date(first.year + 1, 3, 1)
    return last >= year_later


def check_period(first: date, last: date) -> None:
    """ValidationFailed unless first..last (both included) is a sensible billing period; the
    errors name the fields van and tot."""
    errors = []
    for field, day in (("van", first), ("tot", last)):
        if not FIRST_DAY <= day <= LAST_DAY:
            errors.append({"field": field, "message": f"between {FIRST_DAY} and {LAST_DAY}"})
    if not errors and last < first:
        errors.append({"field": "tot", "message": "before van"})
    elif not errors and longer_than_a_year(first, last):
        errors.append({"field": "tot", "message": "the period is longer than a year"})
    if errors:
        raise ValidationFailed(errors)


def bounds(zone: ZoneInfo, first: date, last: date) -> tuple[datetime, datetime]:
    """The period as UTC instants [start, end): from first 00:00 to the day after last, local."""
    start = datetime.combine(first, time(0), tzinfo=zone).astimezone(UTC)
    end = datetime.combine(last + timedelta(days=1), time(0), tzinfo=zone).astimezone(UTC)
    return start, end
