"""Driving and rest times of a carrier's drivers: their time as segments from the card days
stored (tacho_dagen) and the hours recorded in the app, checked against EU 561/2006
(portal.tacho.rules), and what that means for planning.

Card data counts up to the driver's last card download; the app's hours count after it (and
wherever there is no card data at all). Every function here reads a fixed number of queries,
whatever the number of drivers or days.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from portal.drivers import service as drivers
from portal.drivers.models import Driver
from portal.hours import service as hours
from portal.tacho import reading, rules
from portal.tacho.segments import (
    DAY_MIN,
    KAART,
    ONBEKEND,
    VOERTUIG,
    Segment,
    cap_minutes,
    clock_notes,
    day_segments,
    day_totals,
    midnight,
    periods,
    totals,
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


def _app_days(work_days) -> list[rules.AppDay]:
    return [
        rules.AppDay(
            gestart_op=day.gestart_op,
            beeindigd_op=day.beeindigd_op,
            activiteiten=[(a.soort, a.begin, a.einde) for a in activities],
        )
        for day, activities in work_days
    ]


def _timeline(card_days: list, work_days, now: datetime) -> Timeline:
    card, card_until = _card_segments(card_days)
    app = rules.app_segments(_app_days(work_days), now=now) if work_days else []
    if not card and not app:
        return Timeline([], None, None, card_days)
    segments, bron = rules.combine(card, card_until, app)
    return Timeline(segments, bron, card_until, card_days)


def timelines(
    *,
    carrier_id: uuid.UUID,
    driver_ids: set[uuid.UUID],
    van: datetime,
    tot: datetime,
    now: datetime | None = None,
) -> dict[uuid.UUID, Timeline]:
    """Several drivers' timelines over [van, tot): three queries."""
    now = now or utcnow()
    card = reading.days_of_drivers(
        carrier_id=carrier_id,
        driver_ids=driver_ids,
        van=van.date(),
        tot=(tot + timedelta(days=1)).date(),
    )
    app = hours.work_days_of_drivers(
        carrier_id=carrier_id, driver_ids=driver_ids, van=van, tot=min(tot, now)
    )
    return {
        driver_id: _timeline(card[driver_id], app[driver_id], min(tot, now))
        for driver_id in driver_ids
    }


