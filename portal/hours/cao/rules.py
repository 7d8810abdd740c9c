"""Pay rules as data: a carrier's rule set (regelset) under the CAO Beroepsgoederenvervoer
over de weg, the preset for that CAO, and which set a week is computed with. The checks a
set must pass live in checks.py, its JSON in store.py; docs/cao.md cites the CAO's articles.

Choices, each deliberate:
- A rule set is valid from `geldig_vanaf` until the next set's date. A week is computed with
  the set valid on its Monday. A set that starts on Tuesday..Sunday of the week asked for is
  an error (`regelset_wijzigt_in_week`), not silently ignored or mixed: half a week at last
  year's amounts is a payroll dispute waiting to happen, and the rule "overtime per week"
  needs one contract and one rate for the whole week. For that reason a set must start on
  a Monday (`geldig_vanaf_geen_maandag`), so a checked history never hits that error.
- Percentages of a category are whole numbers, the total paid for the minute (130 = base
  + 30%), from 100 to 300. The one-day night-trip surcharge is the surcharge alone (19 =
  19% on top of whatever else the minute earns), from 0 (none) to 100. Money is Decimal,
  never negative.
- Where overtime starts (`overuren_grens`, CAO art. 27, 8 and 10): "cao" follows the CAO in
  force for the week: up to ISO year 2025 overtime is the weekday hours above 40 and the
  hours between a shorter contract and 40 are meeruren; from 2026 (CAO 2026, art. 27 lid 1)
  overtime is the weekday hours above the contract hours when those are under 40.
  "week_40" and "contract" fix one of the two; "dag_8" is the on-call workers' rule (art. 10
  lid 5: above 8 hours a day). `dubbele_bemanning` (art. 27 lid 2, art. 33 lid 2): the week
  for overtime runs to Saturday 07:00 and the Saturday rate starts at 07:00.
- Irregular-hours windows (`vensters`) are wall-clock times of the carrier's time zone on
  the ISO weekdays they name. Every weekday that any window names must be covered from 00:00
  to 24:00 exactly once: a stretch left out is a gap (`venster_gat`), two windows on the
  same minute an overlap (`venster_overlap`). Regular hours are a window at 100%, so the
  table says in so many words which hours carry no surcharge. Weekdays no window names
  have no irregular hours. The CAO itself has no such table for drivers (docs/cao.md): the
  preset has none, a carrier enters its own (a shift or company arrangement).
- Which activity kinds are paid: all but `pauze` by default. `beschikbaarheid` is paid by
  default: the CAO pays service hours (diensturen, from the start of the service to its end
  less breaks), and availability is not a break, even though the working-time rules (EU
  directive 2002/15, `WERKTIJD_SOORTEN`) do not count it as working time.
- Where overtime and an irregular-hours surcharge meet, `samenloop` decides: "onregelmatig"
  (the preset) pays the irregular-hours surcharge only, "hoogste" the higher of the two (a
  set saved without the field keeps "hoogste", as it was computed). Sunday, holiday and
  Saturday rates are always compared by height with whatever else applies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from portal.holidays import CAO_FEESTDAGEN

# The activity kinds of portal.hours.models.SOORTEN (not imported: this package stays free
# of the database; a test keeps the two equal).
SOORTEN = ("rijden", "laden", "lossen", "wachten", "pauze", "overig_werk", "beschikbaarheid")
BETAALDE_SOORTEN = tuple(s for s in SOORTEN if s != "pauze")
SAMENLOOP = ("hoogste", "onregelmatig")
OVERUREN_GRENZEN = ("cao", "week_40", "contract", "dag_8")
# The ISO year from which the CAO counts a part-timer's overtime from the contract hours.
CAO_CONTRACT_VANAF = 2026
PROCENT_MIN, PROCENT_MAX = 100, 300
TOESLAG_MAX = 100
TIJD = re.compile(r"^([01]\d|2[0-4]):([0-5]\d)$")
BRON = (
    "Preset after the CAO Beroepsgoederenvervoer over de weg en de verhuur van mobiele kranen "
    "(docs/cao.md cites its articles). The verblijfkosten amounts are 0.00 until the carrier "
    "enters this year's amounts from the CAO's article on verblijfkosten (amounts change "
    "every 1 January)."
)


class CaoError(ValueError):
    """A week that cannot be computed, with a stable code and its parameters."""

    def __init__(self, code: str, message: str, **params):
        super().__init__(message)
        self.code = code
        self.params = params


def minute_of_day(tijd: str, *, einde: bool = False) -> int:
    """'19:30' as minutes after local midnight; '24:00' (1440) only as the end of a span."""
    match = TIJD.match(tijd or "")
    if not match:
        raise ValueError(f"not a time like 19:30: {tijd!r}")
    value = int(match.group(1)) * 60 + int(match.group(2))
    if value > 1440 or (value == 1440 and not einde):
        raise ValueError(f"not a time of day: {tijd!r}")
    return value


@dataclass(frozen=True)
class Window:
    """An irregular-hours window: wall-clock `van` to `tot` ('24:00' is midnight at the end)
    on the ISO weekdays in `dagen` (1 is Monday), paid at `procent` (100 for regular hours)."""

    naam: str
    dagen: tuple[int, ...]
    van: str
    tot: str
    procent: int


@dataclass(frozen=True)
class HourRate:
    """An allowance per hour of absence within wall-clock `van` to `tot` of the day, pro rata
    to the minute. `vertrek_voor` / `aankomst_na`: only when the trip left before, or ended
    after, that wall-clock time (both strict)."""

    naam: str
    van: str
    tot: str
    bedrag_per_uur: Decimal
    vertrek_voor: str | None = None
    aankomst_na: str | None = None


@dataclass(frozen=True)
class FixedAmount:
    """A fixed allowance for the day, when every condition given holds: the trip left after
    `vertrek_na` (strict), the whole trip's absence is at least `min_afwezig_min`, and the
    absence on one calendar day covers `dekt_van` to `dekt_tot` entirely (a meal)."""

    naam: str
    bedrag: Decimal
    vertrek_na: str | None = None
    min_afwezig_min: int = 0
    dekt_van: str | None = None
    dekt_tot: str | None = None


@dataclass(frozen=True)
class DayRate:
    """What one day of a trip (or a whole one-day trip) earns: hourly and fixed amounts."""

    uurtarieven: tuple[HourRate, ...] = ()
    vaste_bedragen: tuple[FixedAmount, ...] = ()

    def bedrag(
        self,
        dagen: Sequence[Sequence[tuple[int, int]]],
        departure: int,
        arrival: int,
        duur: int,
    ) -> Decimal:
        """What the absence earns, unrounded: dagen holds per calendar day its runs of
        absence as (wall-clock minute, length) (one day, or both days of a one-day trip
        across midnight), vertrek and aankomst the trip's wall-clock departure and return,
        duur its length."""
        bedrag = Decimal(0)
        runs = [run for dag in dagen for run in dag]
        for rate in self.uurtarieven:
            if rate.vertrek_voor and not departure < minute_of_day(rate.vertrek_voor, einde=True):
                continue
            if rate.aankomst_na and not arrival > minute_of_day(rate.aankomst_na, einde=True):
                continue
            van, tot = minute_of_day(rate.van), minute_of_day(rate.tot, einde=True)
            minuten = sum(max(0, min(tot, w + n) - max(van, w)) for w, n in runs)
            bedrag += rate.bedrag_per_uur * minuten / 60
        for fixed in self.vaste_bedragen:
            if fixed.vertrek_na and not departure > minute_of_day(fixed.vertrek_na, einde=True):
                continue
            if duur < fixed.min_afwezig_min:
                continue
            if fixed.dekt_van and fixed.dekt_tot:
                van = minute_of_day(fixed.dekt_van)
                tot = minute_of_day(fixed.dekt_tot, einde=True)
                if not any(
                    min(w for w, _ in dag) <= van and max(w + n for w, n in dag) >= tot
                    for dag in dagen
                    if dag
                ):
                    continue
            bedrag += fixed.bedrag
        return bedrag


@dataclass(frozen=True)
class Allowances:
    """Daily allowances for absence from the home base. A work day is one trip; it earns
    nothing unless its absence is more than `drempel_min` (the CAO: more than 4 hours). A trip
    whose departure and return lie within 24 hours is one-day (`eendaags`), also when it
    crosses midnight (CAO art. 40 lid 3a); a longer one is multi-day: its first day, its
    full days in between (`tussendag`) and its last day each earn their own tariff."""

    drempel_min: int = 240
    eendaags: DayRate = field(default_factory=DayRate)
    eerste_dag: DayRate = field(default_factory=DayRate)
    tussendag: DayRate = field(default_factory=DayRate)
    laatste_dag: DayRate = field(default_factory=DayRate)


@dataclass(frozen=True)
class PayRules:
    """A carrier's pay rules from `geldig_vanaf` on (see the module docstring)."""

    geldig_vanaf: date
    naam: str = "CAO Beroepsgoederenvervoer over de weg"
    contracturen: Decimal = Decimal(40)  # per week, unless the driver's contract says else
    betaalde_soorten: tuple[str, ...] = BETAALDE_SOORTEN
    overuren_procent: int = 130
    zaterdag_procent: int = 150
    zondag_procent: int = 200  # Sundays and the holidays below
    samenloop: str = "hoogste"
    vensters: tuple[Window, ...] = ()
    feestdagen: tuple[str, ...] = CAO_FEESTDAGEN
    extra_feestdagen: tuple[date, ...] = ()
    verblijfkosten: Allowances = field(default_factory=Allowances)
    max_dag_min: int = 15 * 60  # a day with more paid minutes than this is flagged
    bron: str = ""
    overuren_grens: str = "cao"
    dubbele_bemanning: bool = False
    # The one-day night-trip surcharge (CAO art. 37): per paid minute of a one-day trip
    # between nachtrit_van and nachtrit_tot (across midnight when van > tot), on top.
    nachtrit_procent: int = 19
    nachtrit_van: str = "21:00"
    nachtrit_tot: str = "05:00"

    def irregular_windows(self) -> dict[int, list[tuple[int, int, Window]]]:
        """Per ISO weekday the irregular windows (above 100%) as (van, tot, window), in order
        of time, van and tot in minutes of the day."""
        table: dict[int, list[tuple[int, int, Window]]] = {}
        for venster in self.vensters:
            if venster.procent > 100:
                van, tot = minute_of_day(venster.van), minute_of_day(venster.tot, einde=True)
                for dag in venster.dagen:
                    table.setdefault(dag, []).append((van, tot, venster))
        return {dag: sorted(spans, key=lambda s: s[:2]) for dag, spans in table.items()}

    def night_trip_spans(self) -> list[tuple[int, int]]:
        """The night-trip window as spans of wall-clock minutes of a day: 21:00-05:00 is
        [(1260, 1440), (0, 300)]; none when the surcharge is 0."""
        if not self.nachtrit_procent:
            return []
        van = minute_of_day(self.nachtrit_van)
        tot = minute_of_day(self.nachtrit_tot, einde=True)
        return [(van, tot)] if van < tot else [(van, 1440), (0, tot)]

    def overtime_threshold(self, jaar: int) -> str:
        """Where overtime starts in a week of ISO year jaar: "week_40", "contract" or
        "dag_8" ("cao" resolved to the CAO in force that year)."""
        if self.overuren_grens != "cao":
            return self.overuren_grens
        return "contract" if jaar >= CAO_CONTRACT_VANAF else "week_40"

    @property
    def allowances_entered(self) -> bool:
        """Whether any allowance amount has been entered (the preset ships zeros)."""
        return any(bedrag > 0 for _, bedrag in bedragen(self.verblijfkosten))


