"""The builder's words: question types, comparisons and fields by name, and the checker's
and the engine's problems in the author's (and the driver's) words.

Kept apart from the views so the labels have one home; messages are Dutch msgids, as
everywhere in the portal.
"""

from __future__ import annotations

import orjson
from flask_babel import format_decimal
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from jinja2 import Undefined

from portal import problems
from portal.question_labels import field_label
from portal.questionnaires import engine

EDIT_ERRORS = {
    "path": _l("Deze vraag bestaat niet (meer). Laad het concept opnieuw."),
    "not_a_group": _l("Alleen in een groep kun je vragen zetten."),
    "too_deep": _l("Groepen kunnen hoogstens %(depth)s lagen diep in elkaar."),
    "too_many": _l("Een vragenlijst heeft hoogstens %(limit)s vragen."),
    "into_itself": _l("Een groep kan niet in zichzelf."),
    "cannot_move": _l("Deze vraag kan niet verder die kant op."),
    "direction": _l("Onbekende richting."),
    "type": _l("Onbekend vraagtype."),
    "group_not_empty": _l(
        "Een groep met vragen kan geen ander type krijgen. Verplaats of verwijder eerst de "
        "vragen erin."
    ),
    "too_many_options": _l("Een vraag heeft hoogstens %(limit)s keuzes."),
    "action": _l("Onbekende actie."),
    "too_big": _l("Het concept wordt zo groter dan 1 MB en is niet opgeslagen."),
}


def format_number(value: object, *, calculated: bool = False) -> str:
    """A number in the user's locale ("12,5"); a calculated one with at least two decimals
    ("375,00", "0,3333"), so every result reads alike, whatever its operands were typed as."""
    if value is None or isinstance(value, Undefined):
        return "—"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return show_value(value)
    if abs(value) >= 1e15:
        return str(value)
    if calculated:
        return format_decimal(value, format="#,##0.00##")
    return format_decimal(value, format="0.######")  # no grouping: a limit or year reads as typed


def show_value(value: object) -> str:
    """A JSON value as an author reads it."""
    if value is None or isinstance(value, Undefined):
        return "—"
    if value is True:
        return _("ja")
    if value is False:
        return _("nee")
    if isinstance(value, (int, float)) and abs(value) < 1e15:
        return format_number(value)
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return ", ".join(show_value(v) for v in value) if value else "—"
    if isinstance(value, (dict, list)):
        text = orjson.dumps(value).decode()
        return text if len(text) <= 200 else text[:197] + "…"
    text = str(value)
    return text if len(text) <= 300 else text[:297] + "…"


def input_text(value: object) -> str:
    """A JSON value as the text of an input field ("" for none)."""
    if value is None or isinstance(value, Undefined):
        return ""
    if isinstance(value, bool):
        return "ja" if value else "nee"
    if isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    return str(value)


def problem_text(name: str, problem: engine.Problem) -> str:
    """A checker's problem in the author's words."""
    code, field_name = problem.code, field_label(name)
    # The engine's reason and params, worded in the author's language (never its English).
    detail = problems.say(problem.reason, problem.params, problem.message)
    if code == "required_field":
        return _missing_text(name, problem, detail)
    if code == "invalid_value":
        return _invalid_value_text(name)
    if code == "min_gt_max":
        if "length" in name:
            return _("De minimale lengte is groter dan de maximale.")
        return _("Het minimum is groter dan het maximum.")
    if code == "unknown_field":
        return _("Onbekend veld “%(name)s”: Rijplan kent het niet.", name=name.rsplit(".", 1)[-1])
    if code == "field_not_allowed":
        return _("%(field)s hoort niet bij dit type vraag.", field=field_name)
    if code == "field_type":
        return _("%(field)s heeft het verkeerde soort waarde.", field=field_name)
    if code == "formula_syntax":
        return _("De formule klopt niet: %(detail)s", detail=detail)
    if name.startswith("visible_if.value") and code in ("value_type", "too_large", "not_an_option"):
        return _("De waarde past niet bij de gekozen vraag of vergelijking: %(detail)s",
                 detail=detail)  # fmt: skip
    if name == "default_value" and problem.reason in problems.TEXTS:
        return _("De standaardwaarde past niet bij deze vraag: %(detail)s", detail=detail)
    if code == "not_an_option":
        return _("De waarde is geen van de keuzes van die vraag.")
    return _fixed_texts().get(code, detail)


