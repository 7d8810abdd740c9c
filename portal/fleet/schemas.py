"""JSON shapes of vehicles and vehicle sessions."""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from portal.fleet.models import (
    EENHEDEN,
    MAX_SNELHEID,
    OLD_SOORTEN,
    SESSION_STATUSES,
    SOORTEN,
    Vehicle,
    VehicleSession,
)
from portal.fleet.sessions import is_expired
from portal.schemas import InModel, Timestamp, not_null
from portal.types import iso

Soort = Literal[SOORTEN]  # type: ignore[valid-type]
Eenheid = Literal[EENHEDEN]  # type: ignore[valid-type]
SOORT_TEXT = (
    "The vehicle's kind. Motorised: vrachtwagen (truck), opleggertrekker (tractor unit), "
    "landbouwtrekker (agricultural tractor, RDW category T), bestelbus (van); towed: "
    "aanhangwagen (drawbar trailer), oplegger (semi-trailer), landbouwaanhanger "
    "(agricultural trailer); overig. The former kinds `trekker` and `aanhanger` are now "
    "`opleggertrekker` and `aanhangwagen`; sent, they answer 422 naming the new kind."
)
KENMERKEN_TEXT = (
    "The vehicle's capabilities by code (see GET /voertuigkenmerken), each with its "
    'parameters: {"mesttank": {"volume_m3": 18}, "vee": {"nvwa_nummer": "NL-123"}, '
    '"koeling": {"temp_min": 2, "temp_max": 7}, "kooiaap": {}}.'
)


def _renamed_kind(value):
    """An old kind's name: refused with its new name (before the choice's own check)."""
    if isinstance(value, str) and value in OLD_SOORTEN:
        raise ValueError(f"{value!r} is now {OLD_SOORTEN[value]!r}; one of {', '.join(SOORTEN)}")
    return value


Kenmerken = dict[str, dict[str, float | str]]


# pydantic's own finiteness check, not an AfterValidator: bounds on a field after a validator
# leak into the JSON schema as `gt`/`le` instead of exclusiveMinimum/maximum.
Capacity = Annotated[float, Field(gt=0, le=1_000_000, allow_inf_nan=False)]


class ActiveSessionOut(BaseModel):
    model_config = ConfigDict(title="ActiveVehicleSession")

    id: uuid.UUID
    chauffeur_id: uuid.UUID
    gestart_op: Timestamp


class VehicleOut(BaseModel):
    """A vehicle; `versie` is its ETag (send it as If-Match to PATCH)."""

    model_config = ConfigDict(title="Vehicle")

    id: uuid.UUID
    transporteur_id: uuid.UUID
    kenteken: str | None = Field(
        description="Dutch licence plate as painted, e.g. BX-12-LP; null only for an "
        "agricultural trailer on its tractor's repeat plate, known by its `vlootnummer`"
    )
    vlootnummer: str | None = Field(description="the carrier's fleet number, unique when set")
    label: str = Field(description="how the vehicle is named: its plate, else #fleet number")
    soort: Soort = Field(description=SOORT_TEXT)  # type: ignore[valid-type]
    omschrijving: str | None
    capaciteit: float | None
    capaciteit_eenheid: Eenheid | None  # type: ignore[valid-type]
    max_snelheid_kmh: int | None = Field(
        description="maximum speed by design; 40 or less: EU 561/2006 does not apply"
    )
    kenmerken: Kenmerken = Field(description=KENMERKEN_TEXT)
    kooiaap: bool = Field(
        description="carries a truck-mounted forklift: whether `kenmerken` holds `kooiaap` "
        "(kept for clients from before capabilities)"
    )
    opmerkingen: str | None
    actief: bool
    versie: int
    created_at: Timestamp
    updated_at: Timestamp | None
    actieve_sessie: ActiveSessionOut | None = Field(description="who drives it right now")


def serialize_vehicle(
    vehicle: Vehicle, active: VehicleSession | None = None, kenmerken: dict | None = None
) -> dict:
    kenmerken = kenmerken or {}
    return {
        "id": str(vehicle.id),
        "transporteur_id": str(vehicle.transporteur_id),
        "kenteken": vehicle.kenteken,
        "vlootnummer": vehicle.vlootnummer,
        "label": vehicle.label,
        "soort": vehicle.soort,
        "omschrijving": vehicle.omschrijving,
        "capaciteit": vehicle.capaciteit,
        "capaciteit_eenheid": vehicle.capaciteit_eenheid,
        "max_snelheid_kmh": vehicle.max_snelheid_kmh,
        "kenmerken": kenmerken,
        "kooiaap": "kooiaap" in kenmerken,
        "opmerkingen": vehicle.opmerkingen,
        "actief": vehicle.actief,
        "versie": vehicle.versie,
        "created_at": iso(vehicle.created_at),
        "updated_at": iso(vehicle.updated_at),
        "actieve_sessie": {
            "id": str(active.id),
            "chauffeur_id": str(active.chauffeur_id),
            "gestart_op": iso(active.gestart_op),
        }
        if active is not None
        else None,
    }


