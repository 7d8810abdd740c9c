"""Countries and currencies as electronic invoices code them, and VAT number prefixes.

- Country codes are ISO 3166-1 alpha-2 with the two additions the EN 16931 code list makes
  (rule BR-CL-14): `1A` (Kosovo) and `XI` (Northern Ireland, for VAT on goods). Babel's
  territory list is wider (IC, EA, XK, QO, ...) and those codes make an invoice fail BR-CL-14,
  so names come from Babel but codes from this list.
- A VAT number's prefix is not always its country code: Greece writes `EL` (ISO `GR`), and
  Northern Ireland's traders `XI` (ISO `GB`).
- The EU member states for the reverse charge of a service (art. 44 and 196 of Directive
  2006/112/EC): the place of supply of a service to a business is where it is established.
  Northern Ireland stays inside the EU's VAT area for goods only, so a service to an `XI`
  business is a service outside the EU.
- Currency codes are ISO 4217 (rule BR-CL-04).
"""

from __future__ import annotations

import functools

import pycountry
from babel import Locale

EN16931_ADDITIONS = {"1A": "Kosovo", "XI": "Northern Ireland"}
EU_MEMBER_STATES = frozenset((
    "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU",
    "IE", "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
))  # fmt: skip

VAT_PREFIX_COUNTRY = {"EL": "GR", "XI": "GB"}
# Babel names the additions under other codes
_BABEL_CODE = {"1A": "XK"}
FIRST = ("NL", "BE", "DE")


@functools.cache
def codes() -> frozenset[str]:
    """Every country code an EN 16931 invoice may carry."""
    return frozenset({c.alpha_2 for c in pycountry.countries} | set(EN16931_ADDITIONS))


@functools.cache
def currencies() -> frozenset[str]:
    """ISO 4217 currency codes."""
    return frozenset(c.alpha_3 for c in pycountry.currencies)


def is_country(code: str | None) -> bool:
    return bool(code) and code in codes()


def is_currency(code: str | None) -> bool:
    return bool(code) and code in currencies()


def name(code: str, locale: Locale | str = "nl") -> str:
    """The country's name in the locale's language (CLDR), else ISO's English name."""
    locale = Locale.parse(locale) if isinstance(locale, str) else locale
    found = locale.territories.get(_BABEL_CODE.get(code, code))
    if found:
        return found
    if code in EN16931_ADDITIONS:
        return EN16931_ADDITIONS[code]
    country = pycountry.countries.get(alpha_2=code)
    return country.name if country else code


def choices(locale: Locale | str = "nl") -> list[tuple[str, str]]:
    """(code, name) for a select: NL, BE and DE first, then by name in the locale."""
    names = {code: name(code, locale) for code in codes()}
    rest = sorted((c for c in names if c not in FIRST), key=lambda c: names[c].casefold())
    return [(code, names[code]) for code in (*FIRST, *rest)]


def vat_country(vat_number: str | None) -> str | None:
    """The ISO country of a VAT number by its prefix (EL is GR), or None."""
    if not vat_number or len(vat_number) < 2:
        return None
    prefix = vat_number[:2].upper()
    return VAT_PREFIX_COUNTRY.get(prefix, prefix if prefix in codes() else None)


def in_eu(country: str | None) -> bool:
    """Whether a business established in country receives services inside the EU."""
    return country in EU_MEMBER_STATES
