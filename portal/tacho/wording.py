"""Driving and rest times in words, as planners read them: durations ("4 u 30"), the names of
activities, rules and severities, an infringement in one sentence, and what the card and the
app disagree on. The pages and the export for the driver's signature share these, so a
finding reads the same on screen and on paper, in the user's language.
"""

from __future__ import annotations

import re
from datetime import datetime

from flask_babel import format_datetime
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.labels import duur
from portal.tacho.segments import KLOK_ACHTER

EN_DASH = "\u2013"

ACTIVITY_LABELS = {
    "rijden": _l("Rijden"),
    "werk": _l("Werk"),
    "beschikbaar": _l("Beschikbaar"),
    "rust": _l("Rust"),
    "onbekend": _l("Onbekend"),
}
ACTIVITY_HELP = {
    "rijden": _l("Rijden met de kaart in de tachograaf, of rijden in de app."),
    "werk": _l("Ander werk: laden, lossen, wachten en overig werk."),
    "beschikbaar": _l("Beschikbaarheid: geen rust en geen onderbreking."),
    "rust": _l("Rust of onderbreking."),
    "onbekend": _l("Geen gegevens: de kaart zat niet in de tachograaf en er is niets ingevoerd."),
}

REGEL_LABELS = {
    "dagelijkse_rijtijd": _l("Dagelijkse rijtijd"),
    "verlengde_rijtijd": _l("Derde verlengde rijtijd in een week"),
    "wekelijkse_rijtijd": _l("Wekelijkse rijtijd"),
    "twee_weken_rijtijd": _l("Rijtijd in twee weken"),
    "onderbreking": _l("Rijden zonder onderbreking"),
    "dagelijkse_rust": _l("Dagelijkse rust"),
    "verkorte_rust": _l("Vierde verkorte dagelijkse rust"),
    "wekelijkse_rust": _l("Wekelijkse rust"),
}
# Rules that cap a time (driving) against rules that ask for at least a time (rest).
MAXIMA = {
    "dagelijkse_rijtijd",
    "verlengde_rijtijd",
    "wekelijkse_rijtijd",
    "twee_weken_rijtijd",
    "onderbreking",
}

SOORT_LABELS = {
    "overtreding": _l("Overtreding"),
    "onvolledig": _l("Onvolledig"),
    "vrijgesteld": _l("Vrijgesteld"),
}
# Directive 2006/22 Annex III as amended by 2016/403: MI, SI, VSI, MSI.
ERNST_LABELS = {
    "licht": _l("Licht"),
    "ernstig": _l("Ernstig"),
    "zeer_ernstig": _l("Zeer ernstig"),
    "zeer_ernstig_max": _l("Meest ernstig"),
}
ERNST_ORDER = {"zeer_ernstig_max": 0, "zeer_ernstig": 1, "ernstig": 2, "licht": 3}

BRON_LABELS = {
    "kaart": _l("kaart"),
    "app": _l("app"),
    "kaart+app": _l("kaart + app"),
    "voertuig": _l("voertuigeenheid"),
}


def label(mapping: dict, key: str | None) -> str:
    """A code's label, or the code itself when there is none."""
    if key is None:
        return ""
    return str(mapping.get(key, key))


ARTIKEL = re.compile(r"^(?P<wet>\S+) art\. (?P<artikel>\w+)(?: lid (?P<lid>\w+))?$")


def artikel(value: str | None) -> str:
    """An article as the checker names it ('561/2006 art. 8 lid 2') in the user's language
    ('561/2006 Art. 8(2)' in English)."""
    found = ARTIKEL.match(value or "")
    if found is None:
        return value or ""
    if found["lid"]:
        return _(
            "%(wet)s art. %(artikel)s lid %(lid)s",
            wet=found["wet"],
            artikel=found["artikel"],
            lid=found["lid"],
        )
    return _("%(wet)s art. %(artikel)s", wet=found["wet"], artikel=found["artikel"])


def moment(value: datetime | None, pattern: str = "EEE d MMM HH:mm") -> str:
    """A moment in the carrier's time zone (flask_babel's zone is the carrier's)."""
    return format_datetime(value, pattern) if value else ""


def span(begin: datetime | None, eind: datetime | None) -> str:
    """A period in the carrier's zone: '3 nov 2026 04:05-14:30' (an en dash), or both days when it
    crosses midnight."""
    if begin is None:
        return ""
    first = format_datetime(begin, "d MMM yyyy HH:mm")
    if eind is None:
        return first
    if format_datetime(begin, "yyyy-MM-dd") == format_datetime(eind, "yyyy-MM-dd"):
        return f"{first}{EN_DASH}{format_datetime(eind, 'HH:mm')}"
    return f"{first} {EN_DASH} {format_datetime(eind, 'd MMM yyyy HH:mm')}"


def exempt(item, name: str) -> str:
    """A finding over time out of EU 561/2006's scope (docs/eu561-scope.md) in a sentence."""
    return _(
        "%(regel)s: vrijgesteld, buiten Verordening 561/2006 (art. %(artikel)s); telt als "
        "andere arbeid",
        regel=name,
        artikel=getattr(item, "vrijstelling", None) or "3",
    )


