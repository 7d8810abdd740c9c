"""A week's paid minutes into their categories (docs/cao.md cites the articles).

- Paid minutes are the minutes of activities of the rule set's paid kinds, counted in time
  order from Monday 00:00 (the carrier's time zone). A minute in no activity is not paid.
- A paid public holiday on Monday..Friday on which the driver has no paid minute is a paid
  holiday not worked (CAO art. 64: diensturen are noted for it): `feestdag_min`, a fifth of
  the contract hours, at most 8 hours (art. 8 lid 2a: pro rata). Those minutes are counted
  first: they fill the contract and count towards the 40 hours, whichever weekday the
  holiday falls on. On-call workers get none (art. 10 lid 1 excludes art. 64).
- Contract: the first `contract_min` paid minutes of the week (noted holiday minutes
  first, then in time order) are within the contract; the rest are beyond it. Saturday and
  Sunday minutes fill a short week too, at their own rate; `boven_contract` says how many
  of them were beyond the contract (payroll pays those in full, those within the contract
  at the surcharge only).
- Overtime (`grens`, resolved from the rule set for the week's ISO year):
  - "week_40": weekday minutes (Monday 00:00 to Friday 24:00) beyond 40 hours;
  - "contract": weekday minutes beyond the contract hours, at most 40;
  - "dag_8": a day's paid minutes beyond 8 hours (on-call workers);
  with double manning the weekdays run on to Saturday 07:00, and Saturday's rate starts then.
  A weekday minute beyond the contract that is not overtime is `meeruren` (100%).
- Each paid minute earns exactly one rate, the highest that applies: Sunday or holiday
  (200), Saturday (150), overtime (130), its irregular-hours window (when above 100). Ties go
  in that order. With samenloop "onregelmatig" a minute that is both overtime and irregular
  earns the window's rate instead of overtime. A minute that earns its window's rate counts
  as normaal (within the contract) or meeruren (beyond it) and in that window's entry.
- The one-day night-trip surcharge: a paid minute of a one-day trip within the rule set's
  night window (21:00-05:00) also counts in `nachttoeslag_min`, beside whatever rate it
  earns, overtime included (art. 37 lid 3), unless it earns an irregular-hours window's
  rate: beside a shift surcharge only that surcharge is paid (art. 37 lid 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from itertools import pairwise

from portal.hours.cao.clock import Clock, Shift
from portal.hours.cao.result import Day, Irregular
from portal.hours.cao.rules import PayRules, Window

WEEK_40 = 40 * 60
DAG_8 = 8 * 60
FEESTDAG_MAX = 8 * 60
ZATERDAG_07 = 7 * 60


@dataclass
class _Counter:
    """Where the week's count stands: paid minutes so far (for the contract), weekday
    minutes so far (for the 40 hours) and each day's paid minutes (for 8 a day)."""

    grens: str
    contract: int
    drempel: int
    geteld: int = 0
    weekdag: int = 0
    per_datum: dict[date, int] = field(default_factory=dict)

    def delen(self, n: int, datum: date, work_week: bool) -> list[tuple[int, bool, bool]]:
        """n paid minutes from here as runs of (minutes, within the contract, overtime),
        and the count moved on past them."""
        if self.grens == "dag_8":
            counts, drempel = self.per_datum.get(datum, 0), DAG_8
        elif work_week:
            counts, drempel = self.weekdag, self.drempel
        else:
            counts, drempel = None, None
        cuts = {0, n}
        for cut in (self.contract - self.geteld, None if counts is None else drempel - counts):
            if cut is not None and 0 < cut < n:
                cuts.add(cut)
        runs = [
            (b - a, self.geteld + a < self.contract, counts is not None and counts + a >= drempel)
            for a, b in pairwise(sorted(cuts))
        ]
        self.geteld += n
        self.weekdag += n if work_week else 0
        self.per_datum[datum] = self.per_datum.get(datum, 0) + n
        return runs


