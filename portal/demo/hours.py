"""Demo hours: a month of the drivers' work days and activities as the app recorded them,
the planner's week approvals, and corrections the drivers answered or still have to."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

# A driver's day as recorded in the app: start time, then (activity, minutes) back to back.
DAY_PLANS = [
    ("06:00", [("overig_werk", 15), ("rijden", 70), ("laden", 40), ("rijden", 55), ("lossen", 35),
               ("pauze", 50), ("rijden", 45), ("wachten", 25), ("laden", 35), ("rijden", 80),
               ("lossen", 30), ("rijden", 40), ("overig_werk", 15)]),
    ("05:30", [("rijden", 50), ("laden", 45), ("rijden", 95), ("wachten", 40), ("lossen", 30),
               ("pauze", 50), ("rijden", 60), ("laden", 30), ("rijden", 65), ("lossen", 25),
               ("rijden", 35), ("overig_werk", 20)]),
    # Livestock goes at night: from the evening into the next morning.
    ("20:00", [("overig_werk", 20), ("rijden", 60), ("laden", 55), ("rijden", 110),
               ("beschikbaarheid", 30), ("lossen", 45), ("pauze", 50), ("rijden", 95),
               ("overig_werk", 30)]),
]  # fmt: skip


WEEKS_BACK = 4  # this week and the four before it: a month of hours


def seed_hours(carrier_id, driver_rows, planner) -> None:
    """Work days of the last four weeks and this week up to an hour ago: day shifts, one
    night shift; the older weeks approved for everyone, last week approved for the first
    driver, approved and reopened for the second, and for the third corrected by the planner
    (one correction answered, one waiting for the driver)."""
    from portal.audit.service import Actor
    from portal.hours import weeks
    from portal.hours.totals import IsoWeek

    zone = ZoneInfo("Europe/Amsterdam")
    now = datetime.now(UTC)
    today = datetime.now(zone).date()
    this_week = IsoWeek.of(today)
    office = Actor("user", planner.id, planner.naam)
    _pay_rules(carrier_id, driver_rows, this_week.shifted(-WEEKS_BACK - 1).monday, office)
    for index, driver in enumerate(driver_rows):
        days = [d for n in range(WEEKS_BACK, -1, -1) for d in this_week.shifted(-n).days()]
        for day in days:
            _work_day(carrier_id, index, driver, day, zone, now)
    for n in range(WEEKS_BACK, 1, -1):
        week = this_week.shifted(-n)
        for driver in driver_rows:
            weeks.approve_week(
                carrier_id=carrier_id, driver_id=driver.id, week=week, actor=office,
                now=datetime.combine(week.sunday + timedelta(days=1), time(9), tzinfo=zone),
            )  # fmt: skip
    last_week = this_week.shifted(-1)
    approved_at = datetime.combine(this_week.monday, time(9, 10), tzinfo=zone).astimezone(UTC)
    for index, driver in enumerate(driver_rows[:2]):
        weeks.approve_week(
            carrier_id=carrier_id, driver_id=driver.id, week=last_week, actor=office,
            now=min(approved_at, now),
        )  # fmt: skip
        if index == 1:
            weeks.reopen_week(
                carrier_id=carrier_id, driver_id=driver.id, week=last_week, actor=office,
                reden="Pauze op woensdag ontbrak; Piet vult die aan.",
                now=min(approved_at + timedelta(hours=2, minutes=25), now),
            )  # fmt: skip
    if len(driver_rows) > 2:
        _correct_last_week(carrier_id, driver_rows[2], last_week, office, zone, now)
    # The month's first approved weeks went to payroll.
    from portal.hours.payroll import batches as payroll

    first = this_week.shifted(-WEEKS_BACK)
    payroll.export(
        carrier_id=carrier_id, van=first, tot=first.shifted(1), opnieuw=False,
        actor_label=planner.naam,
    )  # fmt: skip


def _work_day(carrier_id, index: int, driver, day, zone: ZoneInfo, now: datetime) -> None:
    """One day of a driver, as the app recorded it: the second driver works Saturdays, the
    third nights on Tuesday and Thursday (resting the day after); an hour ago at the latest."""
    from portal.audit.service import Actor
    from portal.hours import service as hours
    from portal.hours.days import activities

    night = index == 2 and day.weekday() in (1, 3)
    resting = index == 2 and day.weekday() in (2, 4)  # after a night shift
    if resting or (day.weekday() >= (6 if index == 1 else 5) and not night):
        return  # and weekends off (the second driver works Saturdays)
    clock, plan = DAY_PLANS[2] if night else DAY_PLANS[index % 2]
    hour, minute = (int(part) for part in clock.split(":"))
    start = datetime.combine(day, time(hour, minute), tzinfo=zone).astimezone(UTC)
    k = day.toordinal()  # varies the day a little, and every week differently
    start += timedelta(minutes=(k * 7 + index * 11) % 20)
    lengths = [timedelta(minutes=m + (k + n) % 9 - 4) for n, (_, m) in enumerate(plan)]
    end = start + sum(lengths, timedelta())
    if end > now - timedelta(hours=1):
        return
    actor = Actor("driver", driver.id, driver.naam)
    work_day = hours.start_work_day(
        carrier_id=carrier_id, driver_id=driver.id, actor=actor,
        gestart_op=start, beeindigd_op=end, now=now,
    )  # fmt: skip
    begin = start
    for (soort, _), length in zip(plan, lengths, strict=True):
        activities.add_activity(
            carrier_id=carrier_id, work_day_id=work_day.id, actor=actor, now=now,
            data={"soort": soort, "begin": begin, "einde": begin + length},
        )  # fmt: skip
        begin += length


def _pay_rules(carrier_id, driver_rows, since, office) -> None:
    """The carrier's pay rules from before the demo month: the CAO preset with allowance
    amounts filled in (demo amounts, not this year's CAO figures), and 32 contract hours for
    the last driver."""
    from dataclasses import replace
    from decimal import Decimal

    from portal.drivers import service as drivers
    from portal.hours import cao
    from portal.hours.payroll import rulesets

    preset = cao.cao_preset(since)
    allowances = preset.verblijfkosten
    per_hour = {"per uur afwezig": Decimal("0.90"), "avond": Decimal("1.50"),
                "avond bij vertrek voor 14:00": Decimal("1.50"),
                "avond bij vertrek voor 17:00": Decimal("1.50"),
                "nacht bij aankomst na 12:00": Decimal("1.20")}  # fmt: skip
    per_day = {"dagbedrag": Decimal("45.00"),
               "extra bij vertrek na 14:00 en 12 uur afwezig": Decimal("15.00")}  # fmt: skip

    def priced(tarief):
        return replace(
            tarief,
            uurtarieven=tuple(
                replace(u, bedrag_per_uur=per_hour.get(u.naam, Decimal("0.90")))
                for u in tarief.uurtarieven
            ),
            vaste_bedragen=tuple(
                replace(v, bedrag=per_day.get(v.naam, Decimal("45.00")))
                for v in tarief.vaste_bedragen
            ),
        )

    rules = replace(
        preset,
        naam="CAO Beroepsgoederenvervoer (demobedragen)",
        verblijfkosten=replace(
            allowances,
            eendaags=priced(allowances.eendaags),
            eerste_dag=priced(allowances.eerste_dag),
            tussendag=priced(allowances.tussendag),
            laatste_dag=priced(allowances.laatste_dag),
        ),
    )
    rulesets.create_rule_set(carrier_id=carrier_id, rules=rules, actor=office)
    last = driver_rows[-1]
    drivers.update_driver(
        carrier_id=carrier_id, driver_id=last.id, naam=last.naam, email=last.email,
        telefoon=last.telefoon, taal=last.taal, actor=office,
        contracturen=Decimal("32"), personeelsnummer="1003",
    )  # fmt: skip


def _correct_last_week(carrier_id, driver, week, office, zone, now) -> None:
    """The planner corrects two of the driver's activities of last week: the driver accepted
    the first with a comment; the second waits for an answer, so the week waits too."""
    from portal.audit.service import Actor
    from portal.hours.days import queries
    from portal.hours.review import corrections

    days = queries.work_days_of_drivers(
        carrier_id=carrier_id,
        driver_ids={driver.id},
        van=datetime.combine(week.monday, time(0), tzinfo=zone),
        tot=datetime.combine(week.sunday + timedelta(days=1), time(0), tzinfo=zone),
    )[driver.id]
    waits = [a for _, acts in days for a in acts if a.soort == "wachten"]
    loads = [a for _, acts in days for a in acts if a.soort == "laden"]
    if not waits or not loads:
        return
    first = corrections.correct_activity(
        carrier_id=carrier_id,
        activity_id=waits[0].id,
        data={"soort": "laden"},
        reden="Volgens de weegbon werd er al geladen, niet gewacht.",
        actor=office,
        now=now,
    )
    corrections.answer(
        carrier_id=carrier_id,
        driver_id=driver.id,
        week=week,
        correction_id=first.id,
        reactie="opmerking",
        tekst="Klopt, het laden begon eerder dan ik had ingevuld.",
        actor=Actor("driver", driver.id, driver.naam),
        now=now,
    )
    second = loads[-1]
    corrections.correct_activity(
        carrier_id=carrier_id,
        activity_id=second.id,
        data={"einde": second.einde - timedelta(minutes=10)},
        reden="Laden duurde 10 minuten korter volgens de tachograaf.",
        actor=office,
        now=now,
    )
