"""Driving and rest times of a carrier's drivers: their time as segments from the card days
stored (tacho_dagen) and the hours recorded in the app, checked against EU 561/2006
(portal.tacho.rules), and what that means for planning.

Card data counts up to the driver's last card download; the app's hours count after it (and
wherever there is no card data at all). Every function here reads a fixed number of queries,
whatever the number of drivers or days.

The package offers: the timelines, the remaining driving time (`budgets`, `budget_of`) and
the planning's problems (`planning_problems`), the findings over a period (`findings`) here;
a driver's days with card and app side by side (`days`, `differences`, from side_by_side);
the infringements' export for the driver's signature (export) and the API's JSON shapes of
driving times (schemas).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from portal.drivers import service as drivers
from portal.fleet.kenteken import compact
from portal.hours import service as hours
from portal.tacho import rules, scope
from portal.tacho.driving.side_by_side import DIFF_MIN, DayView, app_days, days, differences
from portal.tacho.intake import reading
from portal.tacho.segments import (
    KAART,
    ONBEKEND,
    VOERTUIG,
    Segment,
    day_segments,
    midnight,
)
from portal.types import utcnow

# How far back the remaining time looks: to the start of the previous fixed week (the
# two-week limit) and two days more, where the rest before that week began.
BUDGET_MARGIN = timedelta(days=2)
# How far before a period's start the checker sees, so a shift or week that begins earlier
# is judged whole.
CHECK_LOOKBACK = timedelta(days=28)


@dataclass
class Timeline:
    """A driver's segments over a window, where they come from, and how far the card goes."""

    segments: list[Segment]
    bron: str | None  # kaart, app, kaart+app; None without any data
    card_until: datetime | None
    card_days: list = field(default_factory=list)  # reading.StoredDay
    # Time in a vehicle out of EU 561/2006's scope (its driving counts as other work).
    vrijgesteld: list[rules.ExemptPeriod] = field(default_factory=list)


def _card_segments(days: list) -> tuple[list[Segment], datetime | None]:
    """The segments of stored card days (oldest first), the days between them without a
    record unknown, and the moment the card's known data ends."""
    if not days:
        return [], None
    out: list[Segment] = []
    cursor = midnight(days[0].datum)
    for day in days:
        start = midnight(day.datum)
        if start > cursor:  # days without a record: the card was not used, nothing known
            out.append(Segment(cursor, start, ONBEKEND, KAART))
        found = day_segments(
            day.datum,
            reading.changes_of(day.wijzigingen),
            until=day.tot,
            bron=KAART if day.bron == "kaart" else VOERTUIG,
        )
        out.extend(found)
        if found:
            cursor = found[-1].eind
    # The card's data ends with its last record: the time after the last withdrawal up to
    # the download (days without a record, a day that starts out) says nothing, so hours
    # recorded in the app may tell it. Gaps between records stay unknown.
    while out and out[-1].activiteit == ONBEKEND:
        out.pop()
    return out, (out[-1].eind if out else None)


def _vehicle_uses(days: list) -> list[rules.VehicleUse]:
    """The card's time in each vehicle over its days: the day's uses by minute, or, for a day
    read before they were kept, the whole day in each registration seen that day."""
    out = []
    for day in days:
        start = midnight(day.datum)
        if day.voertuiggebruik is None:
            uses = [[plate, 0, 24 * 60] for plate in day.voertuigen or ()]
        else:
            uses = day.voertuiggebruik
        for plate, van, tot in uses:
            out.append(
                rules.VehicleUse(
                    start + timedelta(minutes=van), start + timedelta(minutes=tot), plate
                )
            )
    return out


def _timeline(card_days: list, work_days, now: datetime, exempt: dict[str, str]) -> Timeline:
    card, card_until = _card_segments(card_days)
    periods = rules.exempt_periods(_vehicle_uses(card_days), exempt, compact) if exempt else []
    card = rules.as_other_work(card, periods)
    app = rules.app_segments(app_days(work_days), now=now) if work_days else []
    if not card and not app:
        return Timeline([], None, None, card_days, periods)
    segments, bron = rules.combine(card, card_until, app)
    return Timeline(segments, bron, card_until, card_days, periods)


def timelines(
    *,
    carrier_id: uuid.UUID,
    driver_ids: set[uuid.UUID],
    van: datetime,
    tot: datetime,
    now: datetime | None = None,
) -> dict[uuid.UUID, Timeline]:
    """Several drivers' timelines over [van, tot): three queries, and one more for the
    carrier's vehicles out of scope when a card was in any vehicle."""
    now = now or utcnow()
    card = reading.days_of_drivers(
        carrier_id=carrier_id,
        driver_ids=driver_ids,
        start=van.date(),
        end=(tot + timedelta(days=1)).date(),
    )
    app = hours.work_days_of_drivers(
        carrier_id=carrier_id, driver_ids=driver_ids, van=van, tot=min(tot, now)
    )
    used = any(d.voertuigen or d.voertuiggebruik for days in card.values() for d in days)
    exempt = scope.out_of_scope_plates(carrier_id=carrier_id) if used else {}
    return {
        driver_id: _timeline(card[driver_id], app[driver_id], min(tot, now), exempt)
        for driver_id in driver_ids
    }


