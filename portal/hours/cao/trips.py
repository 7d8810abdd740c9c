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
    allowances = rules.verblijfkosten
    runs: dict[date, list[tuple[int, int]]] = {}
    for datum, wall, length in clock.runs(shift.begin, shift.einde):
        runs.setdefault(datum, []).append((wall, length))
        if datum in per_dag:
            per_dag[datum].afwezig_min += length
    duur = shift.einde - shift.begin
    if duur <= allowances.drempel_min:
        return
    departure = clock.step(shift.begin)[1]
    arrival = clock.step(shift.einde - 1)[1] + 1
    dates = list(runs)
    if shift.eendaags:
        if dates[0] in per_dag:
            bedrag = allowances.eendaags.bedrag(list(runs.values()), departure, arrival, duur)
            per_dag[dates[0]].verblijfkosten_eur += bedrag
        return
    for n, datum in enumerate(dates):
        if datum not in per_dag:
            continue
        if n == 0:
            tarief = allowances.eerste_dag
        elif n == len(dates) - 1:
            tarief = allowances.laatste_dag
        else:
            tarief = allowances.tussendag
        per_dag[datum].verblijfkosten_eur += tarief.bedrag([runs[datum]], departure, arrival, duur)
