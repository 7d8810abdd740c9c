"""The time zones a carrier may choose: the IANA zones of the world's regions, grouped by
region, named by their city in the user's language with today's offset from UTC.

The zone database (`zoneinfo.available_timezones()`) also holds legacy aliases (`CET`,
`US/Eastern`, `Etc/GMT+5`, `posixrules`); those stay valid where they are stored, but the
choice offers the canonical region zones and UTC only, as people look for them.
"""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo, available_timezones

from babel.dates import get_timezone_location
from flask_babel import lazy_gettext as _l

REGIONS = {
    "Europe": _l("Europa"),
    "Africa": _l("Afrika"),
    "America": _l("Amerika"),
    "Antarctica": _l("Antarctica"),
    "Arctic": _l("Noordpoolgebied"),
    "Asia": _l("Azië"),
    "Atlantic": _l("Atlantische Oceaan"),
    "Australia": _l("Australië"),
    "Indian": _l("Indische Oceaan"),
    "Pacific": _l("Stille Oceaan"),
}
# Where Rijplan's carriers and their neighbours are: offered first.
COMMON = (
    "Europe/Amsterdam",
    "Europe/Brussels",
    "Europe/Berlin",
    "Europe/Luxembourg",
    "Europe/Paris",
    "Europe/London",
    "Europe/Warsaw",
    "UTC",
)


@functools.cache
def region_zones() -> tuple[str, ...]:
    """The canonical region zones (Europe/Amsterdam, America/Argentina/Buenos_Aires) and UTC."""
    regional = (z for z in available_timezones() if "/" in z and z.split("/", 1)[0] in REGIONS)
    return (*sorted(regional), "UTC")


def _offset(zone: str, moment: datetime) -> str:
    delta = moment.astimezone(ZoneInfo(zone)).utcoffset()
    minutes = int(delta.total_seconds() // 60) if delta else 0
    sign = "+" if minutes >= 0 else "-"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def label(zone: str, locale: str, today: date | None = None) -> str:
    """ "Amsterdam (UTC+01:00)": the zone's city in the locale's words, with its offset today."""
    moment = datetime.combine(today or datetime.now(UTC).date(), datetime.min.time(), UTC)
    city = zone if zone == "UTC" else get_timezone_location(zone, locale=locale, return_city=True)
    return f"{city} ({_offset(zone, moment)})"


@functools.lru_cache(maxsize=8)
def _grouped(locale: str, today: date) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    common = tuple((z, label(z, locale, today)) for z in COMMON)
    by_region: dict[str, list[tuple[str, str]]] = {}
    for zone in region_zones():
        if zone not in COMMON:
            by_region.setdefault(zone.split("/", 1)[0], []).append(
                (zone, label(zone, locale, today))
            )
    groups = [("", common)]
    for region in REGIONS:
        items = sorted(by_region.get(region, ()), key=lambda item: item[1].casefold())
        groups.append((region, tuple(items)))
    return tuple(groups)


def choices(locale: str, current: str | None = None) -> dict[str, list[tuple[str, str]]]:
    """Grouped choices for a select (optgroup label → [(zone, label)]): the common zones
    first, then every region's zones by city. A stored zone outside these (a legacy alias
    such as CET) is kept as a choice of its own, so saving the page never changes it."""
    grouped = _grouped(locale, datetime.now(UTC).date())
    result: dict[str, list[tuple[str, str]]] = {}
    for region, items in grouped:
        name = str(_l("Veelgebruikt")) if not region else str(REGIONS[region])
        result[name] = list(items)
    if current and current not in region_zones() and current in available_timezones():
        result[str(_l("Veelgebruikt"))].insert(0, (current, current))
    return result