def bedragen(allowances: Allowances):
    """Every amount of the verblijfkosten as (its field path, the amount), in tariff order."""
    for deel in ("eendaags", "eerste_dag", "tussendag", "laatste_dag"):
        tarief: DayRate = getattr(allowances, deel)
        for i, rate in enumerate(tarief.uurtarieven):
            yield f"verblijfkosten.{deel}.uurtarieven[{i}]", rate.bedrag_per_uur
        for i, fixed in enumerate(tarief.vaste_bedragen):
            yield f"verblijfkosten.{deel}.vaste_bedragen[{i}]", fixed.bedrag


ZERO = Decimal("0.00")


def cao_preset(geldig_vanaf: date) -> PayRules:
    """The preset for the CAO Beroepsgoederenvervoer (docs/cao.md): 40 contract hours,
    overtime 130% where the CAO in force puts it, Saturday 150%, Sunday and the CAO's
    holidays 200%, no irregular-hours table (the CAO has none for drivers), where overtime
    meets a carrier's irregular-hours surcharge that surcharge alone, the one-day night-trip
    surcharge of 19% from 21:00 to 05:00, and the CAO's structure of verblijfkosten with
    amounts 0.00."""
    return PayRules(
        geldig_vanaf=geldig_vanaf,
        samenloop="onregelmatig",
        overuren_grens="cao",
        verblijfkosten=Allowances(
            drempel_min=240,
            eendaags=DayRate(
                uurtarieven=(
                    HourRate("per uur afwezig", "00:00", "24:00", ZERO),
                    HourRate("avond bij vertrek voor 14:00", "18:00", "24:00", ZERO, "14:00"),
                ),
                vaste_bedragen=(
                    FixedAmount(
                        "extra bij vertrek na 14:00 en 12 uur afwezig",
                        ZERO,
                        vertrek_na="14:00",
                        min_afwezig_min=12 * 60,
                    ),
                ),
            ),
            eerste_dag=DayRate(
                uurtarieven=(
                    HourRate("per uur afwezig", "00:00", "24:00", ZERO),
                    HourRate("avond bij vertrek voor 17:00", "17:00", "24:00", ZERO, "17:00"),
                ),
            ),
            tussendag=DayRate(vaste_bedragen=(FixedAmount("dagbedrag", ZERO),)),
            laatste_dag=DayRate(
                uurtarieven=(
                    HourRate("per uur afwezig", "00:00", "24:00", ZERO),
                    HourRate("avond", "18:00", "24:00", ZERO),
                    HourRate("nacht bij aankomst na 12:00", "00:00", "06:00", ZERO, None, "12:00"),
                ),
            ),
        ),
        bron=BRON,
    )


def pay_rules_for_week(rule_sets: PayRules | Sequence[PayRules], maandag: date) -> PayRules:
    """The rule set a week starting on maandag is computed with: the latest one valid on that
    Monday. CaoError `geen_regelset` when none is, `regelset_wijzigt_in_week` when a set
    starts on Tuesday..Sunday of the week."""
    if isinstance(rule_sets, PayRules):
        rule_sets = [rule_sets]
    sunday = maandag + timedelta(days=6)
    for rules in rule_sets:
        if maandag < rules.geldig_vanaf <= sunday:
            raise CaoError(
                "regelset_wijzigt_in_week",
                f"a rule set starts on {rules.geldig_vanaf.isoformat()}, within the week of "
                f"{maandag.isoformat()}: let it start on a Monday",
                geldig_vanaf=rules.geldig_vanaf,
                maandag=maandag,
            )
    valid = [r for r in rule_sets if r.geldig_vanaf <= maandag]
    if not valid:
        raise CaoError(
            "geen_regelset",
            f"no rule set is valid on {maandag.isoformat()}",
            maandag=maandag,
        )
    return max(valid, key=lambda r: r.geldig_vanaf)
