"""Dutch public holidays as the CAO Beroepsgoederenvervoer over de weg pays them (200%).

The dates come from the `holidays` package (Netherlands, which follows the Algemene
termijnenwet: Koningsdag moves to Saturday 26 April when 27 April is a Sunday); which of
them count is the rule set's choice, by key. The CAO's own list, the preset, is:
Nieuwjaarsdag, Tweede Paasdag, Koningsdag, Hemelvaartsdag, Tweede Pinksterdag, Eerste and
Tweede Kerstdag, and Bevrijdingsdag (5 May) only in lustrum years (2025, 2030, ...).
Source: CAO Beroepsgoederenvervoer over de weg en de verhuur van mobiele kranen, the article
on feestdagen (check the text of the CAO in force). Eerste Paasdag and Eerste Pinksterdag
are always Sundays, so they are paid at the Sunday rate without being listed; Goede
Vrijdag is not a CAO holiday. A carrier adds days of its own as dates (`extra`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from functools import cache

import holidays

# Key -> the Dutch name the `holidays` package gives the day (language "nl").
FEESTDAGEN = {
    "nieuwjaarsdag": "Nieuwjaarsdag",
    "goede_vrijdag": "Goede vrijdag",
    "eerste_paasdag": "Eerste paasdag",
    "tweede_paasdag": "Tweede paasdag",
    "koningsdag": "Koningsdag",
    # 5 May every year (the package lists it as an optional holiday outside lustrum years).
    "bevrijdingsdag": "Bevrijdingsdag",
    # 5 May only when the year is divisible by 5, as the CAO grants it.
    "bevrijdingsdag_lustrum": "Bevrijdingsdag",
    "hemelvaartsdag": "Hemelvaartsdag",
    "eerste_pinksterdag": "Eerste pinksterdag",
    "tweede_pinksterdag": "Tweede pinksterdag",
    "eerste_kerstdag": "Eerste kerstdag",
    "tweede_kerstdag": "Tweede kerstdag",
}

CAO_FEESTDAGEN = (
    "nieuwjaarsdag",
    "tweede_paasdag",
    "koningsdag",
    "bevrijdingsdag_lustrum",
    "hemelvaartsdag",
    "tweede_pinksterdag",
    "eerste_kerstdag",
    "tweede_kerstdag",
)


@cache
def _named_days(jaar: int) -> dict[str, date]:
    """Every known holiday of a year by key, as the `holidays` package computes them."""
    found = holidays.country_holidays(
        "NL", years=jaar, language="nl", categories=("public", "optional")
    )
    by_name: dict[str, date] = {}
    for day, names in found.items():
        for name in names.split("; "):
            by_name[name] = day
    days: dict[str, date] = {}
    for key, name in FEESTDAGEN.items():
        if name not in by_name:
            # A renamed day in a new release of the package must not vanish silently.
            raise LookupError(f"the holidays package has no {name!r} in {jaar}")
        days[key] = by_name[name]
    if jaar % 5 != 0:
        del days["bevrijdingsdag_lustrum"]
    return days


def feestdagen(jaar: int, names: Iterable[str], extra: Iterable[date] = ()) -> dict[date, str]:
    """The holidays of a year that count: the named ones (keys of FEESTDAGEN) and the extra
    dates of that year, each with its name."""
    days = _named_days(jaar)
    result = {days[key]: FEESTDAGEN[key] for key in names if key in days}
    for day in extra:
        if day.year == jaar:
            result.setdefault(day, "Extra feestdag")
    return result