def count_hours(
    rules: PayRules,
    shifts: list[Shift],
    per_dag: dict[date, Day],
    contract_min: int,
    clock: Clock,
    start: int,
    stop: int,
    grens: str,
) -> None:
    """Count every paid minute of the week [start, stop) into its day and category."""
    paid = []
    for shift in shifts:
        for soort, begin, einde in shift.activiteiten:
            begin, einde = max(begin, start), min(einde, stop)
            if begin >= einde:
                continue
            if soort in rules.betaalde_soorten:
                paid.append((begin, einde, shift.eendaags))
            else:
                for datum, _, length in clock.runs(begin, einde):
                    per_dag[datum].onbetaald_min += length
    paid.sort()
    drempel = WEEK_40 if grens == "week_40" else min(contract_min, WEEK_40)
    counter = _Counter(grens, contract_min, drempel)
    worked = {datum for b, e, _ in paid for datum, _, _ in clock.runs(b, e)}
    if grens != "dag_8":
        _paid_holidays(per_dag, worked, counter)
    table = rules.irregular_windows()
    night = rules.night_trip_spans()
    dubbel = rules.dubbele_bemanning
    for begin, einde, eendaags in paid:
        for datum, wall, length in clock.runs(begin, einde):
            dag, weekdag = per_dag[datum], datum.isoweekday()
            vensters = table.get(weekdag, [])
            nights = night if eendaags else []
            cuts = {wall, wall + length}
            cuts |= {m for van, tot, _ in vensters for m in (van, tot)}
            cuts |= {m for span in nights for m in span}
            if dubbel and weekdag == 6:
                cuts.add(ZATERDAG_07)
            pieces = sorted(m for m in cuts if wall <= m <= wall + length)
            for a, b in pairwise(pieces):
                venster = next((v for van, tot, v in vensters if van <= a < tot), None)
                in_night = any(van <= a < tot for van, tot in nights)
                early = dubbel and weekdag == 6 and a < ZATERDAG_07
                work_week = weekdag <= 5 or early
                saturday = weekdag == 6 and not early
                for n, within, over in counter.delen(b - a, datum, work_week):
                    _count(rules, dag, n, venster, within, over, in_night, saturday)


def _paid_holidays(per_dag: dict[date, Day], worked: set[date], counter: _Counter) -> None:
    """The paid holidays on Monday..Friday not worked, noted first (see the docstring)."""
    noted = min(FEESTDAG_MAX, counter.contract // 5)
    if not noted:
        return
    for datum, dag in per_dag.items():
        if dag.feestdag and datum.isoweekday() <= 5 and datum not in worked:
            dag.feestdag_min = noted
            counter.geteld += noted
            counter.weekdag += noted


def _count(
    rules: PayRules,
    dag: Day,
    n: int,
    venster: Window | None,
    within: bool,
    over: bool,
    night: bool,
    saturday: bool,
) -> None:
    """n paid minutes alike: the one rate they earn, counted in its category."""
    # (rate, precedence on a tie, category)
    opties: list[tuple[int, int, str]] = []
    if dag.feestdag or dag.datum.isoweekday() == 7:
        opties.append((rules.zondag_procent, 4, "zondag"))
    if saturday:
        opties.append((rules.zaterdag_procent, 3, "zaterdag"))
    if over and not (venster and rules.samenloop == "onregelmatig"):
        opties.append((rules.overuren_procent, 2, "overuren"))
    if venster:
        opties.append((venster.procent, 1, "venster"))
    categorie = max(opties)[2] if opties else "basis"
    beyond = 0 if within else n
    dag.gewerkt_min += n
    dag.boven_contract.min += beyond
    if night and categorie != "venster":
        dag.nachttoeslag_min += n
    if categorie == "zondag":
        dag.zondag_200_min += n
        dag.boven_contract.zondag_200_min += beyond
    elif categorie == "zaterdag":
        dag.zaterdag_150_min += n
        dag.boven_contract.zaterdag_150_min += beyond
    elif categorie == "overuren":
        dag.overuren_130_min += n
    else:
        if within:
            dag.normaal_min += n
        else:
            dag.meeruren_min += n
        if venster is not None and categorie == "venster":
            entry = next((o for o in dag.onregelmatig if o.venster == venster.naam), None)
            if entry is None:
                dag.onregelmatig.append(entry := Irregular(venster.naam, venster.procent))
            entry.min += n
            entry.boven_contract_min += beyond
