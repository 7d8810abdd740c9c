"""Pay rules as data: a carrier's rule set (regelset) under the CAO Beroepsgoederenvervoer
over de weg, the preset for that CAO, the checks a rule set must pass (stable error codes),
and which set a week is computed with.

Choices, each deliberate:
- A rule set is valid from `geldig_vanaf` until the next set's date. A week is computed with
  the set valid on its Monday. A set that starts on Tuesday..Sunday of the week asked for is
  an error (`regelset_wijzigt_in_week`), not silently ignored or mixed: half a week at last
  year's amounts is a payroll dispute waiting to happen, and the rule "overtime per week"
  needs one contract and one rate for the whole week. For that reason a set must start on
  a Monday (`geldig_vanaf_geen_maandag`), so a checked history never hits that error.
- Percentages are whole numbers, the total paid for the minute (130 = base + 30%), from 100
  to 300. Money is Decimal, never negative.
- Irregular-hours windows (`vensters`) are wall-clock times of the carrier's time zone on
  the ISO weekdays they name. Every weekday that any window names must be covered from 00:00
  to 24:00 exactly once: a stretch left out is a gap (`venster_gat`), two windows on the
  same minute an overlap (`venster_overlap`). Regular hours are a window at 100%, so the
  table says in so many words which hours carry no surcharge. Weekdays no window names
  have no irregular hours.
- Which activity kinds are paid: all but `pauze` by default. `beschikbaarheid` is paid by
  default: the CAO pays service hours (diensturen, from the start of the service to its end
  less breaks), and availability is not a break, even though the working-time rules (EU
  directive 2002/15, `WERKTIJD_SOORTEN`) do not count it as working time.
- Where overtime and an irregular-hours surcharge meet, `samenloop` decides: "hoogste" (the
  default) pays the higher of the two; "onregelmatig" pays the irregular-hours surcharge
  only, as some summaries of the CAO read its text. Sunday, holiday and Saturday rates are
  always compared by height with whatever else applies.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import date, timedelta
from decimal import Decimal

from portal.hours.cao.holidays import CAO_FEESTDAGEN, FEESTDAGEN

# The activity kinds of portal.hours.models.SOORTEN (not imported: this package stays free
# of the database; a test keeps the two equal).
SOORTEN = ("rijden", "laden", "lossen", "wachten", "pauze", "overig_werk", "beschikbaarheid")
BETAALDE_SOORTEN = tuple(s for s in SOORTEN if s != "pauze")
SAMENLOOP = ("hoogste", "onregelmatig")
PROCENT_MIN, PROCENT_MAX = 100, 300
TIJD = re.compile(r"^([01]\d|2[0-4]):([0-5]\d)$")
BRON = (
    "Preset after the CAO Beroepsgoederenvervoer over de weg en de verhuur van mobiele kranen. "
    "The irregular-hours percentages are defaults to check against the CAO text in force; "
    "the verblijfkosten amounts are 0.00 until the carrier enters this year's amounts from "
    "the CAO's appendix on verblijfkosten (amounts change every 1 January)."
)


class CaoFout(ValueError):
    """A week that cannot be computed, with a stable code and its parameters."""

    def __init__(self, code: str, message: str, **params):
        super().__init__(message)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class Regelfout:
    """One problem of a rule set: a stable code, the field it is about, and parameters."""

    code: str
    veld: str
    params: dict = field(default_factory=dict)


class OngeldigeRegelset(CaoFout):
    def __init__(self, fouten: list[Regelfout]):
        super().__init__(
            "regelset_ongeldig",
            "the rule set is not valid: " + ", ".join(f"{f.veld}: {f.code}" for f in fouten),
            fouten=fouten,
        )
        self.fouten = fouten


def minuut_van_dag(tijd: str, *, einde: bool = False) -> int:
    """'19:30' as minutes after local midnight; '24:00' (1440) only as the end of a span."""
    match = TIJD.match(tijd or "")
    if not match:
        raise ValueError(f"not a time like 19:30: {tijd!r}")
    value = int(match.group(1)) * 60 + int(match.group(2))
    if value > 1440 or (value == 1440 and not einde):
        raise ValueError(f"not a time of day: {tijd!r}")
    return value


@dataclass(frozen=True)
class Venster:
    """An irregular-hours window: wall-clock `van` to `tot` ('24:00' is midnight at the end)
    on the ISO weekdays in `dagen` (1 is Monday), paid at `procent` (100 for regular hours)."""

    naam: str
    dagen: tuple[int, ...]
    van: str
    tot: str
    procent: int


@dataclass(frozen=True)
class Uurtarief:
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
class Vastbedrag:
    """A fixed allowance for the day, when every condition given holds: the trip left after
    `vertrek_na` (strict), the whole trip's absence is at least `min_afwezig_min`, and the
    absence on this day covers `dekt_van` to `dekt_tot` entirely (a meal)."""

    naam: str
    bedrag: Decimal
    vertrek_na: str | None = None
    min_afwezig_min: int = 0
    dekt_van: str | None = None
    dekt_tot: str | None = None


@dataclass(frozen=True)
class Dagtarief:
    """What one day of a trip earns: hourly amounts and fixed amounts."""

    uurtarieven: tuple[Uurtarief, ...] = ()
    vaste_bedragen: tuple[Vastbedrag, ...] = ()

    def bedrag(self, runs: Sequence[tuple[int, int]], vertrek: int, aankomst: int, duur: int):
        """What a day earns, unrounded: runs are its absence as (wall-clock minute, length),
        vertrek and aankomst the trip's wall-clock departure and return, duur its length."""
        bedrag = Decimal(0)
        for uur in self.uurtarieven:
            if uur.vertrek_voor and not vertrek < minuut_van_dag(uur.vertrek_voor, einde=True):
                continue
            if uur.aankomst_na and not aankomst > minuut_van_dag(uur.aankomst_na, einde=True):
                continue
            van, tot = minuut_van_dag(uur.van), minuut_van_dag(uur.tot, einde=True)
            minuten = sum(max(0, min(tot, w + n) - max(van, w)) for w, n in runs)
            bedrag += uur.bedrag_per_uur * minuten / 60
        eerste, laatste = min(w for w, _ in runs), max(w + n for w, n in runs)
        for vast in self.vaste_bedragen:
            if vast.vertrek_na and not vertrek > minuut_van_dag(vast.vertrek_na, einde=True):
                continue
            if duur < vast.min_afwezig_min:
                continue
            if vast.dekt_van and vast.dekt_tot:
                van = minuut_van_dag(vast.dekt_van)
                if not (eerste <= van and laatste >= minuut_van_dag(vast.dekt_tot, einde=True)):
                    continue
            bedrag += vast.bedrag
        return bedrag


