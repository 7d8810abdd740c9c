"""Helpers of the hours tests: local times, work days recorded through the service, and a
month of generated activities whose totals the tests compute on their own."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from factories import Ref, in_carrier

API = "/api/v1"
AMS = ZoneInfo("Europe/Amsterdam")
KINDS = ("rijden", "laden", "lossen", "wachten", "pauze", "overig_werk", "beschikbaarheid")
WORK_KINDS = ("rijden", "laden", "lossen", "wachten", "overig_werk")


def at(day: str, clock: str = "00:00", fold: int = 0) -> datetime:
    """A local Amsterdam wall-clock time as an aware UTC instant: at('2026-11-16', '08:30')."""
    hour, minute = (int(part) for part in clock.split(":"))
    local = datetime.combine(date.fromisoformat(day), datetime.min.time()).replace(
        hour=hour, minute=minute, tzinfo=AMS, fold=fold
    )
    return local.astimezone(UTC)


def z(moment: datetime) -> str:
    """An instant as the API writes it."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _actor():
    from portal.audit.service import SYSTEM

    return SYSTEM


def record_day(
    app, carrier: Ref, driver: Ref, start: datetime, end: datetime | None, activities=()
) -> Ref:
    """A work day with activities ((soort, begin, einde) triples) through the service."""
    from portal.hours import service
    from portal.hours.days import activities as recording

    def make():
        day = service.start_work_day(
            carrier_id=carrier.id,
            driver_id=driver.id,
            actor=_actor(),
            gestart_op=start,
            beeindigd_op=end,
        )
        for soort, begin, einde in activities:
            recording.add_activity(
                carrier_id=carrier.id,
                work_day_id=day.id,
                data={"soort": soort, "begin": begin, "einde": einde},
                actor=_actor(),
            )
        return day

    return in_carrier(app, carrier.id, make, lambda day: Ref(day.id, carrier.id))


def activity_ids(app, carrier: Ref, day: Ref) -> list[uuid.UUID]:
    from portal.hours import service

    return in_carrier(
        app,
        carrier.id,
        lambda: [
            a.id
            for a in service.activities_of(carrier_id=carrier.id, work_day_ids={day.id})[day.id]
        ],
    )


def approve(app, carrier: Ref, driver: Ref, week: str, user: Ref | None = None):
    from portal.audit.service import Actor
    from portal.hours import weeks
    from portal.hours.totals import IsoWeek

    actor = Actor("user", user.id, "planner") if user else _actor()
    return in_carrier(
        app,
        carrier.id,
        lambda: (
            weeks.approve_week(
                carrier_id=carrier.id, driver_id=driver.id, week=IsoWeek.parse(week), actor=actor
            ).id
        ),
    )


# --- a generated month -------------------------------------------------------------------


@dataclass
class Generated:
    """Activities per driver, as (soort, begin, einde) with whole-minute UTC instants."""

    activities: dict[uuid.UUID, list[tuple[str, datetime, datetime]]]


def generate_month(seed: int, driver_ids, first: date, last: date) -> dict:
    """Work days from first to last (some crossing midnight, none overlapping) filled with
    back-to-back and gapped activities of random kinds; plain data, no database."""
    rng = random.Random(seed)
    plan = {}
    for driver_id in driver_ids:
        days = []
        free_from = datetime.combine(first, datetime.min.time(), tzinfo=AMS).astimezone(UTC)
        day = first
        while day <= last:
            if rng.random() < 0.15:  # a day off
                day += timedelta(days=1)
                continue
            clock = f"{rng.randint(4, 21):02d}:{rng.choice((0, 15, 30, 45)):02d}"
            start = max(at(day.isoformat(), clock), free_from + timedelta(minutes=30))
            cursor = start
            acts = []
            for _ in range(rng.randint(3, 12)):
                cursor += timedelta(minutes=rng.choice((0, 0, 0, 5, 20)))
                length = timedelta(minutes=rng.randint(7, 150))
                if cursor + length - start > timedelta(hours=15):
                    break
                acts.append((rng.choice(KINDS), cursor, cursor + length))
                cursor += length
            end = cursor + timedelta(minutes=rng.choice((0, 10)))
            if acts:
                days.append((start, end, acts))
                free_from = end
            day = max(day + timedelta(days=1), end.astimezone(AMS).date() + timedelta(days=1))
        plan[driver_id] = days
    return plan


def store_month(app, carrier: Ref, plan: dict) -> None:
    """The generated work days and activities, through the service (its rules hold)."""
    from portal.hours import service
    from portal.hours.days import activities

    def make():
        for driver_id, days in plan.items():
            for start, end, acts in days:
                day = service.start_work_day(
                    carrier_id=carrier.id,
                    driver_id=driver_id,
                    actor=_actor(),
                    gestart_op=start,
                    beeindigd_op=end,
                )
                for soort, begin, einde in acts:
                    activities.add_activity(
                        carrier_id=carrier.id,
                        work_day_id=day.id,
                        data={"soort": soort, "begin": begin, "einde": einde},
                        actor=_actor(),
                    )

    in_carrier(app, carrier.id, make)


def expected_minutes(plan: dict, first: date, last: date) -> dict:
    """{driver: {local day: {soort: minutes}}} counted minute by minute: each minute belongs
    to the local day on which it starts. Independent of the app's way of cutting at midnight."""
    result = {}
    for driver_id, days in plan.items():
        per_day: dict[date, dict[str, int]] = {}
        for _, _, acts in days:
            for soort, begin, einde in acts:
                minute = begin
                while minute < einde:
                    day = minute.astimezone(AMS).date()
                    if first <= day <= last:
                        bucket = per_day.setdefault(day, dict.fromkeys(KINDS, 0))
                        bucket[soort] += 1
                    minute += timedelta(minutes=1)
        result[driver_id] = per_day
    return result


def set_contract(app, carrier, driver, hours) -> None:
    """The driver's own contract hours per week."""
    from decimal import Decimal

    from portal.drivers.models import Driver
    from portal.extensions import db

    def go():
        db.session.get(Driver, (carrier.id, driver.id)).contracturen = Decimal(hours)

    in_carrier(app, carrier.id, go)


def record_nine_hours(app, carrier, driver, days) -> None:
    """Days (ISO dates) of 07:00-16:00 driving, no break: 9 paid hours each."""
    for day in days:
        record_day(
            app, carrier, driver, at(day, "07:00"), at(day, "16:00"),
            [("rijden", at(day, "07:00"), at(day, "16:00"))],
        )  # fmt: skip
