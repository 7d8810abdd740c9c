"""The rules of a vehicle: its kind (motorised or towed, which couples to which, the driving
licence a combination needs), and its fields: a Dutch licence plate (painted as the RDW
does), texts within their lengths, a capacity with its unit, and the yes/no fields; checked
and normalised for fleet.service, every problem an error with its field and stable code."""

from __future__ import annotations

import math
import re

from portal.fleet import kenteken as plates
from portal.fleet.models import EENHEDEN, MAX_SNELHEID, OLD_SOORTEN, SOORTEN, WITHOUT_PLATE

MAX_OMSCHRIJVING = 200
MAX_OPMERKINGEN = 2000
MAX_CAPACITEIT = 1_000_000
MAX_VLOOTNUMMER = 20
_FLEET_NUMBER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._/-]*$")

# --- kinds: what drives, what is towed, what couples to what -----------------------------

MOTORISED = frozenset({"vrachtwagen", "opleggertrekker", "landbouwtrekker", "bestelbus"})
TOWED = frozenset({"aanhangwagen", "oplegger", "landbouwaanhanger"})
# The motorised kinds each towed kind couples to.
PULLED_BY = {
    "oplegger": frozenset({"opleggertrekker"}),
    "aanhangwagen": frozenset({"vrachtwagen", "landbouwtrekker"}),
    "landbouwaanhanger": frozenset({"landbouwtrekker"}),
}
# The rule each refused coupling breaks: its stable code and the rule in English.
COUPLING_RULES = {
    "two_motorised": "two motorised vehicles never couple",
    "not_motorised": "the pulling vehicle must be motorised",
    "not_towed": "the towed vehicle must be a trailer, a semi-trailer or an agricultural trailer",
    "semi_trailer_needs_tractor_unit": "a semi-trailer couples only to a tractor unit",
    "drawbar_trailer_needs_truck_or_tractor": (
        "a drawbar trailer couples only to a truck or an agricultural tractor"
    ),
    "agricultural_trailer_needs_agricultural_tractor": (
        "an agricultural trailer couples only to an agricultural tractor"
    ),
}
_BY_TOWED_KIND = {
    "oplegger": "semi_trailer_needs_tractor_unit",
    "aanhangwagen": "drawbar_trailer_needs_truck_or_tractor",
    "landbouwaanhanger": "agricultural_trailer_needs_agricultural_tractor",
}
# What a licence needs when the kind does not tell it (overig): no licence matches it, so a
# check against a driver's licences is never taken as met.
LICENCE_UNKNOWN = "unknown"


def coupling_problem(motor_kind: str, towed_kind: str) -> str | None:
    """Why a vehicle of towed_kind cannot be coupled behind one of motor_kind: a code of
    COUPLING_RULES; None when the coupling is allowed."""
    if motor_kind in MOTORISED and towed_kind in MOTORISED:
        return "two_motorised"
    if motor_kind not in MOTORISED:
        return "not_motorised"
    if towed_kind not in TOWED:
        return "not_towed"
    if motor_kind not in PULLED_BY[towed_kind]:
        return _BY_TOWED_KIND[towed_kind]
    return None


def needed_licence(motor_kind: str, towed_kind: str | None = None) -> str:
    """The driving licence category (B, BE, C, CE, T) a motorised vehicle needs, alone or
    with a towed one: B for a van, C for a truck or a tractor unit alone, CE for a truck with
    a drawbar trailer or a tractor unit with a semi-trailer, T for an agricultural tractor with
    or without its trailer. LICENCE_UNKNOWN for a kind that says nothing about it (overig,
    or a towed kind as the motor)."""
    towing = towed_kind is not None
    if motor_kind == "landbouwtrekker":
        return "T"
    if motor_kind in ("vrachtwagen", "opleggertrekker"):
        return "CE" if towing else "C"
    if motor_kind == "bestelbus":
        return "BE" if towing else "B"
    return LICENCE_UNKNOWN


