"""The planner's words for recurring work: the service's error codes at a field, and the
holidays' names (the `holidays` package gives them in Dutch)."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l

MESSAGES = {
    "required": _l("Vul dit veld in."),
    "too_long": _l("Dit is te lang."),
    "sjabloon_naam_bestaat": _l("Een ander sjabloon heeft deze naam al."),
    "sjabloon_duur": _l("1 tot 1440 minuten."),
    "sjabloon_kenmerk": _l("Kies kenmerken uit de lijst van het wagenpark."),
    "sjabloon_veld": _l("Dit veld past niet in een sjabloon."),
    "sjabloon_in_gebruik": _l("Er worden nog reeksen van dit sjabloon gemaakt."),
    "unknown_customer": _l("Deze klant bestaat niet (meer)."),
    "unknown_driver": _l("Deze chauffeur bestaat niet (meer)."),
    "unknown_vehicle": _l("Dit voertuig bestaat niet (meer)."),
    "reeks_patroon": _l("Kies hoe de reeks herhaalt."),
    "reeks_feestdagen": _l("Kies wat er op een feestdag gebeurt."),
    "reeks_geen_dagen": _l("Kies minstens één dag van de week."),
    "reeks_om_weken": _l("1 tot 52 weken."),
    "reeks_einde_voor_start": _l("De laatste dag ligt voor de eerste."),
    "reeks_leeg": _l(
        "Deze herhaling levert geen enkele taak op: kies andere dagen of een latere einddatum."
    ),
    "reeks_te_vaak": _l("Deze herhaling levert meer dan %(max)s taken per jaar op."),
    "reeks_geen_sjabloon": _l("Kies een sjabloon."),
}

HOLIDAY_NAMES = {
    "Nieuwjaarsdag": _l("Nieuwjaarsdag"),
    "Goede vrijdag": _l("Goede vrijdag"),
    "Eerste paasdag": _l("Eerste paasdag"),
    "Tweede paasdag": _l("Tweede paasdag"),
    "Koningsdag": _l("Koningsdag"),
    "Bevrijdingsdag": _l("Bevrijdingsdag"),
    "Hemelvaartsdag": _l("Hemelvaartsdag"),
    "Eerste pinksterdag": _l("Eerste pinksterdag"),
    "Tweede pinksterdag": _l("Tweede pinksterdag"),
    "Eerste kerstdag": _l("Eerste kerstdag"),
    "Tweede kerstdag": _l("Tweede kerstdag"),
}


def holiday_name(name: str | None) -> str:
    """A holiday's name in the reader's language."""
    if not name:
        return ""
    return str(HOLIDAY_NAMES.get(name, name))
