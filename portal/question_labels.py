"""The questionnaire's own words: question types, comparisons and definition fields as an
author reads them. A leaf: the problems' wording (portal.problems) and the builder's both
read it."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l

TYPE_LABELS = {
    "text": _l("Tekst"),
    "textarea": _l("Tekstvak (meerdere regels)"),
    "number": _l("Getal"),
    "integer": _l("Geheel getal"),
    "boolean": _l("Ja/nee"),
    "select": _l("Keuze (één)"),
    "multiselect": _l("Keuze (meerdere)"),
    "date": _l("Datum"),
    "time": _l("Tijd"),
    "datetime": _l("Datum en tijd"),
    "photo": _l("Foto"),
    "signature": _l("Handtekening"),
    "document_scan": _l("Documentscan"),
    "barcode": _l("Barcode"),
    "location": _l("Locatie (GPS)"),
    "group": _l("Groep"),
    "calculated": _l("Berekening"),
    "info": _l("Informatietekst"),
}
TYPE_GROUPS = [
    (_l("Tekst"), ("text", "textarea", "barcode")),
    (_l("Getallen"), ("number", "integer", "calculated")),
    (_l("Keuzes"), ("boolean", "select", "multiselect")),
    (_l("Datum en tijd"), ("date", "time", "datetime")),
    (_l("Bewijs"), ("photo", "signature", "document_scan", "location")),
    (_l("Opbouw"), ("group", "info")),
]
NEW_LABELS = {"group": _l("Nieuwe groep"), "info": _l("Informatie voor de chauffeur")}
OPERATOR_LABELS = {
    "eq": _l("is gelijk aan"),
    "neq": _l("is niet gelijk aan"),
    "gt": _l("is groter dan"),
    "gte": _l("is minstens"),
    "lt": _l("is kleiner dan"),
    "lte": _l("is hoogstens"),
    "in": _l("is een van"),
    "not_in": _l("is geen van"),
    "contains": _l("bevat"),
    "empty": _l("is niet ingevuld"),
    "not_empty": _l("is ingevuld"),
}
FIELD_LABELS = {
    "id": _l("Id"),
    "type": _l("Type"),
    "label": _l("Vraag"),
    "required": _l("Verplicht"),
    "readonly": _l("Alleen lezen"),
    "default_value": _l("Standaardwaarde"),
    "unit": _l("Eenheid"),
    "max_files": _l("Max. bestanden"),
    "options": _l("Keuzes"),
    "validation": _l("Controle"),
    "validation.min": _l("Minimum"),
    "validation.max": _l("Maximum"),
    "validation.minlength": _l("Min. lengte"),
    "validation.maxlength": _l("Max. lengte"),
    "validation.regex": _l("Patroon"),
    "visible_if": _l("Zichtbaar als"),
    "visible_if.question_id": _l("Zichtbaar als: vraag"),
    "visible_if.operator": _l("Zichtbaar als: vergelijking"),
    "visible_if.value": _l("Zichtbaar als: waarde"),
    "formula": _l("Formule"),
    "questions": _l("Vragen"),
    "group": _l("Groep"),
    "position": _l("Plaats"),
    "title": _l("Titel"),
    "activity_type": _l("Activiteit"),
    "schema_version": _l("Schemaversie"),
    "questionnaire_id": _l("Vragenlijst-id"),
    "": _l("Vragenlijst"),
}


def field_label(name: str) -> str:
    return str(FIELD_LABELS.get(name, name))
