"""A work day's absence from the home base and its daily allowance (verblijfkosten).

- A work day is one trip, from its start (leaving the home base) to its end (returning).
  One whose departure and return lie within 24 hours is a one-day trip, also when it
  crosses midnight (CAO art. 40 lid 3a; docs/cao.md): the one-day tariff over its whole
  absence, booked on the day it left. A longer trip is multi-day: its first, middle and
  last calendar days earn those tariffs, each on its own day. Consecutive work days are
  separate trips. A trip of not more than `drempel_min` earns nothing.
- Hourly amounts are pro rata to the minute. Each day's amounts are added up over the trips
  on that day and rounded half up to the cent (week.py); the week's total is the sum of
  those days.
"""

from __future__ import annotations

from datetime import date

from portal.hours.cao.clock import Clock, Shift
from portal.hours.cao.result import Day
from portal.hours.cao.rules import PayRules


def add_allowances(rules: PayRules, shift: Shift, per_dag: dict[date, Day], clock: Clock) -> None:
    """The absence of one work day (a trip) and its allowance, on the days of the week."""
    kosten = rules.verblijfkosten
    runs: dict[date, list[tuple[int, int]]] = {}
    for datum, wand, lengte in clock.runs(shift.begin, shift.einde):
        runs.setdefault(datum, []).append((wand, lengte))
        if datum in per_dag:
            per_dag[datum].afwezig_min += lengte
    duur = shift.einde - shift.begin
    if duur <= kosten.drempel_min:
        return
    vertrek = clock.step(shift.begin)[1]
    aankomst = clock.step(shift.einde - 1)[1] + 1
    datums = list(runs)
    if shift.eendaags:
        if datums[0] in per_dag:
            bedrag = kosten.eendaags.bedrag(list(runs.values()), vertrek, aankomst, duur)
            per_dag[datums[0]].verblijfkosten_eur += bedrag
        return
    for n, datum in enumerate(datums):
        if datum not in per_dag:
            continue
        if n == 0:
            tarief = kosten.eerste_dag
        elif n == len(datums) - 1:
            tarief = kosten.laatste_dag
        else:
            tarief = kosten.tussendag
        per_dag[datum].verblijfkosten_eur += tarief.bedrag([runs[datum]], vertrek, aankomst, duur)