class VehicleQuery(BaseModel):
    """Query of GET /voertuigen: every filter narrows; ordered by kenteken."""

    model_config = ConfigDict(extra="forbid")

    q: str | None = Field(
        default=None,
        max_length=100,
        description="text in kenteken (dashes optional), vlootnummer or omschrijving",
    )
    kenteken: str | None = Field(
        default=None, max_length=20, description="exactly this plate, with or without dashes"
    )
    soort: Soort | None = Field(default=None, description=SOORT_TEXT)  # type: ignore[valid-type]
    actief: bool | None = Field(default=None, description="true: active only; false: inactive")

    _renamed = field_validator("soort", mode="before")(_renamed_kind)
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


class VehicleUpdate(InModel):
    """The fields to change; omitted fields stay. Setting actief to false ends the vehicle's
    active session. `kenmerken` replaces all the vehicle's capabilities; `kooiaap` true or
    false adds or takes off that one capability."""

    model_config = ConfigDict(title="UpdateVehicleBody")

    # A vehicle always has these: left out, they stay; null is refused (and not documented).
    kenteken: str | None = Field(
        default=None,
        min_length=1,
        max_length=20,
        description="null only for an agricultural trailer with a fleet number",
    )
    vlootnummer: str | None = Field(default=None, max_length=20)
    soort: Soort | None = Field(  # type: ignore[valid-type]
        default=None, json_schema_extra=not_null, description=SOORT_TEXT
    )
    omschrijving: str | None = Field(default=None, max_length=200)
    capaciteit: Capacity | None = None
    capaciteit_eenheid: Eenheid | None = None  # type: ignore[valid-type]
    max_snelheid_kmh: int | None = Field(default=None, ge=1, le=MAX_SNELHEID)
    kenmerken: Kenmerken | None = Field(
        default=None, json_schema_extra=not_null, description=KENMERKEN_TEXT
    )
    kooiaap: bool | None = Field(default=None, json_schema_extra=not_null)
    opmerkingen: str | None = Field(default=None, max_length=2000)
    actief: bool | None = Field(default=None, json_schema_extra=not_null)

    _renamed = field_validator("soort", mode="before")(_renamed_kind)

    @field_validator("soort", "kooiaap", "actief", "kenmerken")
    @classmethod
    def _not_null(cls, value):
        if value is None:  # sent as null: left out, the field would stay
            raise ValueError("cannot be null")
        return value


# --- vehicle sessions --------------------------------------------------------------------


class VehicleSessionOut(BaseModel):
    """A driver's session in a vehicle: pending until the QR sticker is scanned, then active
    until it is ended."""

    model_config = ConfigDict(title="VehicleSession")

    id: uuid.UUID
    transporteur_id: uuid.UUID
    chauffeur_id: uuid.UUID
    vehicle_id: uuid.UUID | None
    kenteken: str | None = Field(description="the vehicle's plate, else #its fleet number")
    status: Literal[SESSION_STATUSES]  # type: ignore[valid-type]
    verlopen: bool = Field(description="a pending session whose scan did not come in time")
    created_at: Timestamp
    verloopt_op: Timestamp = Field(description="until when a pending session takes its scan")
    gestart_op: Timestamp | None
    beeindigd_op: Timestamp | None
    einde_reden: str | None


def serialize_session(session: VehicleSession, kenteken: str | None) -> dict:
    return {
        "id": str(session.id),
        "transporteur_id": str(session.transporteur_id),
        "chauffeur_id": str(session.chauffeur_id),
        "vehicle_id": str(session.vehicle_id) if session.vehicle_id else None,
        "kenteken": kenteken,
        "status": session.status,
        "verlopen": is_expired(session),
        "created_at": iso(session.created_at),
        "verloopt_op": iso(session.verloopt_op),
        "gestart_op": iso(session.gestart_op),
        "beeindigd_op": iso(session.beeindigd_op),
        "einde_reden": session.einde_reden,
    }


class SessionStart(InModel):
    """Start a session; name the vehicle when the driver chose it already (then only its
    sticker validates the session)."""

    model_config = ConfigDict(title="StartVehicleSessionBody")

    vehicle_id: uuid.UUID | None = None


class SessionValidate(InModel):
    model_config = ConfigDict(title="ValidateVehicleSessionBody")

    qr: str = Field(
        min_length=1, max_length=500, description="the text of the scanned QR sticker, as read"
    )