def kind_problem(soort) -> dict | None:
    """The error of a vehicle kind that is not one of SOORTEN; an old name (renamed by
    migration c0d1c0de0330) names its new one."""
    if soort in SOORTEN:
        return None
    if isinstance(soort, str) and soort in OLD_SOORTEN:
        new = OLD_SOORTEN[soort]
        return {
            "field": "soort",
            "code": "kind_renamed",
            "message": f"'{soort}' is now '{new}'; one of {', '.join(SOORTEN)}",
            "params": {"old": soort, "new": new},
        }
    return {"field": "soort", "code": "choice", "message": f"one of {', '.join(SOORTEN)}"}


# --- a vehicle's fields --------------------------------------------------------------------


def clean_fields(data: dict, errors: list[dict]) -> dict:
    """The fields of data checked and normalised; problems go to errors as {field, code,
    message}."""
    clean: dict = {}
    _plate_and_kind(data, clean, errors)
    _fleet_number(data, clean, errors)
    for name, limit in (("omschrijving", MAX_OMSCHRIJVING), ("opmerkingen", MAX_OPMERKINGEN)):
        if name in data:
            value = (data[name] or "").strip() or None
            if value is not None and len(value) > limit:
                errors.append(
                    {"field": name, "code": "too_long", "message": f"at most {limit} characters"}
                )
            clean[name] = value
    _capacity(data, clean, errors)
    _speed(data, clean, errors)
    for name in ("actief",):
        if name in data:
            if not isinstance(data[name], bool):
                errors.append({"field": name, "code": "not_a_boolean", "message": "true or false"})
            else:
                clean[name] = data[name]
    return clean


def _plate_and_kind(data: dict, clean: dict, errors: list[dict]) -> None:
    if "kenteken" in data and not (data["kenteken"] or "").strip():
        clean["kenteken"] = None  # whether it may lack one: check_identity
    elif "kenteken" in data:
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
        problem = kind_problem(data["soort"])
        if problem is not None:
            errors.append(problem)
        else:
            clean["soort"] = data["soort"]


def _fleet_number(data: dict, clean: dict, errors: list[dict]) -> None:
    if "vlootnummer" not in data:
        return
    value = data["vlootnummer"]
    value = value.strip() or None if isinstance(value, str) else value
    if value is not None and (
        not isinstance(value, str) or len(value) > MAX_VLOOTNUMMER or not _FLEET_NUMBER.match(value)
    ):
        errors.append(
            {
                "field": "vlootnummer",
                "code": "fleet_number_format",
                "message": f"letters and digits, at most {MAX_VLOOTNUMMER} characters",
                "params": {"max": MAX_VLOOTNUMMER},
            }
        )
        return
    clean["vlootnummer"] = value


def _speed(data: dict, clean: dict, errors: list[dict]) -> None:
    if "max_snelheid_kmh" not in data:
        return
    value = data["max_snelheid_kmh"]
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SNELHEID
    ):
        errors.append(
            {
                "field": "max_snelheid_kmh",
                "code": "out_of_range",
                "message": f"a whole number from 1 to {MAX_SNELHEID}",
            }
        )
        return
    clean["max_snelheid_kmh"] = value


def check_identity(kenteken, vlootnummer, soort, errors: list[dict]) -> None:
    """Every vehicle has a plate or a fleet number; only an agricultural trailer may go
    without a plate (it carries its tractor's repeat plate)."""
    if kenteken is not None:
        return
    if soort != WITHOUT_PLATE:
        errors.append(
            {
                "field": "kenteken",
                "code": "plate_required",
                "message": "is required; only an agricultural trailer may go without, "
                "known by its fleet number",
            }
        )
    elif vlootnummer is None:
        errors.append(
            {
                "field": "vlootnummer",
                "code": "fleet_number_required",
                "message": "is required for a vehicle without a licence plate",
            }
        )


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
