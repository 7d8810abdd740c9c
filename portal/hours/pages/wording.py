"""The hours' refusals and the review's warnings in the user's language: the services carry a
code and parameters, the portal words them here."""

from __future__ import annotations

from datetime import datetime

from flask_babel import format_date, format_datetime, format_decimal, ngettext
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.hours.days.checks import HoursConflict, HoursInvalid
from portal.hours.pages.forms import SOORT_LABELS
from portal.hours.pages.timeline import hm
from portal.hours.payroll.rulesets import PRESET_FROM


def _moment(value: datetime | None) -> str:
    return format_datetime(value, "EEE d MMM HH:mm") if value else _("loopt nog")


def _day_refusals(p: dict) -> dict:
    """The refusals of a work day's or an activity's times, by code."""
    soort = str(SOORT_LABELS.get(p.get("soort"), p.get("soort", "")))
    week = p["week"].label if "week" in p else ""
    return {
        "week_goedgekeurd": lambda: _(
            "Week %(week)s is goedgekeurd: heropen de week om iets te wijzigen.", week=week
        ),
        "overlap_activiteit": lambda: _(
            "Dit overlapt met %(soort)s van %(begin)s tot %(einde)s.",
            soort=soort.lower(),
            begin=_moment(p["begin"]),
            einde=_moment(p["einde"]),
        ),
        "activiteit_loopt": lambda: _(
            "%(soort)s loopt nog sinds %(begin)s; beëindig die eerst.",
            soort=soort,
            begin=_moment(p["begin"]),
        ),
        "overlap_werkdag": lambda: _(
            "Dit overlapt met een andere werkdag (%(begin)s tot %(einde)s).",
            begin=_moment(p["begin"]),
            einde=_moment(p["einde"]),
        ),
        "werkdag_loopt": lambda: _(
            "Er loopt nog een werkdag sinds %(begin)s.", begin=_moment(p["begin"])
        ),
        "buiten_werkdag": lambda: _(
            "Dit valt buiten de werkdag (%(begin)s tot %(einde)s).",
            begin=_moment(p["begin"]),
            einde=_moment(p["einde"]),
        ),
        "einde_nodig": lambda: _("Vul het einde in: de werkdag is afgesloten."),
        "toekomst": lambda: _("Dit tijdstip ligt in de toekomst."),
        "te_vroeg": lambda: _("Dit tijdstip ligt voor het jaar 2000."),
        "volgorde": lambda: _("Het einde moet na het begin liggen."),
        "dag_te_lang": lambda: _("Een werkdag duurt hoogstens 24 uur."),
        "taak": lambda: _("Dit is geen taak van deze chauffeur."),
        "activiteit_voor_begin": lambda: _(
            "%(soort)s begint eerder, om %(begin)s.", soort=soort, begin=_moment(p["begin"])
        ),
        "activiteit_na_einde": lambda: _(
            "%(soort)s loopt door tot %(einde)s.", soort=soort, einde=_moment(p["einde"])
        ),
    }


def _week_refusals(p: dict) -> dict:
    """The refusals of approving, reopening and correcting a week, by code."""
    return {
        "week_loopt": lambda: _(
            "De werkdag van %(begin)s loopt nog: keur de week goed als alle dagen zijn afgesloten.",
            begin=_moment(p["begin"]),
        ),
        "al_goedgekeurd": lambda: _("Deze week is al goedgekeurd."),
        "niet_goedgekeurd": lambda: _("Deze week is niet goedgekeurd."),
        "week_toekomst": lambda: _("Deze week is nog niet begonnen."),
        "tegelijk": lambda: _("Iemand anders wijzigde deze uren tegelijk; probeer het opnieuw."),
        "verplicht": lambda: _("Vul dit in."),
        "te_lang_tekst": lambda: _("Deze tekst is te lang."),
        "correcties_onbeantwoord": lambda: ngettext(
            "De chauffeur heeft %(num)d correctie nog niet beantwoord: keur de week goed als "
            "de chauffeur elke correctie heeft geaccepteerd of van een opmerking voorzien.",
            "De chauffeur heeft %(num)d correcties nog niet beantwoord: keur de week goed als "
            "de chauffeur elke correctie heeft geaccepteerd of van een opmerking voorzien.",
            p["aantal"],
        ),
        "reden_verplicht": lambda: _(
            "Geef een reden op: de chauffeur ziet de correctie met deze reden in de app."
        ),
    }


def explain(error: HoursConflict | HoursInvalid) -> str:
    """A refusal of the hours service in the user's language."""
    messages = _day_refusals(error.params) | _week_refusals(error.params)
    return messages[error.code]() if error.code in messages else error.detail


