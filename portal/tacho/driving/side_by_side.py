"""A driver's days with the card's and the app's activity side by side (`days`), and what
they disagree on (`differences`). portal.tacho.driving offers them as well.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from portal.hours import service as hours
from portal.tacho import rules
from portal.tacho.intake import reading
from portal.tacho.segments import (
    DAY_MIN,
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

DIFF_MIN = 30  # a difference of this many minutes or more is named


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


def app_days(work_days) -> list[rules.AppDay]:
    """The app's work days (with their activities) as the rules read them."""
    return [
        rules.AppDay(
            gestart_op=day.gestart_op,
            beeindigd_op=day.beeindigd_op,
            activiteiten=[(a.soort, a.begin, a.einde) for a in activities],
        )
        for day, activities in work_days
    ]


@dataclass(frozen=True)
class _Known:
    """What every day of the period is compared with: the app's segments, the days with a
    work day in the app, the first day the app was used and the newest day read of a card."""

    app: list[Segment]
    worked: set[date]
    app_from: date | None
    card_to: date | None


def days(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    start: date,
    end: date,
    now: datetime | None = None,
) -> list[DayView]:
    """Per day of [start, end) (newest first): the card's and the app's activity side by
    side with the differences named from the driver's first work day in the app on, up to
    the newest day a card download holds (later days are not read yet: nothing to compare).
    Five queries."""
    now = now or utcnow()
    first, stop = midnight(start), midnight(end)
    card_rows = reading.days_of_driver(
        carrier_id=carrier_id, driver_id=driver_id, start=start, end=end
    )
    # A week before as well: the rest before the window's first work day runs from the
    # work day before it.
    work = hours.work_days_of_drivers(
        carrier_id=carrier_id,
        driver_ids={driver_id},
        van=first - timedelta(days=7),
        tot=min(stop, now),
    )[driver_id]
    app_all = rules.app_segments(app_days(work), now=min(stop, now)) if work else []
    # Before the driver's first work day in the app, the app has nothing to compare.
    first_app = hours.first_work_day(carrier_id=carrier_id, driver_id=driver_id)
    known = _Known(
        app=app_all,
        worked=_worked_days(work, min(stop, now)),
        app_from=first_app.date() if first_app is not None else None,
        card_to=reading.newest_card_day(carrier_id=carrier_id, driver_id=driver_id),
    )
    by_day = {}
    for row in card_rows:
        by_day.setdefault(row.datum, row)
    out = []
    current = end - timedelta(days=1)
    while current >= start:
        if midnight(current) <= now:
            out.append(_day_view(current, by_day.get(current), known))
        current -= timedelta(days=1)
    return out


def _worked_days(work, until: datetime) -> set[date]:
    """The days an app work day touches (a running one up to `until`)."""
    worked = set()
    for day, _acts in work:
        cursor = day.gestart_op.date()
        last = (day.beeindigd_op or until).date()
        while cursor <= last:
            worked.add(cursor)
            cursor += timedelta(days=1)
    return worked


def _app_of_day(app: list[Segment], day_start: datetime) -> list[Segment]:
    """The app's segments cut to one UTC day."""
    day_end = day_start + timedelta(days=1)
    return [
        Segment(max(s.begin, day_start), min(s.eind, day_end), s.activiteit, s.bron, s.bemanning)
        for s in app
        if s.eind > day_start and s.begin < day_end
    ]


def _day_view(current: date, row, known: _Known) -> DayView:
    """One day: the card's record of it (`row`, or None) beside the app's hours."""
    changes = reading.changes_of(row.wijzigingen) if row else []
    kaart = day_segments(current, changes, until=row.tot) if row else []
    cap = cap_minutes(current, row.tot) if row else DAY_MIN
    app = _app_of_day(known.app, midnight(current)) if current in known.worked else []
    # The durations of the changes added up: each counts once, also where a lagging
    # clock stepped back (the timeline then gives the card-out time after it less).
    kaart_totaal = day_totals(current, changes, until=row.tot) if row else None
    app_totaal = totals(app) if app else None
    app_in_gebruik = known.app_from is not None and current >= known.app_from
    kaart_gelezen = known.card_to is not None and current <= known.card_to
    return DayView(
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
        perioden=[p for p in periods(changes, cap=cap) if p.change.minuut < cap] if row else [],
        notities=clock_notes(changes, cap=cap) if row else [],
    )


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
