"""A driver's ISO week as payable hours under a rule set (see rules.py): per day the paid
minutes by category, the irregular-hours windows, the one-day night-trip surcharge, a paid
holiday not worked, the absence from the home base and its allowance (verblijfkosten),
warnings, and the week's totals. Plain values in and out; every choice below and in
pay.py, trips.py and breaks.py is tested in tests/hours/test_cao_week.py.

Time
- Every begin and end is rounded to the whole minute (half a minute up) before anything is
  counted, so each figure is an exact number of minutes and the categories add up exactly.
- Days, weekdays, holidays and windows are those of the carrier's time zone (`zone`,
  Europe/Amsterdam by default): a day runs from local 00:00 to the next local 00:00, 23 or
  25 real hours when the clocks change. A minute belongs to the window its wall-clock time
  falls in, so on the night the clocks go back 02:00-03:00 is counted twice, as it is worked.
- The week is Monday 00:00 to the next Monday 00:00, local. Time outside it is cut off: an
  activity crossing Sunday-Monday midnight counts in each week for its part in that week.
  Pass every work day that touches the week, whole: absence and allowances are computed over
  the whole work day (a trip) and then reported on the days of this week only.

Hours: pay.py (contract, meeruren, overtime, rates, the night-trip surcharge, holidays).
Overtime is counted per week (per day for on-call workers) and never netted with another
week; a week short of the contract is made up to it (`aanvulling_min`), never from another
week: the contract less the paid minutes and the noted holiday minutes.
Allowances: trips.py. Warnings (per day, codes): `dag_te_lang` when a day has more paid
minutes than the rule set's `max_dag_min` (15 hours), and the break rules of breaks.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise
from zoneinfo import ZoneInfo

from portal.holidays import feestdagen
from portal.hours.cao.breaks import ARBEIDSTIJD, check_breaks
from portal.hours.cao.checks import check_pay_rules
from portal.hours.cao.clock import AMSTERDAM, Clock, Shift, minute_at
from portal.hours.cao.pay import count_hours
from portal.hours.cao.result import (
    OPTELBAAR,
    BeyondContract,
    Day,
    Irregular,
    Total,
    WeekResult,
)
from portal.hours.cao.rules import SOORTEN, CaoError, PayRules, pay_rules_for_week
from portal.hours.cao.trips import add_allowances

__all__ = [
    "AMSTERDAM",
    "ARBEIDSTIJD",
    "Activity",
    "BeyondContract",
    "Day",
    "Irregular",
    "Total",
    "WeekResult",
    "WorkDay",
    "compute_week",
]

CENT = Decimal("0.01")


@dataclass(frozen=True)
class Activity:
    soort: str
    begin: datetime
    einde: datetime


@dataclass(frozen=True)
class WorkDay:
    """A driver's shift from leaving the home base to returning, with its activities."""

    gestart_op: datetime
    beeindigd_op: datetime
    activiteiten: tuple[Activity, ...] = ()


def _shifts(work_days: Iterable[WorkDay]) -> list[Shift]:
    """The work days in epoch minutes, checked: CaoError on a bad or overlapping one."""
    shifts = []
    for work_day in work_days:
        begin, einde = minute_at(work_day.gestart_op), minute_at(work_day.beeindigd_op)
        if work_day.beeindigd_op <= work_day.gestart_op:
            raise CaoError("periode_ongeldig", "a work day ends before it starts")
        activiteiten = []
        for a in work_day.activiteiten:
            if a.soort not in SOORTEN:
                raise CaoError(
                    "soort_onbekend", f"unknown activity kind {a.soort!r}", soort=a.soort
                )
            if a.einde <= a.begin:
                raise CaoError("periode_ongeldig", "an activity ends before it starts")
            if a.begin < work_day.gestart_op or a.einde > work_day.beeindigd_op:
                raise CaoError("activiteit_buiten_werkdag", "an activity lies outside its work day")
            activiteiten.append((a.soort, minute_at(a.begin), minute_at(a.einde)))
        shifts.append(Shift(begin, einde, sorted(activiteiten, key=lambda a: a[1:])))
    shifts.sort(key=lambda d: (d.begin, d.einde))
    _refuse_overlap([(d.begin, d.einde) for d in shifts], "werkdagen_overlappen")
    # Rounding keeps order, so spans that did not overlap do not overlap once rounded.
    alle = sorted((a[1], a[2]) for d in shifts for a in d.activiteiten)
    _refuse_overlap(alle, "activiteiten_overlappen")
    return shifts


