"""A driver's ISO week as payable hours under a rule set (see rules.py): per day the paid
minutes by category, the irregular-hours windows, the absence from the home base and its
allowance (verblijfkosten), warnings, and the week's totals. Plain values in and out; every
choice below is tested in tests/hours/test_cao_week.py.

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

Hours
- Paid minutes are the minutes of activities of the rule set's paid kinds. A minute in no
  activity (inside a work day or not) is not paid.
- Contract: the first `contract_min` paid minutes of the week, in time order, are within the
  contract; the rest, the last minutes of the week, are beyond it (`boven_contract`).
  Overtime is counted per week only. A week short of the contract is made up to it
  (`aanvulling_min`), never from another week.
- Each paid minute earns exactly one rate, the highest that applies to it: Sunday or holiday
  (200), Saturday (150), overtime (130, only beyond the contract), its irregular-hours
  window (when above 100). Ties go in that order. With samenloop "onregelmatig" a minute
  that is both overtime and irregular earns the window's rate instead of overtime.
- Categories: a minute earning the Sunday, Saturday or overtime rate counts there; every
  other minute is `normaal`, and if it earned a window's rate, also in that window's
  `onregelmatig` entry (so irregular minutes are a part of normaal). `boven_contract` says
  how many minutes of the day or week were beyond the contract and how many of those were
  Saturday and Sunday minutes (payroll pays those at the full rate, the ones within the
  contract only at the surcharge); overtime is beyond the contract by definition.

Allowances
- A work day is one trip, from its start (leaving the home base) to its end (returning).
  Within one local day (an end at 24:00 included) it is a one-day trip; crossing local
  midnight (as every work day over 24 hours does) it is multi-day: its first, middle and
  last days earn those tariffs. Consecutive work days are separate trips. A trip of not more
  than `drempel_min` earns nothing.
- Hourly amounts are pro rata to the minute. Each day's amounts are added up over the trips
  on that day and rounded half up to the cent; the week's total is the sum of those days.

Warnings (per day, codes)
- `dag_te_lang`: more paid minutes on the day than the rule set's `max_dag_min` (15 hours).
- The break rules of EU directive 2002/15 art. 5 (Arbeidstijdenbesluit vervoer), checked per
  work day on its working time (`ARBEIDSTIJD`, availability and breaks excluded) and shown
  on the day it started: `pauze_te_kort` when more than 6 hours of working time have less
  than 30 minutes of break, or more than 9 hours less than 45; `langer_dan_6_uur_zonder_pauze`
  when more than 6 hours of working time follow one another without a break. A break is a
  `pauze` activity or time without any activity, of at least 15 minutes (shorter parts do
  not count), between two stretches of work. Availability is neither work nor break.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise
from zoneinfo import ZoneInfo

from portal.hours.cao.holidays import feestdagen
from portal.hours.cao.rules import (
    SOORTEN,
    CaoFout,
    Regelset,
    Venster,
    controleer_regelset,
    regelset_voor_week,
)

AMSTERDAM = ZoneInfo("Europe/Amsterdam")
# Working time as portal.hours.models.WERKTIJD_SOORTEN has it (a test keeps them equal).
ARBEIDSTIJD = ("rijden", "laden", "lossen", "wachten", "overig_werk")
PAUZE_DEEL_MIN = 15
PAUZE_EISEN = ((9 * 60, 45), (6 * 60, 30))  # more working time than this: at least so much break
MAX_ZONDER_PAUZE = 6 * 60
CENT = Decimal("0.01")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
EPOCH_ORDINAL = date(1970, 1, 1).toordinal()

OPTELBAAR = (
    "gewerkt_min",
    "normaal_min",
    "overuren_130_min",
    "zaterdag_150_min",
    "zondag_200_min",
    "onbetaald_min",
    "afwezig_min",
    "verblijfkosten_eur",
)


@dataclass(frozen=True)
class Activiteit:
    soort: str
    begin: datetime
    einde: datetime


@dataclass(frozen=True)
class Werkdag:
    """A driver's shift from leaving the home base to returning, with its activities."""

    gestart_op: datetime
    beeindigd_op: datetime
    activiteiten: tuple[Activiteit, ...] = ()