def finding(item) -> str:
    """One infringement or incomplete check in a sentence: 'Dagelijkse rijtijd 10 u 42
    (max. 10 u): 42 min te lang'."""
    name = label(REGEL_LABELS, item.regel)
    gemeten = getattr(item, "gemeten_min", None)
    grens = getattr(item, "grens_min", None)
    over = getattr(item, "overschrijding_min", None)
    if item.soort == "vrijgesteld":
        return exempt(item, name)
    if item.soort == "onvolledig":
        if gemeten is not None and grens is not None:
            return _(
                "%(regel)s niet te controleren: %(gemeten)s bekend (grens %(grens)s), de rest "
                "van de periode is onbekend (kaart niet in de tachograaf, niets ingevoerd)",
                regel=name,
                gemeten=duur(gemeten),
                grens=duur(grens),
            )
        return _(
            "%(regel)s niet te controleren: in deze periode is tijd onbekend (kaart niet in "
            "de tachograaf, niets ingevoerd)",
            regel=name,
        )
    if item.regel == "wekelijkse_rust" and gemeten is not None and grens is not None:
        # The checker reports a weekly rest begun too late as the time since the previous
        # one against 6 x 24 h, and a reduction not made up as 0 against the hours owed.
        if gemeten > grens:
            return _(
                "Wekelijkse rust te laat begonnen: %(gemeten)s na de vorige (max. %(grens)s): "
                "%(over)s te laat",
                gemeten=duur(gemeten),
                grens=duur(grens),
                over=duur(over if over is not None else gemeten - grens),
            )
        if gemeten == 0:
            return _(
                "Verkorte wekelijkse rust niet op tijd gecompenseerd: %(over)s nog in te halen",
                over=duur(over if over is not None else grens),
            )
    if item.regel in MAXIMA:
        if gemeten is not None and grens is not None:
            return _(
                "%(regel)s %(gemeten)s (max. %(grens)s): %(over)s te lang",
                regel=name,
                gemeten=duur(gemeten),
                grens=duur(grens),
                over=duur(over if over is not None else gemeten - grens),
            )
        return _("%(regel)s: %(over)s te lang", regel=name, over=duur(over))
    if gemeten is not None and grens is not None:
        return _(
            "%(regel)s %(gemeten)s (min. %(grens)s): %(over)s te kort",
            regel=name,
            gemeten=duur(gemeten),
            grens=duur(grens),
            over=duur(over if over is not None else grens - gemeten),
        )
    return _("%(regel)s: %(over)s te kort", regel=name, over=duur(over))


def difference(code: str, params: dict) -> str:
    """What the card and the app disagree on for one day, in words."""
    minutes = duur(params.get("minuten"))
    texts = {
        "rijden_zonder_werkdag": lambda: _(
            "Rijden op de kaart zonder werkdag in de app (%(duur)s)", duur=minutes
        ),
        "werk_niet_op_kaart": lambda: _(
            "Werk in de app dat niet op de kaart staat (%(duur)s)", duur=minutes
        ),
        "meer_rijden_op_kaart": lambda: _(
            "Meer rijden op de kaart dan in de app (%(duur)s)", duur=minutes
        ),
        "meer_rijden_in_app": lambda: _(
            "Meer rijden in de app dan op de kaart (%(duur)s)", duur=minutes
        ),
        "meer_werk_op_kaart": lambda: _(
            "Meer werk (rijden en ander werk) op de kaart dan in de app (%(duur)s)", duur=minutes
        ),
        "meer_werk_in_app": lambda: _(
            "Meer werk (rijden en ander werk) in de app dan op de kaart (%(duur)s)", duur=minutes
        ),
    }
    return texts[code]() if code in texts else f"{code} ({minutes})"


def _clock(minute: int) -> str:
    hours, minutes = divmod(int(minute), 60)
    return f"{hours:02d}:{minutes:02d}"


def note(code: str, params: dict) -> str:
    """A day's data note in a few words: 'Klok van een andere voertuigeenheid 8 min achter'."""
    if code == KLOK_ACHTER:
        return _(
            "Klok van een andere voertuigeenheid %(duur)s achter", duur=duur(params.get("minuten"))
        )
    return code


def note_detail(code: str, params: dict) -> str:
    """What a day's data note means for the day's figures."""
    if code == KLOK_ACHTER:
        return _(
            "Na de wijziging van %(van)s UTC staat de volgende op %(naar)s UTC: de kaart ging "
            "naar een tachograaf waarvan de klok %(duur)s achterliep. Elke wijziging duurt tot "
            "de volgende, in de volgorde waarin de kaart ze vastlegde: geen minuut telt dubbel "
            "of valt weg, en de dag telt daardoor %(duur)s extra.",
            van=_clock(params.get("van", 0)),
            naar=_clock(params.get("naar", 0)),
            duur=duur(params.get("minuten")),
        )
    return ""


def unknown_reason() -> str:
    """Why a remaining-time figure is null: the tooltip of 'onbekend'."""
    return _(
        "Niet te berekenen: in de tijd die hiervoor telt, zit tijd zonder gegevens (de kaart "
        "zat niet in de tachograaf en er is niets ingevoerd, of er zijn geen uren in de app)."
    )
