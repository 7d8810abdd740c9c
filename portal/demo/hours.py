"""Demo hours: the drivers' work days and activities as the app recorded them, and the
planner's week approvals."""

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


def seed_hours(carrier_id, driver_rows, planner) -> None:
    """Work days of last week and this week up to yesterday: day shifts, one night shift;
    last week approved for the first driver, approved and reopened for the second."""
    from portal.audit.service import Actor
    from portal.hours import activities, weeks
    from portal.hours import service as hours
    from portal.hours.totals import IsoWeek

    zone = ZoneInfo("Europe/Amsterdam")
    now = datetime.now(UTC)
    today = datetime.now(zone).date()
    this_week = IsoWeek.of(today)
    for index, driver in enumerate(driver_rows):
        actor = Actor("driver", driver.id, driver.naam)
        for day in [*this_week.shifted(-1).days(), *this_week.days()]:
            night = index == 2 and day.weekday() in (1, 3)
            resting = index == 2 and day.weekday() in (2, 4)  # after a night shift
            if resting or (day.weekday() >= (6 if index == 1 else 5) and not night):
                continue  # and weekends off (the second driver works Saturdays)
            clock, plan = DAY_PLANS[2] if night else DAY_PLANS[index % 2]
            hour, minute = (int(part) for part in clock.split(":"))
            start = datetime.combine(day, time(hour, minute), tzinfo=zone).astimezone(UTC)
            k = day.toordinal()  # varies the day a little, and every week differently
            start += timedelta(minutes=(k * 7 + index * 11) % 20)
            lengths = [timedelta(minutes=m + (k + n) % 9 - 4) for n, (_, m) in enumerate(plan)]
            end = start + sum(lengths, timedelta())
            if end > now - timedelta(hours=1):
                continue
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
    office = Actor("user", planner.id, planner.naam)
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