@dataclass
class Onregelmatig:
    venster: str
    procent: int
    min: int = 0
    boven_contract_min: int = 0


@dataclass
class BovenContract:
    min: int = 0
    zaterdag_150_min: int = 0
    zondag_200_min: int = 0


@dataclass
class Uren:
    """The paid minutes of a day or a week by category."""

    gewerkt_min: int = 0
    normaal_min: int = 0
    overuren_130_min: int = 0
    zaterdag_150_min: int = 0
    zondag_200_min: int = 0
    onregelmatig: list[Onregelmatig] = field(default_factory=list)
    boven_contract: BovenContract = field(default_factory=BovenContract)
    onbetaald_min: int = 0
    afwezig_min: int = 0
    verblijfkosten_eur: Decimal = Decimal("0.00")

    def _json(self) -> dict:
        data = {name: getattr(self, name) for name in OPTELBAAR}
        data["onregelmatig"] = [vars(o).copy() for o in self.onregelmatig]
        data["boven_contract"] = vars(self.boven_contract).copy()
        data["verblijfkosten_eur"] = str(self.verblijfkosten_eur)
        return data


@dataclass(kw_only=True)
class Dag(Uren):
    """One local day of the week. `onregelmatig` lists the windows with minutes only."""

    datum: date
    feestdag: str | None = None
    waarschuwingen: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"datum": self.datum.isoformat(), "feestdag": self.feestdag} | self._json() | {
            "waarschuwingen": list(self.waarschuwingen)
        }  # fmt: skip


@dataclass
class Totaal(Uren):
    """The week. `onregelmatig` lists every irregular window of the rule set, in its order."""

    aanvulling_min: int = 0

    def to_json(self) -> dict:
        return self._json() | {"aanvulling_min": self.aanvulling_min}


@dataclass
class Weekresultaat:
    jaar: int
    week: int
    contract_min: int
    regelset_geldig_vanaf: date
    per_dag: list[Dag]
    totaal: Totaal
    max_dag_min: int = 15 * 60  # the rule set's longest day before a warning

    @property
    def label(self) -> str:
        return f"{self.jaar}-W{self.week:02d}"

    def to_json(self) -> dict:
        """The week as JSON values: minutes as integers, money as decimal strings."""
        return {
            "week": self.label,
            "regelset_geldig_vanaf": self.regelset_geldig_vanaf.isoformat(),
            "contract_min": self.contract_min,
            "per_dag": [dag.to_json() for dag in self.per_dag],
            "totaal": self.totaal.to_json(),
        }


