"""The carrier's own settings: its name, time zone, home base, invoicing details (the seller
on its e-invoices) and how a proof of delivery names the driver; every change audited.

Apart from management.py (users and API keys), which offers update_settings as before.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from portal import countries
from portal.accounts import invoicing
from portal.accounts.models import Carrier
from portal.accounts.service import forget_zone, get_carrier
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import ValidationFailed


@dataclass(frozen=True)
class CarrierSettings:
    naam: str
    tijdzone: str
    thuisbasis_straat: str | None = None
    thuisbasis_postcode: str | None = None
    thuisbasis_plaats: str | None = None
    thuisbasis_land: str | None = None
    thuisbasis_lat: float | None = None
    thuisbasis_lng: float | None = None
    # The invoicing details, the seller on the carrier's e-invoices (UBL)
    btw_nummer: str | None = None
    kvk_nummer: str | None = None
    iban: str | None = None
    factuur_email: str | None = None
    betaaltermijn_dagen: int = 30
    # How a shipper's proof of delivery names who delivered: voornaam or initialen
    bewijs_chauffeur: str = "voornaam"


NL_POSTCODE = re.compile(r"^([1-9][0-9]{3})\s?([A-Za-z]{2})$")


def valid_time_zone(name: str) -> bool:
    """A time zone the system's zone database knows by this exact name."""
    if not name or name not in available_timezones():
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _clean(value: str | None) -> str | None:
    value = (value or "").strip()
    return value or None


def update_settings(*, carrier_id: uuid.UUID, settings: CarrierSettings, actor: Actor) -> Carrier:
    """Change the carrier's name, time zone, home base and invoicing details; every error at
    its field."""
    carrier = get_carrier(carrier_id=carrier_id)
    values = _checked(settings)
    changes = {
        name: [getattr(carrier, name), value]
        for name, value in values.items()
        if getattr(carrier, name) != value
    }
    if changes:
        for name, value in values.items():
            setattr(carrier, name, value)
        if "tijdzone" in changes:
            forget_zone(carrier_id)
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="carrier",
            entity_id=carrier_id,
            action="settings_updated",
            changes=changes,
        )
    return carrier


def _checked(settings: CarrierSettings) -> dict:
    """The settings' values as stored; ValidationFailed with every error at its field."""
    errors: list[dict] = []
    naam = settings.naam.strip()
    if not naam:
        errors.append({"field": "naam", "code": "required", "message": "required"})
    if not valid_time_zone(settings.tijdzone):
        errors.append(
            {"field": "tijdzone", "code": "unknown_time_zone", "message": "unknown time zone"}
        )
    land, postcode = _home_base_address(settings, errors)
    _check_home_base_position(settings.thuisbasis_lat, settings.thuisbasis_lng, errors)
    if settings.bewijs_chauffeur not in ("voornaam", "initialen"):
        errors.append(
            {"field": "bewijs_chauffeur", "code": "choice", "message": "voornaam or initialen"}
        )
    details = invoicing.clean(
        btw_nummer=settings.btw_nummer,
        kvk_nummer=settings.kvk_nummer,
        iban=settings.iban,
        factuur_email=settings.factuur_email,
        betaaltermijn_dagen=settings.betaaltermijn_dagen,
        errors=errors,
    )
    if errors:
        raise ValidationFailed(errors)
    return {
        "naam": naam,
        "tijdzone": settings.tijdzone,
        "thuisbasis_straat": _clean(settings.thuisbasis_straat),
        "thuisbasis_postcode": postcode,
        "thuisbasis_plaats": _clean(settings.thuisbasis_plaats),
        "thuisbasis_land": land,
        "thuisbasis_lat": settings.thuisbasis_lat,
        "thuisbasis_lng": settings.thuisbasis_lng,
        "bewijs_chauffeur": settings.bewijs_chauffeur,
        **details,
    }


def _home_base_address(settings: CarrierSettings, errors: list[dict]) -> tuple:
    """The home base's country code and postcode as stored (a Dutch postcode as 7511 JE)."""
    land = (_clean(settings.thuisbasis_land) or "").upper() or None
    postcode = _clean(settings.thuisbasis_postcode)
    if land is not None and not countries.is_country(land):
        errors.append(
            {
                "field": "thuisbasis_land",
                "code": "country_code",
                "message": "a two-letter country code",
            }
        )
    if postcode and land == "NL":
        match = NL_POSTCODE.match(postcode)
        if match:
            postcode = f"{match.group(1)} {match.group(2).upper()}"
        else:
            errors.append(
                {
                    "field": "thuisbasis_postcode",
                    "code": "postcode_format",
                    "message": "not a Dutch postcode",
                }
            )
    return land, postcode


def _check_home_base_position(lat: float | None, lng: float | None, errors: list[dict]) -> None:
    if (lat is None) != (lng is None):
        field = "thuisbasis_lng" if lng is None else "thuisbasis_lat"
        errors.append(
            {"field": field, "code": "both_or_neither", "message": "give both or neither"}
        )
    if lat is not None and not -90 <= lat <= 90:
        errors.append(
            {"field": "thuisbasis_lat", "code": "out_of_range", "message": "between -90 and 90"}
        )
    if lng is not None and not -180 <= lng <= 180:
        errors.append(
            {"field": "thuisbasis_lng", "code": "out_of_range", "message": "between -180 and 180"}
        )