@dataclass(frozen=True)
class Verblijfkosten:
    """Daily allowances for absence from the home base. A work day is one trip; it earns
    nothing unless its absence is more than `drempel_min` (the CAO: more than 4 hours). A trip
    within one local calendar day is one-day (`eendaags`); one that crosses local midnight
    (or lasts over 24 hours) is multi-day: its first day, its full days in between
    (`tussendag`) and its last day each earn their own tariff."""

    drempel_min: int = 240
    eendaags: Dagtarief = field(default_factory=Dagtarief)
    eerste_dag: Dagtarief = field(default_factory=Dagtarief)
    tussendag: Dagtarief = field(default_factory=Dagtarief)
    laatste_dag: Dagtarief = field(default_factory=Dagtarief)


@dataclass(frozen=True)
class Regelset:
    """A carrier's pay rules from `geldig_vanaf` on (see the module docstring)."""

    geldig_vanaf: date
    naam: str = "CAO Beroepsgoederenvervoer over de weg"
    contracturen: Decimal = Decimal(40)  # per week, unless the driver's contract says else
    betaalde_soorten: tuple[str, ...] = BETAALDE_SOORTEN
    overuren_procent: int = 130
    zaterdag_procent: int = 150
    zondag_procent: int = 200  # Sundays and the holidays below
    samenloop: str = "hoogste"
    vensters: tuple[Venster, ...] = ()
    feestdagen: tuple[str, ...] = CAO_FEESTDAGEN
    extra_feestdagen: tuple[date, ...] = ()
    verblijfkosten: Verblijfkosten = field(default_factory=Verblijfkosten)
    max_dag_min: int = 15 * 60  # a day with more paid minutes than this is flagged
    bron: str = ""

    def onregelmatige_vensters(self) -> dict[int, list[tuple[int, int, Venster]]]:
        """Per ISO weekday the irregular windows (above 100%) as (van, tot, window), in order
        of time, van and tot in minutes of the day."""
        table: dict[int, list[tuple[int, int, Venster]]] = {}
        for venster in self.vensters:
            if venster.procent > 100:
                van, tot = minuut_van_dag(venster.van), minuut_van_dag(venster.tot, einde=True)
                for dag in venster.dagen:
                    table.setdefault(dag, []).append((van, tot, venster))
        return {dag: sorted(spans, key=lambda s: s[:2]) for dag, spans in table.items()}

    @property
    def verblijfkosten_ingevuld(self) -> bool:
        """Whether any allowance amount has been entered (the preset ships zeros)."""
        return any(bedrag > 0 for _, bedrag in _bedragen(self.verblijfkosten))