class _Klok:
    """Epoch minutes as local dates and wall-clock minutes of the day in a time zone."""

    def __init__(self, zone: ZoneInfo):
        self.zone = zone
        self._offsets: dict[int, int | None] = {}

    def _offset(self, minuut: int) -> int:
        moment = datetime.fromtimestamp(minuut * 60, self.zone)
        return int(moment.utcoffset().total_seconds() // 60)

    def stap(self, minuut: int) -> tuple[date, int, int]:
        """(local date, wall-clock minute, how many minutes from here on surely keep the
        same UTC offset: to the end of the UTC hour, or 1 in an hour the clocks change)."""
        hour = minuut // 60
        if hour not in self._offsets:
            first = self._offset(hour * 60)
            self._offsets[hour] = first if self._offset(hour * 60 + 59) == first else None
        offset = self._offsets[hour]
        rest = (hour + 1) * 60 - minuut
        if offset is None:
            offset, rest = self._offset(minuut), 1
        local = minuut + offset
        return date.fromordinal(EPOCH_ORDINAL + local // 1440), local % 1440, rest

    def runs(self, begin: int, einde: int) -> Iterator[tuple[date, int, int]]:
        """[begin, einde) as runs (local date, first wall-clock minute, length) within which
        the wall clock runs on minute by minute on one local day."""
        cursor = begin
        while cursor < einde:
            datum, wand, rest = self.stap(cursor)
            lengte = min(einde - cursor, 1440 - wand, rest)
            yield datum, wand, lengte
            cursor += lengte

    def middernacht(self, day: date) -> int:
        """Local 00:00 of day as epoch minutes."""
        return _minuut(datetime(day.year, day.month, day.day, tzinfo=self.zone))


def _minuut(moment: datetime) -> int:
    """An aware datetime as whole epoch minutes, half a minute rounded up."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise CaoFout("tijd_zonder_zone", f"{moment.isoformat()} has no time zone")
    delta = moment - EPOCH
    micro = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    return (micro + 30_000_000) // 60_000_000


@dataclass
class _Dienst:
    begin: int
    einde: int
    activiteiten: list[tuple[str, int, int]]


def _diensten(werkdagen: Iterable[Werkdag]) -> list[_Dienst]:
    """The work days in epoch minutes, checked: CaoFout on a bad or overlapping one."""
    diensten = []
    for werkdag in werkdagen:
        begin, einde = _minuut(werkdag.gestart_op), _minuut(werkdag.beeindigd_op)
        if werkdag.beeindigd_op <= werkdag.gestart_op:
            raise CaoFout("periode_ongeldig", "a work day ends before it starts")
        activiteiten = []
        for a in werkdag.activiteiten:
            if a.soort not in SOORTEN:
                raise CaoFout("soort_onbekend", f"unknown activity kind {a.soort!r}", soort=a.soort)
            if a.einde <= a.begin:
                raise CaoFout("periode_ongeldig", "an activity ends before it starts")
            if a.begin < werkdag.gestart_op or a.einde > werkdag.beeindigd_op:
                raise CaoFout("activiteit_buiten_werkdag", "an activity lies outside its work day")
            activiteiten.append((a.soort, _minuut(a.begin), _minuut(a.einde)))
        diensten.append(_Dienst(begin, einde, sorted(activiteiten, key=lambda a: a[1:])))
    diensten.sort(key=lambda d: (d.begin, d.einde))
    _geen_overlap([(d.begin, d.einde) for d in diensten], "werkdagen_overlappen")
    # Rounding keeps order, so spans that did not overlap do not overlap once rounded.
    alle = sorted((a[1], a[2]) for d in diensten for a in d.activiteiten)
    _geen_overlap(alle, "activiteiten_overlappen")
    return diensten


def _geen_overlap(spans: Sequence[tuple[int, int]], code: str) -> None:
    for (_, previous_end), (begin, _) in pairwise(spans):
        if begin < previous_end:
            raise CaoFout(code, f"{code.replace('_', ' ')} (at minute {begin})")


def _stukken(
    spans: list[tuple[int, int, Venster]], wand: int, lengte: int
) -> Iterator[tuple[Venster | None, int]]:
    """A run of wall-clock minutes [wand, wand + lengte) cut by windows: (window, minutes)."""
    cursor, einde = wand, wand + lengte
    for van, tot, venster in spans:
        if tot <= cursor or van >= einde:
            continue
        if van > cursor:
            yield None, van - cursor
            cursor = van
        stop = min(tot, einde)
        yield venster, stop - cursor
        cursor = stop
    if cursor < einde:
        yield None, einde - cursor


def bereken_week(
    *,
    jaar: int,
    week: int,
    werkdagen: Iterable[Werkdag],
    regelsets: Regelset | Sequence[Regelset],
    contracturen: Decimal | int | None = None,
    zone: ZoneInfo = AMSTERDAM,
) -> Weekresultaat:
    """A driver's ISO week jaar-Wweek as payable hours, under the rule set valid on its
    Monday, with the driver's contract hours (the rule set's when None). CaoFout (a code)
    when the week, the rules or the input do not allow it."""
    try:
        maandag = date.fromisocalendar(jaar, week, 1)
    except ValueError:
        raise CaoFout("week_ongeldig", f"{jaar} has no week {week}") from None
    regelset = controleer_regelset(regelset_voor_week(regelsets, maandag))
    uren = regelset.contracturen if contracturen is None else contracturen
    if not isinstance(uren, Decimal | int) or not 0 <= uren <= 60 or (uren * 60) % 1:
        raise CaoFout("contracturen_ongeldig", f"contract hours {uren} per week", waarde=uren)
    contract_min = int(uren * 60)
    klok = _Klok(zone)
    dagen = [maandag + timedelta(days=n) for n in range(7)]
    vrij = {}
    for year in {d.year for d in dagen}:
        vrij |= feestdagen(year, regelset.feestdagen, regelset.extra_feestdagen)
    per_dag = {d: Dag(datum=d, feestdag=vrij.get(d)) for d in dagen}
    start, stop = klok.middernacht(dagen[0]), klok.middernacht(dagen[-1] + timedelta(days=1))
    diensten = _diensten(werkdagen)

    _uren(regelset, diensten, per_dag, contract_min, klok, start, stop)
    for dienst in diensten:
        _verblijf(regelset, dienst, per_dag, klok)
        _pauzes(dienst, per_dag, klok)
    order = {v.naam: n for n, v in enumerate(regelset.vensters)}
    for dag in per_dag.values():
        dag.onregelmatig.sort(key=lambda o: order[o.venster])
        dag.verblijfkosten_eur = dag.verblijfkosten_eur.quantize(CENT, ROUND_HALF_UP)
        if dag.gewerkt_min > regelset.max_dag_min:
            dag.waarschuwingen.insert(0, "dag_te_lang")
    return Weekresultaat(
        jaar=jaar,
        week=week,
        contract_min=contract_min,
        regelset_geldig_vanaf=regelset.geldig_vanaf,
        per_dag=list(per_dag.values()),
        totaal=_totaal(regelset, per_dag.values(), contract_min),
        max_dag_min=regelset.max_dag_min,
    )


def _uren(
    regelset: Regelset,
    diensten: list[_Dienst],
    per_dag: dict[date, Dag],
    contract_min: int,
    klok: _Klok,
    start: int,
    stop: int,
) -> None:
    """Count every paid minute of the week into its day and category."""
    tabel = regelset.onregelmatige_vensters()
    betaald = []
    for dienst in diensten:
        for soort, begin, einde in dienst.activiteiten:
            begin, einde = max(begin, start), min(einde, stop)
            if soort in regelset.betaalde_soorten:
                betaald.append((begin, einde))
            else:
                for datum, _, lengte in klok.runs(begin, einde):
                    per_dag[datum].onbetaald_min += lengte
    betaald.sort()
    geteld = 0  # paid minutes of the week before this one, in time order
    for begin, einde in betaald:
        for datum, wand, lengte in klok.runs(begin, einde):
            dag = per_dag[datum]
            for venster, minuten in _stukken(tabel.get(datum.isoweekday(), []), wand, lengte):
                binnen = min(minuten, max(0, contract_min - geteld))
                if binnen:
                    _tel(regelset, dag, venster, binnen, boven=False)
                if minuten - binnen:
                    _tel(regelset, dag, venster, minuten - binnen, boven=True)
                geteld += minuten


def _tel(regelset: Regelset, dag: Dag, venster: Venster | None, n: int, *, boven: bool) -> None:
    """n paid minutes alike: the one rate they earn, counted in its category."""
    # (rate, precedence on a tie, category)
    opties: list[tuple[int, int, str]] = []
    weekdag = dag.datum.isoweekday()
    if dag.feestdag or weekdag == 7:
        opties.append((regelset.zondag_procent, 4, "zondag"))
    if weekdag == 6:
        opties.append((regelset.zaterdag_procent, 3, "zaterdag"))
    if boven and not (venster and regelset.samenloop == "onregelmatig"):
        opties.append((regelset.overuren_procent, 2, "overuren"))
    if venster:
        opties.append((venster.procent, 1, "venster"))
    categorie = max(opties)[2] if opties else "normaal"
    extra = n if boven else 0
    dag.gewerkt_min += n
    dag.boven_contract.min += extra
    if categorie == "zondag":
        dag.zondag_200_min += n
        dag.boven_contract.zondag_200_min += extra
    elif categorie == "zaterdag":
        dag.zaterdag_150_min += n
        dag.boven_contract.zaterdag_150_min += extra
    elif categorie == "overuren":
        dag.overuren_130_min += n
    else:
        dag.normaal_min += n
        if venster is not None and categorie == "venster":
            entry = next((o for o in dag.onregelmatig if o.venster == venster.naam), None)
            if entry is None:
                dag.onregelmatig.append(entry := Onregelmatig(venster.naam, venster.procent))
            entry.min += n
            entry.boven_contract_min += extra


def _verblijf(regelset: Regelset, dienst: _Dienst, per_dag: dict[date, Dag], klok: _Klok) -> None:
    """The absence of one work day (a trip) and its allowance, on the days of the week."""
    kosten = regelset.verblijfkosten
    runs: dict[date, list[tuple[int, int]]] = {}
    for datum, wand, lengte in klok.runs(dienst.begin, dienst.einde):
        runs.setdefault(datum, []).append((wand, lengte))
        if datum in per_dag:
            per_dag[datum].afwezig_min += lengte
    duur = dienst.einde - dienst.begin
    if duur <= kosten.drempel_min:
        return
    vertrek = klok.stap(dienst.begin)[1]
    aankomst = klok.stap(dienst.einde - 1)[1] + 1
    datums = list(runs)
    for n, datum in enumerate(datums):
        if datum not in per_dag:
            continue
        if len(datums) == 1:
            tarief = kosten.eendaags
        elif n == 0:
            tarief = kosten.eerste_dag
        elif n == len(datums) - 1:
            tarief = kosten.laatste_dag
        else:
            tarief = kosten.tussendag
        per_dag[datum].verblijfkosten_eur += tarief.bedrag(runs[datum], vertrek, aankomst, duur)


def _pauzes(dienst: _Dienst, per_dag: dict[date, Dag], klok: _Klok) -> None:
    """The break rules of directive 2002/15 over one work day, on the day it started."""
    dag = per_dag.get(klok.stap(dienst.begin)[0])
    if dag is None:
        return
    # The work day as runs of work ("w"), break ("p": pauze or no activity) and other time.
    runs: list[list] = []
    cursor = dienst.begin
    for soort, begin, einde in dienst.activiteiten:
        soort_run = "w" if soort in ARBEIDSTIJD else "p" if soort == "pauze" else "b"
        for kind, minuten in (("p", begin - cursor), (soort_run, einde - begin)):
            if minuten and runs and runs[-1][0] == kind:
                runs[-1][1] += minuten
            elif minuten:
                runs.append([kind, minuten])
        cursor = einde
    werk = [i for i, (kind, _) in enumerate(runs) if kind == "w"]
    pauze, reeks, langste = 0, 0, 0
    for i, (kind, minuten) in enumerate(runs):
        if kind == "w":
            reeks += minuten
            langste = max(langste, reeks)
        elif kind == "p" and minuten >= PAUZE_DEEL_MIN and werk and werk[0] < i < werk[-1]:
            pauze += minuten
            reeks = 0
    werk_min = sum(runs[i][1] for i in werk)
    nodig = next((eis for grens, eis in PAUZE_EISEN if werk_min > grens), 0)
    if pauze < nodig and "pauze_te_kort" not in dag.waarschuwingen:
        dag.waarschuwingen.append("pauze_te_kort")
    if langste > MAX_ZONDER_PAUZE and "langer_dan_6_uur_zonder_pauze" not in dag.waarschuwingen:
        dag.waarschuwingen.append("langer_dan_6_uur_zonder_pauze")


def _totaal(regelset: Regelset, dagen: Iterable[Dag], contract_min: int) -> Totaal:
    totaal = Totaal(
        onregelmatig=[Onregelmatig(v.naam, v.procent) for v in regelset.vensters if v.procent > 100]
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
    totaal.aanvulling_min = max(0, contract_min - totaal.gewerkt_min)
    return totaal
