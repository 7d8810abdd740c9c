"""Names of the product's own codes as people read them; any domain may import this (it
needs no request, no blueprint and no database)."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

# Activity types the product knows by name; others show their slug made readable.
ACTIVITY_LABELS = {
    "mest_laden": _l("Mest laden"),
    "mest_lossen": _l("Mest lossen"),
    "voer_leveren": _l("Voer leveren"),
    "vee_transport": _l("Veetransport"),
    "koel_transport": _l("Gekoeld transport"),
}


def activity_label(value: str | None) -> str:
    """An activity type as people read it: translated where the product knows it, else the
    slug made readable ("kalveren_halen" reads "Kalveren halen")."""
    if not value:
        return ""
    if value in ACTIVITY_LABELS:
        return str(ACTIVITY_LABELS[value])
    return value.replace("_", " ").replace("-", " ").capitalize()


def duur(minutes: int | None) -> str:
    """Minutes as hours and minutes: 270 -> '4 u 30', 600 -> '10 u', 42 -> '42 min'."""
    if minutes is None:
        return _("onbekend")
    minutes = int(minutes)
    sign = "-" if minutes < 0 else ""
    minutes = abs(minutes)
    hours, rest = divmod(minutes, 60)
    if hours == 0:
        return sign + _("%(m)s min", m=rest)
    if rest == 0:
        return sign + _("%(h)s u", h=hours)
    return sign + _("%(h)s u %(m)s", h=hours, m=f"{rest:02d}")


def money(amount, exact: bool = False) -> str:
    """An amount in euros as the user reads it (€ 4,35 in Dutch, €4.35 in English); exact:
    a price with all its decimals (€ 0,125), at least two."""
    from decimal import Decimal

    from babel.numbers import format_currency
    from flask_babel import get_locale

    if amount is None:
        return ""
    value = Decimal(amount).normalize() if exact else amount
    return format_currency(value, "EUR", locale=get_locale(), decimal_quantization=not exact)


def number(value) -> str:
    """A decimal number as the user reads it (4,35 / 4.35), without trailing zeros."""
    from flask_babel import format_decimal

    if value is None:
        return ""
    return format_decimal(value, format="#,##0.####")


PRICE_REASONS = {
    "no_tariff": _l("geen tarief"),
    "no_quantity": _l("geen hoeveelheid"),
    "other_unit": _l("andere eenheid dan het tarief"),
    "no_duration": _l("geen gewerkte tijd vastgelegd"),
    "no_kilometres": _l("geen kilometers"),
    "not_priced": _l("nog niet geprijsd"),
    "zero_amount": _l("€ 0,00, terwijl het tarief een prijs heeft"),
}


PRICE_BASES = {"vracht": _l("vracht"), "uur": _l("uur"), "km": _l("km")}


def price_basis(per: str | None) -> str:
    """What a tariff's price is per: the unit (ton, m³) or a basis in the user's language."""
    if not per:
        return ""
    return str(PRICE_BASES.get(per, per))


def price_reason(code: str | None) -> str:
    """Why a billing line has no price, in the user's language."""
    if not code:
        return ""
    return str(PRICE_REASONS.get(code, code))


# Units a planner types with a quantity ("30 stuks") and names of irregular-hours windows
# ("nacht"): free text, but mostly these words. Exactly such a word reads in the user's
# language; anything else is the carrier's own name and shows as typed.
UNIT_WORDS = {
    "stuks": _l("stuks"),
    "stuk": _l("stuk"),
    "ton": _l("ton"),
    "balen": _l("balen"),
    "dieren": _l("dieren"),
    "pallets": _l("pallets"),
    "liter": _l("liter"),
    "vracht": _l("vracht"),
    "vrachten": _l("vrachten"),
}
WINDOW_WORDS = {
    "nacht": _l("nacht"),
    "avond": _l("avond"),
    "ochtend": _l("ochtend"),
    "vroeg": _l("vroeg"),
    "dag": _l("dag"),
    "middag": _l("middag"),
    "weekend": _l("weekend"),
}


def _known_word(words: dict, text: str | None) -> str:
    if not text:
        return ""
    found = words.get(text.strip().casefold())
    if found is None:
        return text
    found = str(found)
    return found[:1].upper() + found[1:] if text.strip()[:1].isupper() else found


def unit(text: str | None) -> str:
    """A quantity's unit as the user reads it ("stuks" reads "pcs" in English)."""
    return _known_word(UNIT_WORDS, text)


def window_name(text: str | None) -> str:
    """An irregular-hours window's name as the user reads it ("nacht" reads "night")."""
    return _known_word(WINDOW_WORDS, text)