def _refuse_overlap(spans: Sequence[tuple[int, int]], code: str) -> None:
    for (_, previous_end), (begin, _) in pairwise(spans):
        if begin < previous_end:
            raise CaoError(code, f"{code.replace('_', ' ')} (at minute {begin})")


def compute_week(
    *,
    jaar: int,
    week: int,
    work_days: Iterable[WorkDay],
    rule_sets: PayRules | Sequence[PayRules],
    contracturen: Decimal | int | None = None,
    zone: ZoneInfo = AMSTERDAM,
) -> WeekResult:
    """A driver's ISO week jaar-Wweek as payable hours, under the rule set valid on its
    Monday, with the driver's contract hours (the rule set's when None). CaoError (a code)
    when the week, the rules or the input do not allow it."""
    try:
        maandag = date.fromisocalendar(jaar, week, 1)
    except ValueError:
        raise CaoError("week_ongeldig", f"{jaar} has no week {week}") from None
    rules = check_pay_rules(pay_rules_for_week(rule_sets, maandag))
    uren = rules.contracturen if contracturen is None else contracturen
    if not isinstance(uren, Decimal | int) or not 0 <= uren <= 60 or (uren * 60) % 1:
        raise CaoError("contracturen_ongeldig", f"contract hours {uren} per week", waarde=uren)
    contract_min = int(uren * 60)
    grens = rules.overtime_threshold(jaar)
    clock = Clock(zone)
    dagen = [maandag + timedelta(days=n) for n in range(7)]
    free_days = {}
    for year in {d.year for d in dagen}:
        free_days |= feestdagen(year, rules.feestdagen, rules.extra_feestdagen)
    per_dag = {d: Day(datum=d, feestdag=free_days.get(d)) for d in dagen}
    start, stop = clock.midnight(dagen[0]), clock.midnight(dagen[-1] + timedelta(days=1))
    shifts = _shifts(work_days)

    count_hours(rules, shifts, per_dag, contract_min, clock, start, stop, grens)
    for shift in shifts:
        add_allowances(rules, shift, per_dag, clock)
        check_breaks(shift, per_dag, clock)
    order = {v.naam: n for n, v in enumerate(rules.vensters)}
    for dag in per_dag.values():
        dag.onregelmatig.sort(key=lambda o: order[o.venster])
        dag.verblijfkosten_eur = dag.verblijfkosten_eur.quantize(CENT, ROUND_HALF_UP)
        if dag.gewerkt_min > rules.max_dag_min:
            dag.waarschuwingen.insert(0, "dag_te_lang")
    return WeekResult(
        jaar=jaar,
        week=week,
        contract_min=contract_min,
        regelset_geldig_vanaf=rules.geldig_vanaf,
        per_dag=list(per_dag.values()),
        totaal=_total(rules, per_dag.values(), contract_min),
        max_dag_min=rules.max_dag_min,
        overuren_grens=grens,
        dubbele_bemanning=rules.dubbele_bemanning,
        samenloop=rules.samenloop,
        nachttoeslag_procent=rules.nachtrit_procent,
    )


def _total(rules: PayRules, dagen: Iterable[Day], contract_min: int) -> Total:
    totaal = Total(
        onregelmatig=[Irregular(v.naam, v.procent) for v in rules.vensters if v.procent > 100]
    )
    by_name = {o.venster: o for o in totaal.onregelmatig}
    for dag in dagen:
        for name in OPTELBAAR:
            setattr(totaal, name, getattr(totaal, name) + getattr(dag, name))
        for name, value in vars(dag.boven_contract).items():
            setattr(totaal.boven_contract, name, getattr(totaal.boven_contract, name) + value)
        for entry in dag.onregelmatig:
            by_name[entry.venster].min += entry.min
            by_name[entry.venster].boven_contract_min += entry.boven_contract_min
    totaal.aanvulling_min = max(0, contract_min - totaal.gewerkt_min - totaal.feestdag_min)
    return totaal
