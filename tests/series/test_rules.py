"""A series' rule: dateutil's dates, Dutch public holidays skipped or moved to the next
working day, and rules that yield nothing or too much refused at the field."""

from __future__ import annotations

from datetime import date

from dateutil.rrule import HOURLY, rrule

from portal.series.rules import (
    Rule,
    holiday,
    next_working_day,
    occurrences,
    preview,
    rule_errors,
    too_many,
)

MONDAY = date(2026, 12, 14)
FOUR_WEEKS = date(2027, 1, 10)


def manure_run(choice: str) -> Rule:
    return Rule("wekelijks", (0, 4), 1, MONDAY, None, choice)


def planned(rule: Rule) -> list[date]:
    found = occurrences(rule, start=MONDAY, until=FOUR_WEEKS)
    return [o.gepland_datum for o in found if o.gepland_datum]


def test_skipping_leaves_out_christmas_and_new_years_day():
    assert planned(manure_run("overslaan")) == [
        date(2026, 12, 14), date(2026, 12, 18), date(2026, 12, 21), date(2026, 12, 28),
        date(2027, 1, 4), date(2027, 1, 8),
    ]  # fmt: skip
    skipped = [o for o in occurrences(manure_run("overslaan"), start=MONDAY, until=FOUR_WEEKS)
               if o.skipped]  # fmt: skip
    assert [(o.datum, o.feestdag) for o in skipped] == [
        (date(2026, 12, 25), "Eerste kerstdag"),
        (date(2027, 1, 1), "Nieuwjaarsdag"),
    ]


def test_the_next_working_day_is_the_monday_after():
    """Friday 25 December moves past Saturday 26 (Second Christmas Day) to Monday 28; Friday
    1 January to Monday 4 January."""
    found = occurrences(manure_run("volgende_werkdag"), start=MONDAY, until=FOUR_WEEKS)
    moved = {o.datum: o.gepland_datum for o in found if o.moved}
    assert moved == {date(2026, 12, 25): date(2026, 12, 28), date(2027, 1, 1): date(2027, 1, 4)}
    assert len(found) == 8
    assert next_working_day(date(2026, 12, 24)) == date(2026, 12, 28)
    second_christmas_day = date(2026, 12, 26)
    assert holiday(second_christmas_day) == "Tweede kerstdag"
    assert second_christmas_day.weekday() == 5  # a Saturday: no working day anyway


def test_every_other_week_and_the_first_working_day_of_the_month():
    fortnight = Rule("wekelijks", (3,), 2, date(2026, 12, 3), None, "overslaan")
    assert [o.datum for o in preview(fortnight, today=date(2026, 12, 1), count=3)] == [
        date(2026, 12, 3), date(2026, 12, 17), date(2026, 12, 31),
    ]  # fmt: skip
    monthly = Rule("eerste_werkdag", (), 1, date(2026, 11, 1), None, "overslaan")
    assert [o.gepland_datum for o in preview(monthly, today=date(2026, 11, 1), count=3)] == [
        date(2026, 11, 2), date(2026, 12, 1), date(2027, 1, 4),
    ]  # fmt: skip


def test_a_rule_that_yields_nothing_is_refused_at_the_field():
    only_christmas = Rule("wekelijks", (4,), 1, date(2026, 12, 25), date(2026, 12, 25), "overslaan")
    assert [e["code"] for e in rule_errors(only_christmas)] == ["reeks_leeg"]
    no_days = Rule("wekelijks", (), 1, MONDAY, None, "overslaan")
    assert [(e["field"], e["code"]) for e in rule_errors(no_days)] == [
        ("weekdagen", "reeks_geen_dagen")
    ]
    tuesday_to_wednesday = Rule("wekelijks", (0,), 1, date(2026, 12, 15), date(2026, 12, 16),
                                "overslaan")  # fmt: skip
    assert rule_errors(tuesday_to_wednesday)[0]["field"] == "einddatum"


def test_more_than_a_thousand_a_year_is_too_many():
    assert too_many(rrule(HOURLY, dtstart=date(2026, 1, 1), count=2000))
    assert not too_many(rrule(HOURLY, dtstart=date(2026, 1, 1), count=900))
    assert rule_errors(manure_run("overslaan")) == []
