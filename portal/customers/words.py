"""The planner's words for customers: the kinds of place, and the rules' error codes
(`rules.py`) as a planner reads them at a field or a cell. Domain code (the import's
checking) and the pages share them."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l

SOORT_LABELS = {
    "laden": _l("Laden"),
    "lossen": _l("Lossen"),
    "beide": _l("Laden en lossen"),
}
# The service's error codes as a planner reads them at the field.
MESSAGES = {
    "required": _l("Vul dit veld in."),
    "too_long": _l("Dit is te lang."),
    "vat_dutch": _l(
        "Een Nederlands btw-nummer is NL, 9 cijfers, B en 2 cijfers, bijvoorbeeld NL123456789B01."
    ),
    "vat_format": _l(
        "Geen btw-nummer: begin met de landcode en 2 tot 13 letters of cijfers, bijvoorbeeld "
        "DE123456789."
    ),
    "email": _l("Vul een e-mailadres in, bijvoorbeeld facturen@klant.nl."),
    "duplicate": _l("Een andere klant heeft dit debiteurnummer al."),
    "country": _l("Geen landcode uit ISO 3166: vul bijvoorbeeld NL, DE of BE in."),
    "kvk_format": _l("Een KvK-nummer heeft 8 cijfers, bijvoorbeeld 12345678."),
    "gln_format": _l("Een GLN heeft 13 cijfers en een geldig controlecijfer."),
    "peppol_format": _l(
        "Schrijf een Peppol-ID als schema:nummer, bijvoorbeeld 0106:12345678 (KvK) of "
        "0088:8712345678906 (GLN)."
    ),
    "reverse_charge_no_vat": _l("Btw verleggen kan alleen met het btw-nummer van de klant."),
    "reverse_charge_not_eu": _l(
        "Btw verleggen is voor een ondernemer in een ander EU-land: het btw-nummer begint met "
        "de landcode van dat land."
    ),
    "not_subject_in_eu": _l(
        "Niet onderworpen aan btw is voor een ondernemer buiten de EU: kies het land van het "
        "factuuradres."
    ),
    "reason_required": _l("Schrijf op waarom geen btw geldt, bijvoorbeeld het wetsartikel."),
    "evidence_required": _l(
        "Noem het bewijs voor het nultarief, bijvoorbeeld het uitvoerdocument (MRN)."
    ),
    "range": _l("Deze coördinaat ligt buiten het bereik."),
    "coordinates_pair": _l("Vul breedte- en lengtegraad allebei in, of laat ze allebei leeg."),
}
