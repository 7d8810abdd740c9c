"""Payable hours of drivers' weeks: the recorded work days and activities turned into paid
minutes by CAO category and daily allowances (the pure computation in cao/), under the
carrier's rule sets (rulesets.py) and each driver's contract hours, with whether a planner
approved the week and the planner's corrections with the driver's answers.

`payable_weeks` computes any number of drivers and weeks with the same six queries; a week
that cannot be computed (a rule set starting mid-week, say) carries its problem (`fout`)
instead of figures, so one odd week never hides the others.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from decimal import Decimal

from portal.accounts.service import carrier_zone
from portal.drivers import service as drivers
from portal.errors import ValidationFailed
from portal.hours import cao
from portal.hours.days.queries import approved_weeks, work_days_of_drivers
from portal.hours.pay_models import HoursCorrection
from portal.hours.payroll import rulesets
from portal.hours.review import corrections
from portal.hours.totals import IsoWeek
from portal.types import utcnow

# A work day lasts at most 24 hours (service.py), so one touching a week starts at most a day
# before its Monday.
LONGEST_DAY = timedelta(hours=24)


@dataclass(frozen=True)
class PayableWeek:
    driver_id: uuid.UUID
    week: IsoWeek
    status: str  # "open" or "goedgekeurd"
    result: cao.WeekResult | None  # None when the week cannot be computed (fout)
    fout: cao.CaoError | None = None
    correcties: list[HoursCorrection] = field(default_factory=list)

    @property
    def onbeantwoord(self) -> int:
        """How many corrections the driver has not answered yet."""
        return sum(1 for c in self.correcties if c.reactie is None)

    @property
    def waarschuwingen(self) -> list[tuple[str, object]]:
        """(code, day) for every day the computation flags, in day order."""
        if self.result is None:
            return []
        return [(code, dag.datum) for dag in self.result.per_dag for code in dag.waarschuwingen]

    def to_json(self) -> dict:
        if self.result is None:  # pragma: no cover - payable_week raises instead
            raise ValueError("a week without figures has no JSON")
        return {
            "status": self.status,
            **self.result.to_json(),
            "correcties": [corrections.to_json(c) for c in self.correcties],
        }


def _work_days(days, now: datetime) -> list[cao.WorkDay]:
    out = []
    for day, activities in days:
        ended = day.beeindigd_op or max(now, day.gestart_op + timedelta(minutes=1))
        out.append(
            cao.WorkDay(
                gestart_op=day.gestart_op,
                beeindigd_op=ended,
                activiteiten=tuple(
                    cao.Activity(a.soort, a.begin, min(a.einde or now, ended))
                    for a in activities
                    if (a.einde or now) > a.begin
                ),
            )
        )
    return out


def _computed(week: IsoWeek, work_days, sets, contract_hours, zone):
    """The week computed under the rule sets: (result, None), or (None, the problem)."""
    try:
        result = cao.compute_week(
            jaar=week.jaar,
            week=week.week,
            work_days=work_days,
            rule_sets=sets,
            contracturen=contract_hours,
            zone=zone,
        )
    except cao.CaoError as error:
        return None, error
    return result, None


def payable_weeks(
    *,
    carrier_id: uuid.UUID,
    driver_ids: set[uuid.UUID],
    weeks: Iterable[IsoWeek],
    now: datetime | None = None,
) -> dict[tuple[uuid.UUID, IsoWeek], PayableWeek]:
    """Every (driver, week) as payable hours: six queries whatever the numbers (work days,
    their activities, approvals, corrections, rule sets, contract hours). A work day still
    running counts up to now."""
    weeks = sorted(set(weeks), key=lambda w: w.key)
    if not weeks or not driver_ids:
        return {}
    now = now or utcnow()
    zone = carrier_zone(carrier_id)

    def midnight(day):
        return datetime.combine(day, time(0), tzinfo=zone)

    start = midnight(weeks[0].monday)
    end = midnight(weeks[-1].monday + timedelta(days=7))
    days = work_days_of_drivers(
        carrier_id=carrier_id, driver_ids=set(driver_ids), van=start, tot=end
    )
    approved = approved_weeks(carrier_id=carrier_id, driver_ids=set(driver_ids), weeks=weeks)
    fixes = corrections.of_weeks(carrier_id=carrier_id, driver_ids=set(driver_ids), weeks=weeks)
    sets = rulesets.rule_sets(carrier_id=carrier_id)
    contract = drivers.contract_hours(carrier_id=carrier_id, driver_ids=set(driver_ids))
    out = {}
    for driver_id in driver_ids:
        for week in weeks:
            week_start = midnight(week.monday)
            week_end = midnight(week.monday + timedelta(days=7))
            touching = [
                (day, acts)
                for day, acts in days[driver_id]
                if day.gestart_op < week_end
                and day.gestart_op >= week_start - LONGEST_DAY
                and (day.beeindigd_op is None or day.beeindigd_op > week_start)
            ]
            result, fout = _computed(
                week, _work_days(touching, now), sets, contract.get(driver_id), zone
            )
            out[driver_id, week] = PayableWeek(
                driver_id=driver_id,
                week=week,
                status="goedgekeurd" if (driver_id, week) in approved else "open",
                result=result,
                fout=fout,
                correcties=fixes.get((driver_id, week), []),
            )
    return out


def payable_week(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, week: IsoWeek, now: datetime | None = None
) -> PayableWeek:
    """One driver's week as payable hours. ValidationFailed (with the computation's code)
    when the recorded work or the rules do not allow computing it."""
    found = payable_weeks(carrier_id=carrier_id, driver_ids={driver_id}, weeks=[week], now=now)
    payable = found[driver_id, week]
    if payable.fout is not None:
        error = payable.fout
        raise ValidationFailed(
            [{"field": "week", "code": error.code, "message": str(error), **error.params}]
        ) from error
    return payable


@dataclass
class PaySum:
    """A driver's payable hours added up over some weeks (the overview's columns)."""

    gewerkt_min: int = 0
    normaal_min: int = 0
    meeruren_min: int = 0
    overuren_130_min: int = 0
    zaterdag_150_min: int = 0
    zondag_200_min: int = 0
    onregelmatig_min: int = 0
    nachttoeslag_min: int = 0
    feestdag_min: int = 0
    aanvulling_min: int = 0
    verblijfkosten_eur: Decimal = Decimal("0.00")
    niet_berekend: int = 0  # weeks that could not be computed (their problem on the week page)

    def add(self, other: PaySum) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def sums(
    *,
    carrier_id: uuid.UUID,
    driver_ids: set[uuid.UUID],
    weeks: Iterable[IsoWeek],
    now: datetime | None = None,
) -> dict[uuid.UUID, PaySum]:
    """Each driver's payable hours over whole weeks: payable_weeks' six queries."""
    out = {driver_id: PaySum() for driver_id in driver_ids}
    found = payable_weeks(carrier_id=carrier_id, driver_ids=driver_ids, weeks=weeks, now=now)
    for (driver_id, _week), week in found.items():
        row = out[driver_id]
        if week.result is None:
            row.niet_berekend += 1
            continue
        t = week.result.totaal
        for name in vars(row):  # the week's totals of the same name, as they are
            if hasattr(t, name):
                setattr(row, name, getattr(row, name) + getattr(t, name))
        row.onregelmatig_min += sum(o.min for o in t.onregelmatig)
    return out
