"""The customers' field rules: what a customer's and a place's fields may hold, checked and
normalised before the service writes them. Errors are {field, code, message}: a stable code
for the portal to word and for API clients, an English message."""

from __future__ import annotations

import math
import re

from portal import countries, identifiers
from portal.customers.models import PLACE_KINDS
from portal.identifiers import normalise_vat, vat_problem

# What invoices need of a customer beyond its name: its invoice address, the identifiers an
# e-invoice names and routes it by, and its own VAT treatment.
INVOICING_FIELDS = (
    "factuur_adres",
    "factuur_postcode",
    "factuur_plaats",
    "factuur_land",
    "kvk_nummer",
    "gln",
    "peppol_id",
    "btw_categorie",
    "btw_vrijstellingsreden",
)
CUSTOMER_FIELDS = (
    "naam",
    "debiteurnummer",
    "btw_nummer",
    "factuur_email",
    *INVOICING_FIELDS,
    "opmerkingen",
)
# A customer's own VAT treatment (EN 16931 categories); empty: each tariff's category holds.
VAT_CATEGORIES = ("AE", "O", "E", "Z", "S")
PLACE_FIELDS = (
    "naam",
    "soort",
    "adres",
    "postcode",
    "stad",
    "land",
    "locatie_lat",
    "locatie_lng",
    "openingstijden",
    "contactpersoon",
    "telefoon",
    "opmerkingen",
)
# The longest value of each text field (the columns' sizes).
LIMITS = {
    "naam": 200,
    "debiteurnummer": 50,
    "btw_nummer": 20,
    "factuur_email": 254,
    "factuur_adres": 200,
    "factuur_postcode": 16,
    "factuur_plaats": 100,
    "kvk_nummer": 20,
    "gln": 20,
    "peppol_id": 100,
    "btw_vrijstellingsreden": 300,
    "opmerkingen": 2000,
    "adres": 200,
    "postcode": 16,
    "stad": 100,
    "openingstijden": 500,
    "contactpersoon": 200,
    "telefoon": 50,
}
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")
DUTCH_POSTCODE = re.compile(r"([1-9][0-9]{3}) ?([A-Z]{2})")


def error(field: str, code: str, message: str) -> dict:
    return {"field": field, "code": code, "message": message}


def _text(data: dict, name: str, errors: list[dict], clean: dict, required=False) -> None:
    value = data[name]
    if value is not None and not isinstance(value, str):
        errors.append(error(name, "type", "text"))
        return
    value = (value or "").strip() or None
    if value is None and required:
        errors.append(error(name, "required", "required"))
    elif value is not None and len(value) > LIMITS[name]:
        errors.append(error(name, "too_long", f"at most {LIMITS[name]} characters"))
    else:
        clean[name] = value


def clean_customer(data: dict, errors: list[dict], current: dict | None = None) -> dict:
    """The customer's fields of data checked and normalised; problems go to errors. current:
    the customer's stored values, for the rules that join fields (a category and its VAT
    number) when data changes only some of them."""
    clean: dict = {}
    errors.extend(
        error(name, "not_editable", "unknown field")
        for name in sorted(set(data) - set(CUSTOMER_FIELDS))
    )
    for name in CUSTOMER_FIELDS:
        if name in data and name not in ("factuur_land", "btw_categorie"):
            _text(data, name, errors, clean, required=name == "naam")
    if clean.get("btw_nummer"):
        problem = vat_problem(clean["btw_nummer"])
        if problem:
            errors.append(problem)
        clean["btw_nummer"] = normalise_vat(clean["btw_nummer"])
    email = clean.get("factuur_email")
    if email and not EMAIL.fullmatch(email):
        errors.append(error("factuur_email", "email", "an e-mail address"))
    if "factuur_land" in data:
        land = data["factuur_land"]
        land = land.strip().upper() if isinstance(land, str) else land
        if land and not (isinstance(land, str) and countries.is_country(land)):
            errors.append(error("factuur_land", "country", "an ISO 3166 country code of 2 letters"))
        else:
            clean["factuur_land"] = land or None
    if clean.get("factuur_postcode"):
        land = clean.get("factuur_land") or (current or {}).get("factuur_land") or "NL"
        clean["factuur_postcode"] = written_postcode(clean["factuur_postcode"].upper(), land)
    if clean.get("kvk_nummer"):
        clean["kvk_nummer"] = identifiers.compact(clean["kvk_nummer"])
        if not identifiers.kvk_valid(clean["kvk_nummer"]):
            errors.append(error("kvk_nummer", "kvk_format", "8 digits"))
    if clean.get("gln"):
        clean["gln"] = identifiers.compact(clean["gln"])
        if not identifiers.gln_valid(clean["gln"]):
            errors.append(error("gln", "gln_format", "13 digits with a valid GS1 check digit"))
    if clean.get("peppol_id"):
        clean["peppol_id"] = re.sub(r"\s", "", clean["peppol_id"])
        if identifiers.parse_peppol_id(clean["peppol_id"]) is None:
            errors.append(
                error("peppol_id", "peppol_format", "scheme:identifier, e.g. 0106:12345678")
            )
    if "btw_categorie" in data:
        category = data["btw_categorie"] or None
        if category is not None and category not in VAT_CATEGORIES:
            errors.append(error("btw_categorie", "choice", f"one of {', '.join(VAT_CATEGORIES)}"))
        else:
            clean["btw_categorie"] = category
    _vat_treatment({**(current or {}), **clean}, errors)
    return clean