def timeline(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    van: datetime,
    tot: datetime,
    now: datetime | None = None,
) -> Timeline:
    return timelines(carrier_id=carrier_id, driver_ids={driver_id}, van=van, tot=tot, now=now)[
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
    driver: Driver
    finding: rules.Finding


def findings(
    *,
    carrier_id: uuid.UUID,
    van: datetime,
    tot: datetime,
    driver_id: uuid.UUID | None = None,
    now: datetime | None = None,
) -> list[DriverFinding]:
    """The infringements and incomplete checks of [van, tot), of one driver or every driver
    of the carrier, in time order: four queries."""
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
        for item in rules.check(line.segments, van=van, tot=tot):
            out.append(DriverFinding(by_id[driver_id], item))
    out.sort(key=lambda f: (f.finding.begin, f.driver.naam.lower()))
    return out


# --- days: card and app side by side -----------------------------------------------------


@dataclass
class DayView:
    """One UTC day of a driver: the card's segments and totals, the app's, and what differs."""

    datum: date
    kaart: list[Segment]
    kaart_totaal: dict[str, int] | None  # None: no card data that day
    app: list[Segment]
    app_totaal: dict[str, int] | None  # None: no work day in the app that day
    afstand_km: int | None
    voertuigen: list[str]
    verschillen: list[tuple[str, dict]]  # (code, params)
    app_in_gebruik: bool = True  # False before the driver's first work day in the app
    kaart_gelezen: bool = True  # False after the newest day of any download of the card
    # The card's changes as recorded, each with its duration (segments.Period), up to the
    # end of the day's data; and the day's data notes (code, params), e.g. a clock behind.
    perioden: list = field(default_factory=list)
    notities: list[tuple[str, dict]] = field(default_factory=list)


DIFF_MIN = 30  # a difference of this many minutes or more is named


def days(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    van: date,
    tot: date,
    now: datetime | None = None,
) -> list[DayView]:
    """Per day of [van, tot) (newest first): the card's and the app's activity side by side
    with the differences named from the driver's first work day in the app on, up to the
    newest day a card download holds (later days are not read yet: nothing to compare).
    Five queries."""
    now = now or utcnow()
    start, end = midnight(van), midnight(tot)
    card_rows = reading.days_of_driver(carrier_id=carrier_id, driver_id=driver_id, van=van, tot=tot)
    # A week before as well: the rest before the window's first work day runs from the
    # work day before it.
    work = hours.work_days_of_drivers(
        carrier_id=carrier_id,
        driver_ids={driver_id},
        van=start - timedelta(days=7),
        tot=min(end, now),
    )[driver_id]
    app_all = rules.app_segments(_app_days(work), now=min(end, now)) if work else []
    # Before the driver's first work day in the app, the app has nothing to compare.
    first_app = hours.first_work_day(carrier_id=carrier_id, driver_id=driver_id)
    app_from = first_app.date() if first_app is not None else None
    card_to = reading.newest_card_day(carrier_id=carrier_id, driver_id=driver_id)
    worked_days = set()
    for day, _acts in work:
        cursor = day.gestart_op.date()
        last = (day.beeindigd_op or min(end, now)).date()
        while cursor <= last:
            worked_days.add(cursor)
            cursor += timedelta(days=1)
    by_day = {}
    for row in card_rows:
        by_day.setdefault(row.datum, row)
    out = []
    current = tot - timedelta(days=1)
    while current >= van:
        day_start = midnight(current)
        day_end = day_start + timedelta(days=1)
        if day_start > now:
            current -= timedelta(days=1)
            continue
        row = by_day.get(current)
        changes = reading.changes_of(row.wijzigingen) if row else []
        kaart = day_segments(current, changes, until=row.tot) if row else []
        cap = cap_minutes(current, row.tot) if row else DAY_MIN
        app = (
            [
                Segment(
                    max(s.begin, day_start), min(s.eind, day_end), s.activiteit, s.bron, s.bemanning
                )
                for s in app_all
                if s.eind > day_start and s.begin < day_end
            ]
            if current in worked_days
            else []
        )
        # The durations of the changes added up: each counts once, also where a lagging
        # clock stepped back (the timeline then gives the card-out time after it less).
        kaart_totaal = day_totals(current, changes, until=row.tot) if row else None
        app_totaal = totals(app) if app else None
        app_in_gebruik = app_from is not None and current >= app_from
        kaart_gelezen = card_to is not None and current <= card_to
        out.append(
            DayView(
                datum=current,
                kaart=kaart,
                kaart_totaal=kaart_totaal,
                app=app,
                app_totaal=app_totaal,
                afstand_km=row.afstand_km if row else None,
                voertuigen=list(row.voertuigen or []) if row else [],
                verschillen=differences(kaart_totaal, app_totaal)
                if app_in_gebruik and kaart_gelezen
                else [],
                app_in_gebruik=app_in_gebruik,
                kaart_gelezen=kaart_gelezen,
                perioden=[p for p in periods(changes, cap=cap) if p.change.minuut < cap]
                if row
                else [],
                notities=clock_notes(changes, cap=cap) if row else [],
            )
        )
        current -= timedelta(days=1)
    return out


def differences(card: dict | None, app: dict | None) -> list[tuple[str, dict]]:
    """What the card and the app disagree on for one day, as codes with their minutes."""
    out: list[tuple[str, dict]] = []
    card_driving = card["rijden"] if card else 0
    card_work = (card["rijden"] + card["werk"]) if card else 0
    app_work = (app["rijden"] + app["werk"]) if app else 0
    if card_driving and app is None:
        out.append(("rijden_zonder_werkdag", {"minuten": card_driving}))
    if app_work and card is None:
        out.append(("werk_niet_op_kaart", {"minuten": app_work}))
    if card is not None and app is not None:
        drive = card["rijden"] - app["rijden"]
        if abs(drive) >= DIFF_MIN:
            out.append(
                (
                    "meer_rijden_op_kaart" if drive > 0 else "meer_rijden_in_app",
                    {"minuten": abs(drive)},
                )
            )
        work = card_work - app_work
        if abs(work) >= DIFF_MIN:
            out.append(
                ("meer_werk_op_kaart" if work > 0 else "meer_werk_in_app", {"minuten": abs(work)})
            )
    return out
