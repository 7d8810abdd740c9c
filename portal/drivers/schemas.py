"""JSON shapes of drivers: the profile, the carrier's driver list and reported positions."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from portal.drivers.locations import MAX_POINTS, Point
from portal.drivers.models import Driver
from portal.schemas import InModel, Timestamp
from portal.types import iso

Latitude = Annotated[float, Field(ge=-90, le=90, allow_inf_nan=False, examples=[52.2215])]
Longitude = Annotated[float, Field(ge=-180, le=180, allow_inf_nan=False, examples=[6.8937])]


class LocationPoint(InModel):
    """One position: where the phone was (WGS 84) and when it measured it."""

    model_config = ConfigDict(title="LocatiePunt")

    lat: Latitude = Field(description="latitude in degrees, -90 to 90")
    lng: Longitude = Field(description="longitude in degrees, -180 to 180")
    recorded_at: Timestamp = Field(
        description="when the phone measured it (UTC); at most 2 minutes ahead of the server"
    )
    accuracy: float | None = Field(
        default=None, ge=0, le=1_000_000, allow_inf_nan=False, description="metres (radius)"
    )
    speed: float | None = Field(
        default=None, ge=0, le=1000, allow_inf_nan=False, description="metres per second"
    )
    heading: float | None = Field(
        default=None,
        ge=0,
        le=360,
        allow_inf_nan=False,
        description="degrees clockwise from true north",
    )

    def point(self) -> Point:
        return Point(
            lat=self.lat,
            lng=self.lng,
            recorded_at=self.recorded_at,
            accuracy=self.accuracy,
            speed=self.speed,
            heading=self.heading,
        )


class LocationBatch(InModel):
    """Several positions at once, e.g. what a phone kept while it was offline."""

    model_config = ConfigDict(title="LocatieBatch")

    punten: list[LocationPoint] = Field(min_length=1, max_length=MAX_POINTS)


LocationIn = LocationPoint | LocationBatch


class LastLocation(BaseModel):
    """A driver's last known position: the newest point by recorded_at."""

    model_config = ConfigDict(title="LaatsteLocatie")

    lat: float
    lng: float
    recorded_at: Timestamp
    accuracy: float | None
    speed: float | None
    heading: float | None


class LocationResult(BaseModel):
    model_config = ConfigDict(title="LocatieResultaat")

    ontvangen: int = Field(description="points in the request")
    opgeslagen: int = Field(description="points stored now")
    dubbel: int = Field(description="points already known (same recorded_at), ignored")
    laatste_locatie: LastLocation | None = Field(
        description="the last known position after this request"
    )


class LicenceOut(BaseModel):
    """A driving licence category the driver holds (Directive 2006/126/EC Art. 4; T: the
    Netherlands' tractor category)."""

    model_config = ConfigDict(title="Rijbewijscategorie")

    categorie: str = Field(
        examples=["CE"], description="AM, A1, A2, A, B, BE, C1, C1E, C, CE, D1, D1E, D, DE or T"
    )
    geldig_tot: date | None = Field(description="the category's expiry date; null: not known")


class DriverOut(BaseModel):
    """A driver of the carrier, as integrations see it."""

    model_config = ConfigDict(title="Chauffeur")

    id: uuid.UUID
    transporteur_id: uuid.UUID
    user_token: str = Field(description="the driver's public id for /users/{user_token}/...")
    naam: str
    email: str | None
    telefoon: str | None
    taal: str | None = Field(description="nl or en; null: the carrier's default")
    actief: bool
    contracturen: str | None = Field(
        description="contract hours per week as a decimal string (32.00); null: the "
        "carrier's pay rules' (40 in the CAO preset)",
        examples=["32.00"],
    )
    personeelsnummer: str | None = Field(
        description="the driver's number in the carrier's payroll package"
    )
    created_at: Timestamp
    laatste_locatie: LastLocation | None
    rijbewijs_categorieen: list[LicenceOut] = Field(
        description="the licence categories on record, in the licence's order; empty: none "
        "recorded (the planner then takes none as held)"
    )


class UserProfile(DriverOut):
    """The profile of a driver, as the driver app shows it."""

    model_config = ConfigDict(title="UserProfile")

    transporteur_naam: str
    tijdzone: str = Field(description="the carrier's time zone, e.g. Europe/Amsterdam")


class DriverQuery(BaseModel):
    """Query of GET /transporteurs/{transporteur_id}/chauffeurs; ordered by naam."""

    model_config = ConfigDict(extra="forbid")

    actief: bool | None = Field(default=None, description="true: active only; false: inactive")
    q: str | None = Field(default=None, max_length=100, description="text in naam, email, telefoon")
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


def last_location(driver: Driver) -> dict | None:
    if driver.last_recorded_at is None or driver.last_lat is None or driver.last_lng is None:
        return None
    return {
        "lat": driver.last_lat,
        "lng": driver.last_lng,
        "recorded_at": iso(driver.last_recorded_at),
        "accuracy": driver.last_accuracy,
        "speed": driver.last_speed,
        "heading": driver.last_heading,
    }


def serialize_driver(driver: Driver, licences: dict | None = None) -> dict:
    """A driver as DriverOut; `licences` its categories with their expiry dates
    (drivers.licences.recorded_licences)."""
    return {
        "id": str(driver.id),
        "transporteur_id": str(driver.transporteur_id),
        "user_token": driver.user_token,
        "naam": driver.naam,
        "email": driver.email,
        "telefoon": driver.telefoon,
        "taal": driver.taal,
        "actief": driver.actief,
        "contracturen": (
            None if driver.contracturen is None else f"{Decimal(driver.contracturen):.2f}"
        ),
        "personeelsnummer": driver.personeelsnummer,
        "created_at": iso(driver.created_at),
        "laatste_locatie": last_location(driver),
        "rijbewijs_categorieen": [
            {"categorie": c, "geldig_tot": expiry.isoformat() if expiry else None}
            for c, expiry in (licences or {}).items()
        ],
    }