def _missing_text(name: str, problem: engine.Problem, detail: str) -> str:
    """A required field left out, by the field."""
    if name == "questions":
        if problem.question_id is not None or "questions[" in problem.path:
            return _("Een groep heeft minstens één vraag nodig.")
        if problem.reason == "questionnaire_needs_question":
            return detail
        return _("De vragenlijst heeft een lijst met vragen nodig.")
    required = {
        "id": _("Geef de vraag een id."),
        "label": _("Schrijf de vraag (het label)."),
        "type": _("Kies een type."),
        "title": _("Geef de vragenlijst een titel."),
        "activity_type": _("Kies een activiteit."),
        "questionnaire_id": _("De vragenlijst heeft een id nodig."),
        "schema_version": _("De schemaversie ontbreekt."),
        "formula": _("Een berekening heeft een formule nodig."),
        "visible_if.question_id": _("Kies de vraag waar dit van afhangt."),
        "visible_if.operator": _("Kies een vergelijking."),
    }
    return required.get(name) or _("%(field)s is verplicht.", field=field_label(name))


def _invalid_value_text(name: str) -> str:
    """A value of the wrong form, by the field."""
    if name == "id":
        return _("Een id bestaat uit letters, cijfers, '_', '.' en '-' (geen spaties).")
    if name == "activity_type":
        return _("Een activiteit bestaat uit kleine letters, cijfers, '_' en '-'.")
    if name == "options":
        return _("Een keuze mag niet leeg zijn.")
    if name == "max_files":
        return _("Minstens 1 bestand.")
    return _("%(field)s mag niet negatief zijn.", field=field_label(name))


def _fixed_texts() -> dict[str, str]:
    """The problems worded the same whatever the field."""
    return {
        "duplicate_id": _("Deze id wordt al gebruikt door een eerdere vraag."),
        "type_unknown": _("Onbekend vraagtype."),
        "schema_version": _("Deze schemaversie kent Rijplan niet (alleen 1)."),
        "options_missing": _("Geef minstens één keuze."),
        "duplicate_option": _("Deze keuze staat er twee keer in."),
        "unknown_reference": _("De vraag waar dit van afhangt bestaat niet (meer)."),
        "forward_reference": _("Een vraag kan alleen afhangen van een eerdere vraag."),
        "enclosing_reference": _("Een vraag kan niet afhangen van de groep waar ze in staat."),
        "reference_type": _("Een groep of informatietekst heeft geen antwoord om op te testen."),
        "operator_unknown": _("Onbekende vergelijking."),
        "operator_type": _("Deze vergelijking past niet bij het type van de gekozen vraag."),
        "readonly_without_default": _(
            "Een verplichte alleen-lezen vraag heeft een standaardwaarde nodig."
        ),
    }


def answer_problem_text(question: dict, problem: engine.Problem) -> str:
    """An answer's problem as the driver reads it in the preview."""
    code, reason, params = problem.code, problem.reason, problem.params
    qtype = question.get("type")
    unit = f" {question['unit']}" if question.get("unit") else ""
    if code == "not_an_option":
        return _("Kies een van de mogelijkheden.")
    if reason in ("below_min", "above_max"):
        low = reason == "below_min"
        amount = format_number(params.get("min" if low else "max"))
        if low:
            return _("Minstens %(n)s%(unit)s.", n=amount, unit=unit)
        return _("Hoogstens %(n)s%(unit)s.", n=amount, unit=unit)
    if code == "value_type" and reason not in ("not_whole", "number_too_large"):
        expected = {
            "number": _("een getal"),
            "integer": _("een geheel getal"),
            "date": _("een datum"),
            "time": _("een tijd"),
            "datetime": _("een datum en tijd"),
            "location": _("een breedte- en lengtegraad"),
        }.get(qtype, _("een geldige waarde"))
        return _("Vul %(what)s in.", what=expected)
    return problems.say(reason, params, problem.message)
