"""The checks a rule set must pass, each problem with a stable code and the field it is
about (the portal words them at that field), and a carrier's history of rule sets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from portal.holidays import FEESTDAGEN
from portal.hours.cao.rules import (
    OVERUREN_GRENZEN,
    PROCENT_MAX,
    PROCENT_MIN,
    SAMENLOOP,
    SOORTEN,
    TOESLAG_MAX,
    Allowances,
    CaoError,
    DayRate,
    PayRules,
    Window,
    bedragen,
    minute_of_day,
)


@dataclass(frozen=True)
class RuleError:
    """One problem of a rule set: a stable code, the field it is about, and parameters."""

    code: str
    veld: str
    params: dict = field(default_factory=dict)


class InvalidPayRules(CaoError):
    def __init__(self, fouten: list[RuleError]):
        super().__init__(
            "regelset_ongeldig",
            "the rule set is not valid: " + ", ".join(f"{f.veld}: {f.code}" for f in fouten),
            fouten=fouten,
        )
        self.fouten = fouten


def _time_of(fouten: list[RuleError], veld: str, tijd, *, einde: bool) -> int | None:
    try:
        return minute_of_day(tijd, einde=einde)
    except (TypeError, ValueError):
        fouten.append(RuleError("tijd_ongeldig", veld, {"waarde": tijd}))
        return None


def _allowance_times(fouten: list[RuleError], allowances: Allowances) -> None:
    for deel in ("eendaags", "eerste_dag", "tussendag", "laatste_dag"):
        tarief: DayRate = getattr(allowances, deel)
        for i, rate in enumerate(tarief.uurtarieven):
            veld = f"verblijfkosten.{deel}.uurtarieven[{i}]"
            van = _time_of(fouten, f"{veld}.van", rate.van, einde=False)
            tot = _time_of(fouten, f"{veld}.tot", rate.tot, einde=True)
            if van is not None and tot is not None and tot <= van:
                fouten.append(RuleError("venster_leeg", veld, {"van": rate.van, "tot": rate.tot}))
            for naam in ("vertrek_voor", "aankomst_na"):
                if getattr(rate, naam) is not None:
                    _time_of(fouten, f"{veld}.{naam}", getattr(rate, naam), einde=True)
        for i, fixed in enumerate(tarief.vaste_bedragen):
            veld = f"verblijfkosten.{deel}.vaste_bedragen[{i}]"
            if fixed.vertrek_na is not None:
                _time_of(fouten, f"{veld}.vertrek_na", fixed.vertrek_na, einde=True)
            if (fixed.dekt_van is None) != (fixed.dekt_tot is None):
                fouten.append(RuleError("dekking_onvolledig", veld, {}))
            elif fixed.dekt_van is not None:
                van = _time_of(fouten, f"{veld}.dekt_van", fixed.dekt_van, einde=False)
                tot = _time_of(fouten, f"{veld}.dekt_tot", fixed.dekt_tot, einde=True)
                if van is not None and tot is not None and tot <= van:
                    params = {"van": fixed.dekt_van, "tot": fixed.dekt_tot}
                    fouten.append(RuleError("venster_leeg", veld, params))
            if not isinstance(fixed.min_afwezig_min, int) or fixed.min_afwezig_min < 0:
                fouten.append(RuleError("duur_ongeldig", f"{veld}.min_afwezig_min", {}))


def _night_trip(fouten: list[RuleError], rules: PayRules) -> None:
    """The one-day night-trip surcharge: 0 to 100 percent on top, between two times of day
    that differ (across midnight when the first is later)."""
    procent = rules.nachtrit_procent
    if not isinstance(procent, int) or isinstance(procent, bool):
        fouten.append(RuleError("procent_ongeldig", "nachtrit_procent", {"waarde": procent}))
    elif not 0 <= procent <= TOESLAG_MAX:
        params = {"waarde": procent, "min": 0, "max": TOESLAG_MAX}
        fouten.append(RuleError("toeslag_ongeldig", "nachtrit_procent", params))
    van = _time_of(fouten, "nachtrit_van", rules.nachtrit_van, einde=False)
    tot = _time_of(fouten, "nachtrit_tot", rules.nachtrit_tot, einde=True)
    if van is not None and tot is not None and van == tot % 1440:
        params = {"van": rules.nachtrit_van, "tot": rules.nachtrit_tot}
        fouten.append(RuleError("venster_leeg", "nachtrit_tot", params))


def _percent(fouten: list[RuleError], veld: str, value) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        fouten.append(RuleError("procent_ongeldig", veld, {"waarde": value}))
    elif value < PROCENT_MIN:
        fouten.append(RuleError("procent_te_laag", veld, {"waarde": value, "min": PROCENT_MIN}))
    elif value > PROCENT_MAX:
        fouten.append(RuleError("procent_te_hoog", veld, {"waarde": value, "max": PROCENT_MAX}))


def _windows(fouten: list[RuleError], vensters: Sequence[Window]) -> None:
    spans: dict[int, list[tuple[int, int, str]]] = {}
    names: set[str] = set()
    for i, venster in enumerate(vensters):
        veld = f"vensters[{i}]"
        if not venster.naam or venster.naam in names:
            fouten.append(RuleError("venster_naam_ongeldig", f"{veld}.naam", {}))
        names.add(venster.naam)
        _percent(fouten, f"{veld}.procent", venster.procent)
        if not venster.dagen or any(d not in range(1, 8) for d in venster.dagen):
            fouten.append(RuleError("dag_ongeldig", f"{veld}.dagen", {}))
            continue
        van = _time_of(fouten, f"{veld}.van", venster.van, einde=False)
        tot = _time_of(fouten, f"{veld}.tot", venster.tot, einde=True)
        if van is None or tot is None:
            continue
        if tot <= van:
            fouten.append(RuleError("venster_leeg", veld, {"van": venster.van, "tot": venster.tot}))
            continue
        for dag in set(venster.dagen):
            spans.setdefault(dag, []).append((van, tot, venster.naam))
    for dag, parts in sorted(spans.items()):
        cursor, previous = 0, None
        for van, tot, naam in sorted(parts):
            if van > cursor:
                fouten.append(RuleError("venster_gat", "vensters", _gap(dag, cursor, van)))
            elif van < cursor:
                params = {"dag": dag, "vensters": [previous, naam]}
                fouten.append(RuleError("venster_overlap", "vensters", params))
            cursor, previous = max(cursor, tot), naam
        if cursor < 1440:
            fouten.append(RuleError("venster_gat", "vensters", _gap(dag, cursor, 1440)))


def _hhmm(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def _gap(dag: int, van: int, tot: int) -> dict:
    return {"dag": dag, "van": _hhmm(van), "tot": _hhmm(tot)}


def validate_pay_rules(rules: PayRules) -> list[RuleError]:
    """Every problem of a rule set, in field order; empty when it is valid."""
    fouten: list[RuleError] = []
    if rules.geldig_vanaf.isoweekday() != 1:
        fouten.append(RuleError("geldig_vanaf_geen_maandag", "geldig_vanaf", {}))
    uren = rules.contracturen
    if not isinstance(uren, Decimal | int) or not 0 <= uren <= 60 or (uren * 60) % 1:
        fouten.append(RuleError("contracturen_ongeldig", "contracturen", {"waarde": str(uren)}))
    unknown = [s for s in rules.betaalde_soorten if s not in SOORTEN]
    if unknown:
        fouten.append(RuleError("soort_onbekend", "betaalde_soorten", {"soorten": unknown}))
    for veld in ("overuren_procent", "zaterdag_procent", "zondag_procent"):
        _percent(fouten, veld, getattr(rules, veld))
    if rules.samenloop not in SAMENLOOP:
        fouten.append(RuleError("samenloop_onbekend", "samenloop", {"toegestaan": SAMENLOOP}))
    if rules.overuren_grens not in OVERUREN_GRENZEN:
        params = {"toegestaan": OVERUREN_GRENZEN}
        fouten.append(RuleError("overuren_grens_onbekend", "overuren_grens", params))
    if not isinstance(rules.dubbele_bemanning, bool):
        fouten.append(RuleError("ja_nee_ongeldig", "dubbele_bemanning", {}))
    _night_trip(fouten, rules)
    _windows(fouten, rules.vensters)
    unknown = [key for key in rules.feestdagen if key not in FEESTDAGEN]
    if unknown:
        fouten.append(RuleError("feestdag_onbekend", "feestdagen", {"namen": unknown}))
    allowances = rules.verblijfkosten
    if not isinstance(allowances.drempel_min, int) or not 0 <= allowances.drempel_min <= 1440:
        fouten.append(RuleError("drempel_ongeldig", "verblijfkosten.drempel_min", {}))
    for veld, bedrag in bedragen(allowances):
        if not isinstance(bedrag, Decimal) or not bedrag.is_finite():
            fouten.append(RuleError("bedrag_ongeldig", veld, {"waarde": str(bedrag)}))
        elif bedrag < 0:
            fouten.append(RuleError("bedrag_negatief", veld, {"waarde": str(bedrag)}))
    _allowance_times(fouten, allowances)
    if not isinstance(rules.max_dag_min, int) or not 0 < rules.max_dag_min <= 1500:
        fouten.append(RuleError("max_dag_ongeldig", "max_dag_min", {}))
    return fouten


def check_pay_rules(rules: PayRules) -> PayRules:
    """The rule set itself when it is valid; InvalidPayRules with every problem if not."""
    fouten = validate_pay_rules(rules)
    if fouten:
        raise InvalidPayRules(fouten)
    return rules


def validate_series(rule_sets: Sequence[PayRules]) -> list[RuleError]:
    """The problems of a carrier's history of rule sets: each set's, and two on one date."""
    fouten: list[RuleError] = []
    seen: set[date] = set()
    for i, rules in enumerate(rule_sets):
        if rules.geldig_vanaf in seen:
            params = {"geldig_vanaf": rules.geldig_vanaf.isoformat()}
            fouten.append(RuleError("geldig_vanaf_dubbel", f"[{i}].geldig_vanaf", params))
        seen.add(rules.geldig_vanaf)
        fouten += [
            RuleError(f.code, f"[{i}].{f.veld}", f.params) for f in validate_pay_rules(rules)
        ]
    return fouten