WEEKDAGEN = (1, 2, 3, 4, 5)
ZERO = Decimal("0.00")


def cao_preset(geldig_vanaf: date) -> Regelset:
    """The preset for the CAO Beroepsgoederenvervoer: 40 contract hours, overtime 130%,
    Saturday 150%, Sunday and the CAO's holidays 200%, Monday to Friday nights and evenings
    as irregular hours, and the CAO's structure of verblijfkosten with amounts 0.00."""
    return Regelset(
        geldig_vanaf=geldig_vanaf,
        vensters=(
            Venster("nacht", WEEKDAGEN, "00:00", "06:00", 130),
            Venster("dag", WEEKDAGEN, "06:00", "19:00", 100),
            Venster("avond", WEEKDAGEN, "19:00", "24:00", 120),
        ),
        verblijfkosten=Verblijfkosten(
            drempel_min=240,
            # The CAO's extra one-day amount for leaving after 14:00 and 12 hours away is left
            # out: such a trip crosses midnight, which makes it multi-day here (see week.py).
            eendaags=Dagtarief(
                uurtarieven=(
                    Uurtarief("per uur afwezig", "00:00", "24:00", ZERO),
                    Uurtarief("avond bij vertrek voor 14:00", "18:00", "24:00", ZERO, "14:00"),
                ),
            ),
            eerste_dag=Dagtarief(
                uurtarieven=(
                    Uurtarief("per uur afwezig", "00:00", "24:00", ZERO),
                    Uurtarief("avond bij vertrek voor 17:00", "17:00", "24:00", ZERO, "17:00"),
                ),
            ),
            tussendag=Dagtarief(vaste_bedragen=(Vastbedrag("dagbedrag", ZERO),)),
            laatste_dag=Dagtarief(
                uurtarieven=(
                    Uurtarief("per uur afwezig", "00:00", "24:00", ZERO),
                    Uurtarief("avond", "18:00", "24:00", ZERO),
                    Uurtarief("nacht bij aankomst na 12:00", "00:00", "06:00", ZERO, None, "12:00"),
                ),
            ),
        ),
        bron=BRON,
    )


# --- as JSON (how a carrier's rule sets are stored) ----------------------------------------

