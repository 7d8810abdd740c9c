"""The words of a pay rule set's page: the trip parts, the preset's allowance names and
source note, weekdays, holidays, and the choices of how overtime and irregular hours meet,
each with its help text."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l

from portal.hours.cao.rules import BRON

DEEL_LABELS = {
    "eendaags": _l("Eendaagse rit"),
    "eerste_dag": _l("Meerdaagse rit, eerste dag"),
    "tussendag": _l("Meerdaagse rit, tussendag"),
    "laatste_dag": _l("Meerdaagse rit, laatste dag"),
}
# The preset's allowance names (cao.cao_preset), read in the user's language; a rule set
# keeps them in Dutch, as the CAO words them.
ALLOWANCE_NAMES = {
    "per uur afwezig": _l("per uur afwezig"),
    "avond": _l("avond"),
    "avond bij vertrek voor 14:00": _l("avond bij vertrek voor 14:00"),
    "avond bij vertrek voor 17:00": _l("avond bij vertrek voor 17:00"),
    "nacht bij aankomst na 12:00": _l("nacht bij aankomst na 12:00"),
    "dagbedrag": _l("dagbedrag"),
    "extra bij vertrek na 14:00 en 12 uur afwezig": _l(
        "extra bij vertrek na 14:00 en 12 uur afwezig"
    ),
}
# The preset's note on where it comes from (cao.rules.BRON, kept in English in the data).
PRESET_SOURCE = _l(
    "Voorinstelling volgens de CAO Beroepsgoederenvervoer over de weg en de verhuur van mobiele "
    "kranen (docs/cao.md noemt de artikelen). De bedragen van de verblijfkosten staan op 0,00 "
    "tot je de bedragen van dit jaar invult uit het artikel over verblijfkosten van de CAO (de "
    "bedragen veranderen elk jaar op 1 januari)."
)


def source_text(bron: str | None) -> str:
    """A rule set's note on its source in the user's language where it is the preset's."""
    return str(PRESET_SOURCE) if bron == BRON else (bron or "")


WEEKDAGEN = {
    1: _l("ma"),
    2: _l("di"),
    3: _l("wo"),
    4: _l("do"),
    5: _l("vr"),
    6: _l("za"),
    7: _l("zo"),
}
WEEKDAG_NAMEN = {
    1: _l("maandag"),
    2: _l("dinsdag"),
    3: _l("woensdag"),
    4: _l("donderdag"),
    5: _l("vrijdag"),
    6: _l("zaterdag"),
    7: _l("zondag"),
}
FEESTDAG_LABELS = {
    "nieuwjaarsdag": _l("Nieuwjaarsdag"),
    "goede_vrijdag": _l("Goede Vrijdag"),
    "eerste_paasdag": _l("Eerste paasdag"),
    "tweede_paasdag": _l("Tweede paasdag"),
    "koningsdag": _l("Koningsdag"),
    "bevrijdingsdag": _l("Bevrijdingsdag (elk jaar)"),
    "bevrijdingsdag_lustrum": _l("Bevrijdingsdag (alleen in lustrumjaren: 2025, 2030, …)"),
    "hemelvaartsdag": _l("Hemelvaartsdag"),
    "eerste_pinksterdag": _l("Eerste pinksterdag"),
    "tweede_pinksterdag": _l("Tweede pinksterdag"),
    "eerste_kerstdag": _l("Eerste kerstdag"),
    "tweede_kerstdag": _l("Tweede kerstdag"),
}
SAMENLOOP_LABELS = {
    "hoogste": _l("Het hoogste van beide"),
    "onregelmatig": _l("Alleen de onregelmatigheidstoeslag"),
}
SAMENLOOP_HELP = {
    "hoogste": _l(
        "Valt een overuur in onregelmatige uren, dan telt het hoogste percentage van de twee."
    ),
    "onregelmatig": _l(
        "Valt een overuur in onregelmatige uren, dan telt alleen de onregelmatigheidstoeslag "
        "(zoals de CAO het samenvat)."
    ),
}
OVERUREN_LABELS = {
    "cao": _l("Volgens de CAO van die week"),
    "week_40": _l("Boven 40 uur per week"),
    "contract": _l("Boven de contracturen"),
    "dag_8": _l("Oproepkrachten: boven 8 uur per dag"),
}
OVERUREN_HELP = {
    "cao": _l(
        "Tot en met 2025 boven 40 uur (maandag tot en met vrijdag), met meeruren tussen de "
        "contracturen en 40 uur; vanaf 2026 boven de contracturen als die onder 40 uur "
        "liggen (CAO 2026, artikel 27 lid 1)."
    ),
    "week_40": _l(
        "Overuren boven 40 uur op maandag tot en met vrijdag. De uren tussen de contracturen "
        "en 40 uur zijn meeruren tegen 100%, ook voor deeltijders (CAO tot en met 2025)."
    ),
    "contract": _l(
        "Overuren boven de contracturen, hoogstens 40 uur, op maandag tot en met vrijdag "
        "(CAO 2026, artikel 27 lid 1)."
    ),
    "dag_8": _l(
        "Overuren boven 8 uur per dag (artikel 10 lid 5). Oproepkrachten krijgen geen "
        "doorbetaalde feestdagen (artikel 10 lid 1)."
    ),
}