def timeline(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    start: datetime,
    end: datetime,
    now: datetime | None = None,
) -> Timeline:
    """One driver's timeline over [start, end): three queries."""
    return timelines(carrier_id=carrier_id, driver_ids={driver_id}, van=start, tot=end, now=now)[
        driver_id
    ]


# --- remaining driving time --------------------------------------------------------------


@dataclass(frozen=True)
class DriverBudget:
    budget: rules.Budget | None  # None without any data
    bron: str | None
    card_until: datetime | None


def budget_start(now: datetime) -> datetime:
    """Where the remaining time starts reading: Monday 00:00 UTC of last week, less a margin."""
    this_monday = midnight(now.date() - timedelta(days=now.weekday()))
    return this_monday - timedelta(days=7) - BUDGET_MARGIN


def budgets(
    *, carrier_id: uuid.UUID, driver_ids: Iterable[uuid.UUID], now: datetime | None = None
) -> dict[uuid.UUID, DriverBudget]:
    """Remaining driving time now, per driver: three queries for any number of drivers."""
    now = now or utcnow()
    ids = set(driver_ids)
    found = timelines(
        carrier_id=carrier_id, driver_ids=ids, van=budget_start(now), tot=now, now=now
    )
    out = {}
    for driver_id, line in found.items():
        if not line.segments:
            out[driver_id] = DriverBudget(None, None, None)
            continue
        out[driver_id] = DriverBudget(
            rules.budget(line.segments, now=now), line.bron, line.card_until
        )
    return out


def budget_of(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, now: datetime | None = None
) -> DriverBudget:
    return budgets(carrier_id=carrier_id, driver_ids={driver_id}, now=now)[driver_id]


def planning_problems(
    *,
    carrier_id: uuid.UUID,
    plans: Iterable[tuple[uuid.UUID, datetime, int]],
    now: datetime | None = None,
) -> dict[tuple[uuid.UUID, datetime, int], str]:
    """For planned work (driver, start, minutes): a code when the driver cannot legally
    finish it by the driving and rest rules (rijtijd_op, in_rust); three queries."""
    now = now or utcnow()
    plans = [p for p in plans if p[0] is not None and p[1] is not None]
    if not plans:
        return {}
    ids = {p[0] for p in plans}
    found = timelines(
        carrier_id=carrier_id, driver_ids=ids, van=budget_start(now), tot=now, now=now
    )
    budgets_now = {
        driver_id: rules.budget(line.segments, now=now)
        for driver_id, line in found.items()
        if line.segments
    }
    out = {}
    for plan in plans:
        driver_id, begin, minutes = plan
        found_budget = budgets_now.get(driver_id)
        if found_budget is None or begin + timedelta(minutes=minutes) <= now:
            continue
        code = found_budget.planning_problem(begin, minutes)
        if code:
            out[plan] = code
    return out


# --- infringements -----------------------------------------------------------------------


@dataclass(frozen=True)
class DriverFinding:
    driver: drivers.Driver
    finding: rules.Finding


def findings(
    *,
    carrier_id: uuid.UUID,
    van: datetime,
    tot: datetime,
    driver_id: uuid.UUID | None = None,
    now: datetime | None = None,
) -> list[DriverFinding]:
    """The infringements, incomplete checks and exempt findings (time out of EU 561's
    scope) of [van, tot), of one driver or every driver of the carrier, in time order: four
    queries (five with vehicles on the cards)."""
    now = now or utcnow()
    if driver_id is not None:
        people = [drivers.get_driver(carrier_id=carrier_id, driver_id=driver_id)]
    else:
        people = drivers.list_drivers(carrier_id=carrier_id, active_only=False)
    by_id = {d.id: d for d in people}
    found = timelines(
        carrier_id=carrier_id,
        driver_ids=set(by_id),
        van=van - CHECK_LOOKBACK,
        tot=min(tot, now),
        now=now,
    )
    out = []
    for driver_id, line in found.items():
        if not line.segments:
            continue
        found_here = rules.check(line.segments, van=van, tot=tot)
        for item in rules.mark_exempt(found_here, line.segments, line.vrijgesteld):
            out.append(DriverFinding(by_id[driver_id], item))
    out.sort(key=lambda f: (f.finding.begin, f.driver.naam.lower()))
    return out


__all__ = [
    "BUDGET_MARGIN",
    "CHECK_LOOKBACK",
    "DIFF_MIN",
    "DayView",
    "DriverBudget",
    "DriverFinding",
    "Timeline",
    "budget_of",
    "budget_start",
    "budgets",
    "days",
    "differences",
    "findings",
    "planning_problems",
    "timeline",
    "timelines",
]