_DATACLASSES = {
    "vensters": Venster,
    "uurtarieven": Uurtarief,
    "vaste_bedragen": Vastbedrag,
    "verblijfkosten": Verblijfkosten,
    **dict.fromkeys(("eendaags", "eerste_dag", "tussendag", "laatste_dag"), Dagtarief),
}
_DECIMALS = ("contracturen", "bedrag_per_uur", "bedrag")
_DATES = ("geldig_vanaf", "extra_feestdagen")


def regelset_naar_json(value):
    """A rule set (or a part of one) as JSON values: money and hours as decimal strings,
    dates as ISO dates."""
    if is_dataclass(value):
        return {f.name: regelset_naar_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple | list):
        return [regelset_naar_json(item) for item in value]
    if isinstance(value, Decimal | date):
        return str(value)
    return value


def regelset_uit_json(data: dict, cls: type = Regelset):
    """A rule set from regelset_naar_json's output; ValueError when the shape is wrong.
    Check it with valideer_regelset: this reads, it does not judge."""
    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__}: an object expected")
    known = {f.name for f in fields(cls)}
    if set(data) - known:
        raise ValueError(f"{cls.__name__}: unknown fields {sorted(set(data) - known)}")
    kwargs = {}
    for name, value in data.items():
        if name in _DATACLASSES and isinstance(value, list):
            value = tuple(regelset_uit_json(item, _DATACLASSES[name]) for item in value)
        elif name in _DATACLASSES:
            value = regelset_uit_json(value, _DATACLASSES[name])
        elif name in _DECIMALS:
            try:
                value = Decimal(str(value))
            except ArithmeticError:
                raise ValueError(f"{cls.__name__}.{name}: not a number") from None
        elif name in _DATES and isinstance(value, list):
            value = tuple(date.fromisoformat(item) for item in value)
        elif name in _DATES:
            value = date.fromisoformat(value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[name] = value
    try:
        return cls(**kwargs)
    except TypeError as error:  # a required field left out
        raise ValueError(f"{cls.__name__}: {error}") from None


# --- checks ------------------------------------------------------------------------------


def _bedragen(kosten: Verblijfkosten) -> Iterable[tuple[str, Decimal]]:
    for deel in ("eendaags", "eerste_dag", "tussendag", "laatste_dag"):
        tarief: Dagtarief = getattr(kosten, deel)
        for i, uur in enumerate(tarief.uurtarieven):
            yield f"verblijfkosten.{deel}.uurtarieven[{i}]", uur.bedrag_per_uur
        for i, vast in enumerate(tarief.vaste_bedragen):
            yield f"verblijfkosten.{deel}.vaste_bedragen[{i}]", vast.bedrag


def _tijd(fouten: list[Regelfout], veld: str, tijd, *, einde: bool) -> int | None:
    try:
        return minuut_van_dag(tijd, einde=einde)
    except (TypeError, ValueError):
        fouten.append(Regelfout("tijd_ongeldig", veld, {"waarde": tijd}))
        return None


def _kosten_tijden(fouten: list[Regelfout], kosten: Verblijfkosten) -> None:
    for deel in ("eendaags", "eerste_dag", "tussendag", "laatste_dag"):
        tarief: Dagtarief = getattr(kosten, deel)
        for i, uur in enumerate(tarief.uurtarieven):
            veld = f"verblijfkosten.{deel}.uurtarieven[{i}]"
            van = _tijd(fouten, f"{veld}.van", uur.van, einde=False)
            tot = _tijd(fouten, f"{veld}.tot", uur.tot, einde=True)
            if van is not None and tot is not None and tot <= van:
                fouten.append(Regelfout("venster_leeg", veld, {"van": uur.van, "tot": uur.tot}))
            for naam in ("vertrek_voor", "aankomst_na"):
                if getattr(uur, naam) is not None:
                    _tijd(fouten, f"{veld}.{naam}", getattr(uur, naam), einde=True)
        for i, vast in enumerate(tarief.vaste_bedragen):
            veld = f"verblijfkosten.{deel}.vaste_bedragen[{i}]"
            if vast.vertrek_na is not None:
                _tijd(fouten, f"{veld}.vertrek_na", vast.vertrek_na, einde=True)
            if (vast.dekt_van is None) != (vast.dekt_tot is None):
                fouten.append(Regelfout("dekking_onvolledig", veld, {}))
            elif vast.dekt_van is not None:
                van = _tijd(fouten, f"{veld}.dekt_van", vast.dekt_van, einde=False)
                tot = _tijd(fouten, f"{veld}.dekt_tot", vast.dekt_tot, einde=True)
                if van is not None and tot is not None and tot <= van:
                    params = {"van": vast.dekt_van, "tot": vast.dekt_tot}
                    fouten.append(Regelfout("venster_leeg", veld, params))
            if not isinstance(vast.min_afwezig_min, int) or vast.min_afwezig_min < 0:
                fouten.append(Regelfout("duur_ongeldig", f"{veld}.min_afwezig_min", {}))


def _procent(fouten: list[Regelfout], veld: str, value) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        fouten.append(Regelfout("procent_ongeldig", veld, {"waarde": value}))
    elif value < PROCENT_MIN:
        fouten.append(Regelfout("procent_te_laag", veld, {"waarde": value, "min": PROCENT_MIN}))
    elif value > PROCENT_MAX:
        fouten.append(Regelfout("procent_te_hoog", veld, {"waarde": value, "max": PROCENT_MAX}))


def _vensters(fouten: list[Regelfout], vensters: Sequence[Venster]) -> None:
    spans: dict[int, list[tuple[int, int, str]]] = {}
    names: set[str] = set()
    for i, venster in enumerate(vensters):
        veld = f"vensters[{i}]"
        if not venster.naam or venster.naam in names:
            fouten.append(Regelfout("venster_naam_ongeldig", f"{veld}.naam", {}))
        names.add(venster.naam)
        _procent(fouten, f"{veld}.procent", venster.procent)
        if not venster.dagen or any(d not in range(1, 8) for d in venster.dagen):
            fouten.append(Regelfout("dag_ongeldig", f"{veld}.dagen", {}))
            continue
        van = _tijd(fouten, f"{veld}.van", venster.van, einde=False)
        tot = _tijd(fouten, f"{veld}.tot", venster.tot, einde=True)
        if van is None or tot is None:
            continue
        if tot <= van:
            fouten.append(Regelfout("venster_leeg", veld, {"van": venster.van, "tot": venster.tot}))
            continue
        for dag in set(venster.dagen):
            spans.setdefault(dag, []).append((van, tot, venster.naam))
    for dag, parts in sorted(spans.items()):
        cursor, previous = 0, None
        for van, tot, naam in sorted(parts):
            if van > cursor:
                fouten.append(Regelfout("venster_gat", "vensters", _gap(dag, cursor, van)))
            elif van < cursor:
                params = {"dag": dag, "vensters": [previous, naam]}
                fouten.append(Regelfout("venster_overlap", "vensters", params))
            cursor, previous = max(cursor, tot), naam
        if cursor < 1440:
            fouten.append(Regelfout("venster_gat", "vensters", _gap(dag, cursor, 1440)))


def _hhmm(minuut: int) -> str:
    return f"{minuut // 60:02d}:{minuut % 60:02d}"


def _gap(dag: int, van: int, tot: int) -> dict:
    return {"dag": dag, "van": _hhmm(van), "tot": _hhmm(tot)}


def valideer_regelset(regelset: Regelset) -> list[Regelfout]:
    """Every problem of a rule set, in field order; empty when it is valid."""
    fouten: list[Regelfout] = []
    if regelset.geldig_vanaf.isoweekday() != 1:
        fouten.append(Regelfout("geldig_vanaf_geen_maandag", "geldig_vanaf", {}))
    uren = regelset.contracturen
    if not isinstance(uren, Decimal | int) or not 0 <= uren <= 60 or (uren * 60) % 1:
        fouten.append(Regelfout("contracturen_ongeldig", "contracturen", {"waarde": str(uren)}))
    onbekend = [s for s in regelset.betaalde_soorten if s not in SOORTEN]
    if onbekend:
        fouten.append(Regelfout("soort_onbekend", "betaalde_soorten", {"soorten": onbekend}))
    for veld in ("overuren_procent", "zaterdag_procent", "zondag_procent"):
        _procent(fouten, veld, getattr(regelset, veld))
    if regelset.samenloop not in SAMENLOOP:
        fouten.append(Regelfout("samenloop_onbekend", "samenloop", {"toegestaan": SAMENLOOP}))
    _vensters(fouten, regelset.vensters)
    onbekend = [key for key in regelset.feestdagen if key not in FEESTDAGEN]
    if onbekend:
        fouten.append(Regelfout("feestdag_onbekend", "feestdagen", {"namen": onbekend}))
    kosten = regelset.verblijfkosten
    if not isinstance(kosten.drempel_min, int) or not 0 <= kosten.drempel_min <= 1440:
        fouten.append(Regelfout("drempel_ongeldig", "verblijfkosten.drempel_min", {}))
    for veld, bedrag in _bedragen(kosten):
        if not isinstance(bedrag, Decimal) or not bedrag.is_finite():
            fouten.append(Regelfout("bedrag_ongeldig", veld, {"waarde": str(bedrag)}))
        elif bedrag < 0:
            fouten.append(Regelfout("bedrag_negatief", veld, {"waarde": str(bedrag)}))
    _kosten_tijden(fouten, kosten)
    if not isinstance(regelset.max_dag_min, int) or not 0 < regelset.max_dag_min <= 1500:
        fouten.append(Regelfout("max_dag_ongeldig", "max_dag_min", {}))
    return fouten


def controleer_regelset(regelset: Regelset) -> Regelset:
    """The rule set itself when it is valid; OngeldigeRegelset with every problem if not."""
    fouten = valideer_regelset(regelset)
    if fouten:
        raise OngeldigeRegelset(fouten)
    return regelset


def valideer_reeks(regelsets: Sequence[Regelset]) -> list[Regelfout]:
    """The problems of a carrier's history of rule sets: each set's, and two on one date."""
    fouten: list[Regelfout] = []
    seen: set[date] = set()
    for i, regelset in enumerate(regelsets):
        if regelset.geldig_vanaf in seen:
            params = {"geldig_vanaf": regelset.geldig_vanaf.isoformat()}
            fouten.append(Regelfout("geldig_vanaf_dubbel", f"[{i}].geldig_vanaf", params))
        seen.add(regelset.geldig_vanaf)
        fouten += [
            Regelfout(f.code, f"[{i}].{f.veld}", f.params) for f in valideer_regelset(regelset)
        ]
    return fouten


def regelset_voor_week(regelsets: Regelset | Sequence[Regelset], maandag: date) -> Regelset:
    """The rule set a week starting on maandag is computed with: the latest one valid on that
    Monday. CaoFout `geen_regelset` when none is, `regelset_wijzigt_in_week` when a set
    starts on Tuesday..Sunday of the week."""
    if isinstance(regelsets, Regelset):
        regelsets = [regelsets]
    zondag = maandag + timedelta(days=6)
    for regelset in regelsets:
        if maandag < regelset.geldig_vanaf <= zondag:
            raise CaoFout(
                "regelset_wijzigt_in_week",
                f"a rule set starts on {regelset.geldig_vanaf.isoformat()}, within the week of "
                f"{maandag.isoformat()}: let it start on a Monday",
                geldig_vanaf=regelset.geldig_vanaf,
                maandag=maandag,
            )
    valid = [r for r in regelsets if r.geldig_vanaf <= maandag]
    if not valid:
        raise CaoFout(
            "geen_regelset",
            f"no rule set is valid on {maandag.isoformat()}",
            maandag=maandag,
        )
    return max(valid, key=lambda r: r.geldig_vanaf)