# The review's warnings about a day: the computation's (cao/week.py) and the tachograph's.
WARNINGS = {
    "dag_te_lang": _l("meer dan %(uur)s uur gewerkt"),
    "langer_dan_6_uur_zonder_pauze": _l("langer dan 6 uur achter elkaar gewerkt zonder pauze"),
    "pauze_te_kort": _l("te weinig pauze voor de gewerkte uren"),
    "rijden_zonder_werkdag": _l("%(duur)s rijden op de tachograafkaart, geen werkdag in de app"),
}


def warning(code: str, day, **params) -> str:
    """One warning of the week's review, with its day: "di 24 nov: ..."."""
    text = WARNINGS.get(code)
    if "minuten" in params:
        params = {**params, "duur": hm(params["minuten"])}
    wording = str(text) % params if text is not None else code
    return f"{format_date(day, 'EEE d MMM')}: {wording}"


# The computation's refusals of a week (cao/): the week page says why it has no figures.
CAO_PROBLEMS = {
    "regelset_wijzigt_in_week": _l(
        "Een nieuwe regelset begint midden in deze week: laat regelsets op een maandag ingaan."
    ),
    "geen_regelset": _l("Voor deze week geldt nog geen regelset."),
    "regelset_ongeldig": _l("De regelset van deze week is niet geldig: controleer de regels."),
    "contracturen_ongeldig": _l("De contracturen van deze chauffeur zijn niet geldig (0 tot 60)."),
}


def cao_problem(code: str) -> str:
    text = CAO_PROBLEMS.get(code)
    return (
        str(text)
        if text is not None
        else _("Deze week kan niet worden berekend (%(code)s).", code=code)
    )


DASH = "\u2013"


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _times(state: dict, zone) -> str:
    """An activity's begin and end on the clock, with the end's day when it differs and
    "loopt nog" while it runs."""
    begin = _instant(state["begin"])
    text = format_datetime(begin, "HH:mm") + DASH
    if not state.get("einde"):
        return text + _("loopt nog")
    einde = _instant(state["einde"])
    same = einde.astimezone(zone).date() == begin.astimezone(zone).date()
    return text + format_datetime(einde, "HH:mm" if same else "EEE d MMM HH:mm")


def correction_change(old: dict, new: dict, zone) -> str:
    """What a correction changed, on one line: "Rijden di 17 nov: 06:00-13:00 → 06:30-13:00"
    or with the kinds when the kind changed: "di 17 nov: wachten 10:00-10:30 → laden ..."."""
    day = format_datetime(_instant(new["begin"]), "EEE d MMM")
    label_old = str(SOORT_LABELS.get(old["soort"], old["soort"]))
    label_new = str(SOORT_LABELS.get(new["soort"], new["soort"]))
    if old["soort"] == new["soort"]:
        return f"{label_new} {day}: {_times(old, zone)} \u2192 {_times(new, zone)}"
    return (
        f"{day}: {label_old.lower()} {_times(old, zone)} \u2192 "
        f"{label_new.lower()} {_times(new, zone)}"
    )


OVERTIME_RULES = {
    "week_40": _l(
        "Overuren: boven 40 uur op maandag tot en met vrijdag; de uren tussen de contracturen "
        "en 40 uur zijn meeruren (100%)."
    ),
    "contract": _l(
        "Overuren: boven de contracturen (hoogstens 40 uur) op maandag tot en met vrijdag."
    ),
    "dag_8": _l("Overuren: boven 8 uur per dag (oproepkracht)."),
}
SAMENLOOP_RULES = {
    "onregelmatig": _l(
        "Een overuur in onregelmatige uren krijgt alleen de onregelmatigheidstoeslag."
    ),
    "hoogste": _l("Een overuur in onregelmatige uren krijgt het hoogste van de twee percentages."),
}


def overtime_rule(result) -> str:
    """Which overtime rule computed the week, in words."""
    parts = [str(OVERTIME_RULES.get(result.overuren_grens, result.overuren_grens))]
    if result.dubbele_bemanning:
        parts.append(_("Dubbel bemand: de week voor overuren loopt tot zaterdag 07:00."))
    if result.totaal.onregelmatig:
        parts.append(str(SAMENLOOP_RULES.get(result.samenloop, result.samenloop)))
    return " ".join(parts)


def review_context(found, zone) -> dict:
    """What the week page's review shows, worded."""
    payable = found.payable
    result = payable.result
    return {
        "review": found,
        "payable_problem": cao_problem(payable.fout.code) if payable.fout else None,
        "warning_texts": [warning(w.code, w.datum, **w.params) for w in found.warnings],
        "day_windows": {
            dag.datum: {o.venster: o.min for o in dag.onregelmatig}
            for dag in (result.per_dag if result else [])
        },
        "correction_change": lambda old, new: correction_change(old, new, zone),
        "preset_rules": result is not None and result.regelset_geldig_vanaf == PRESET_FROM,
        "contract_hours": format_decimal(result.contract_min / 60) if result else "",
        "overtime_rule": overtime_rule(result) if result else "",
    }