def _vat_treatment(values: dict, errors: list[dict]) -> None:
    """A customer's own VAT category fits its VAT number and country: reverse charge (AE) for a
    business in another EU country with its VAT number, not subject (O) for one outside the
    EU, and a reason where EN 16931 wants one (E)."""
    category = values.get("btw_categorie")
    vat = values.get("btw_nummer")
    if category == "AE":
        if not vat:
            errors.append(
                error("btw_nummer", "reverse_charge_no_vat", "required for reverse charge (AE)")
            )
            return
        country = countries.vat_country(vat)
        if not countries.in_eu(country) or country == "NL":
            errors.append(
                error(
                    "btw_categorie",
                    "reverse_charge_not_eu",
                    "reverse charge is for a business in another EU member state",
                )
            )
    elif category == "O":
        land = values.get("factuur_land") or "NL"
        if countries.in_eu(land):
            errors.append(
                error(
                    "btw_categorie",
                    "not_subject_in_eu",
                    "not subject to VAT is for a business outside the EU",
                )
            )
    elif category == "E" and not values.get("btw_vrijstellingsreden"):
        errors.append(error("btw_vrijstellingsreden", "reason_required", "required for E"))
    elif category == "Z" and not values.get("btw_vrijstellingsreden"):
        errors.append(error("btw_vrijstellingsreden", "evidence_required", "required for Z"))


def _number(value, name: str, low: float, high: float, errors: list[dict]) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        errors.append(error(name, "type", "a number"))
        return None
    if not low <= value <= high:
        errors.append(error(name, "range", f"between {low:g} and {high:g}"))
        return None
    return float(value)


def clean_place(data: dict, errors: list[dict]) -> dict:
    """The place's fields of data checked and normalised; problems go to errors."""
    clean: dict = {}
    errors.extend(
        error(name, "not_editable", "unknown field")
        for name in sorted(set(data) - set(PLACE_FIELDS))
    )
    for name in ("naam", "adres", "postcode", "stad", "openingstijden", "contactpersoon",
                 "telefoon", "opmerkingen"):  # fmt: skip
        if name in data:
            _text(data, name, errors, clean, required=name == "naam")
    if "soort" in data:
        if data["soort"] not in PLACE_KINDS:
            errors.append(error("soort", "choice", f"one of {', '.join(PLACE_KINDS)}"))
        else:
            clean["soort"] = data["soort"]
    if "land" in data:
        land = (data["land"] or "NL") if isinstance(data["land"], str | None) else ""
        land = land.strip().upper()
        if not countries.is_country(land):
            errors.append(error("land", "country", "an ISO 3166 country code of 2 letters"))
        else:
            clean["land"] = land
    if "locatie_lat" in data:
        clean["locatie_lat"] = _number(data["locatie_lat"], "locatie_lat", -90, 90, errors)
    if "locatie_lng" in data:
        clean["locatie_lng"] = _number(data["locatie_lng"], "locatie_lng", -180, 180, errors)
    return clean


def check_coordinates(lat, lng, errors: list[dict]) -> None:
    if lat is not None and lng is None:
        errors.append(error("locatie_lng", "coordinates_pair", "required with locatie_lat"))
    if lng is not None and lat is None:
        errors.append(error("locatie_lat", "coordinates_pair", "required with locatie_lng"))


def written_postcode(postcode: str | None, land: str) -> str | None:
    """A Dutch postcode as written on letters (1234 AB); others as given."""
    if postcode and land == "NL":
        match = DUTCH_POSTCODE.fullmatch(postcode.upper())
        if match:
            return f"{match.group(1)} {match.group(2)}"
    return postcode
