"""The rules of a vehicle's fields: a Dutch licence plate (painted as the RDW does), its kind,
texts within their lengths, a capacity with its unit, and the yes/no fields; checked and
normalised for fleet.service, every problem an error with its field and stable code."""

from __future__ import annotations

import math

from portal.fleet import kenteken as plates
from portal.fleet.models import EENHEDEN, SOORTEN

MAX_OMSCHRIJVING = 200
MAX_OPMERKINGEN = 2000
MAX_CAPACITEIT = 1_000_000


def clean_fields(data: dict, errors: list[dict]) -> dict:
    """The fields of data checked and normalised; problems go to errors as {field, code,
    message}."""
    clean: dict = {}
    _plate_and_kind(data, clean, errors)
    for name, limit in (("omschrijving", MAX_OMSCHRIJVING), ("opmerkingen", MAX_OPMERKINGEN)):
        if name in data:
            value = (data[name] or "").strip() or None
            if value is not None and len(value) > limit:
                errors.append(
                    {"field": name, "code": "too_long", "message": f"at most {limit} characters"}
                )
            clean[name] = value
    _capacity(data, clean, errors)
    for name in ("kooiaap", "actief"):
        if name in data:
            if not isinstance(data[name], bool):
                errors.append({"field": name, "code": "not_a_boolean", "message": "true or false"})
            else:
                clean[name] = data[name]
    return clean


def _plate_and_kind(data: dict, clean: dict, errors: list[dict]) -> None:
    if "kenteken" in data:
        try:
            clean["kenteken"] = plates.painted(data["kenteken"] or "")
        except plates.InvalidKenteken:
            errors.append(
                {
                    "field": "kenteken",
                    "code": "plate_format",
                    "message": f"not a Dutch licence plate (e.g. {plates.EXAMPLE})",
                }
            )
    if "soort" in data:
        if data["soort"] not in SOORTEN:
            errors.append(
                {"field": "soort", "code": "choice", "message": f"one of {', '.join(SOORTEN)}"}
            )
        else:
            clean["soort"] = data["soort"]


def _capacity(data: dict, clean: dict, errors: list[dict]) -> None:
    if "capaciteit" in data:
        value = data["capaciteit"]
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not 0 < value <= MAX_CAPACITEIT
        ):
            errors.append(
                {
                    "field": "capaciteit",
                    "code": "out_of_range",
                    "message": f"a number above 0, at most {MAX_CAPACITEIT}",
                }
            )
        else:
            clean["capaciteit"] = float(value) if value is not None else None
    if "capaciteit_eenheid" in data:
        value = data["capaciteit_eenheid"] or None
        if value is not None and value not in EENHEDEN:
            errors.append(
                {
                    "field": "capaciteit_eenheid",
                    "code": "choice",
                    "message": f"one of {', '.join(EENHEDEN)}",
                }
            )
        else:
            clean["capaciteit_eenheid"] = value


def check_capacity(capaciteit, eenheid, errors: list[dict]) -> None:
    """A capacity needs its unit, and a unit its capacity."""
    if capaciteit is not None and eenheid is None:
        errors.append(
            {
                "field": "capaciteit_eenheid",
                "code": "required_with_capacity",
                "message": "required with a capacity",
            }
        )
    if capaciteit is None and eenheid is not None:
        errors.append(
            {
                "field": "capaciteit",
                "code": "required_with_unit",
                "message": "required with a unit",
            }
        )
