"""JSON shapes of customers and their places."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from portal.customers.models import PLACE_KINDS, Customer, CustomerPlace
from portal.customers.rules import INVOICING_FIELDS
from portal.schemas import InModel, Timestamp, not_null
from portal.types import iso

Soort = Literal[PLACE_KINDS]  # type: ignore[valid-type]
Latitude = Field(default=None, ge=-90, le=90, allow_inf_nan=False)
Longitude = Field(default=None, ge=-180, le=180, allow_inf_nan=False)
VAT = (
    "VAT number: a Dutch one is NL + 9 digits + B + 2 digits (NL123456789B01); other EU "
    "numbers are a country code and 2 to 13 letters or digits. Stored without spaces or dots."
)


class PlaceOut(BaseModel):
    """A customer's loading or unloading place."""

    model_config = ConfigDict(title="CustomerPlace")

    id: uuid.UUID
    klant_id: uuid.UUID
    naam: str
    soort: Soort  # type: ignore[valid-type]
    adres: str | None
    postcode: str | None
    stad: str | None
    land: str = Field(description="ISO 3166 country code, e.g. NL")
    locatie_lat: float | None
    locatie_lng: float | None
    openingstijden: str | None
    contactpersoon: str | None
    telefoon: str | None
    opmerkingen: str | None = Field(description="remarks for the driver")
    created_at: Timestamp
    updated_at: Timestamp | None


class CustomerOut(BaseModel):
    """A customer of the carrier, with its places."""

    model_config = ConfigDict(title="Customer")

    id: uuid.UUID
    transporteur_id: uuid.UUID
    naam: str
    debiteurnummer: str | None = Field(description="unique within the carrier when given")
    btw_nummer: str | None
    factuur_email: str | None
    factuur_adres: str | None = Field(description="invoice address: street and number")
    factuur_postcode: str | None
    factuur_plaats: str | None
    factuur_land: str | None = Field(description="ISO 3166-1 alpha-2 (EN 16931's list)")
    kvk_nummer: str | None = Field(description="Dutch Chamber of Commerce number, 8 digits")
    gln: str | None = Field(description="GS1 Global Location Number, 13 digits")
    peppol_id: str | None = Field(description="Peppol participant id, scheme:id")
    btw_categorie: Literal["S", "Z", "E", "AE", "O"] | None = Field(
        description="the customer's own VAT category (EN 16931); null: each tariff's holds"
    )
    btw_vrijstellingsreden: str | None
    vies: dict | None = Field(
        description="the last VIES check of btw_nummer: status (geldig, ongeldig), naam, "
        "gecontroleerd_op; null when never checked"
    )
    opmerkingen: str | None
    actief: bool
    created_at: Timestamp
    updated_at: Timestamp | None
    locaties: list[PlaceOut]


def serialize_place(place: CustomerPlace) -> dict:
    return {
        "id": str(place.id),
        "klant_id": str(place.klant_id),
        "naam": place.naam,
        "soort": place.soort,
        "adres": place.adres,
        "postcode": place.postcode,
        "stad": place.stad,
        "land": place.land,
        "locatie_lat": place.locatie_lat,
        "locatie_lng": place.locatie_lng,
        "openingstijden": place.openingstijden,
        "contactpersoon": place.contactpersoon,
        "telefoon": place.telefoon,
        "opmerkingen": place.opmerkingen,
        "created_at": iso(place.created_at),
        "updated_at": iso(place.updated_at),
    }


def serialize_customer(customer: Customer, places: list[CustomerPlace]) -> dict:
    return {
        "id": str(customer.id),
        "transporteur_id": str(customer.transporteur_id),
        "naam": customer.naam,
        "debiteurnummer": customer.debiteurnummer,
        "btw_nummer": customer.btw_nummer,
        "factuur_email": customer.factuur_email,
        **{name: getattr(customer, name) for name in INVOICING_FIELDS},
        "vies": {
            "btw_nummer": customer.vies_btw_nummer,
            "status": customer.vies_status,
            "naam": customer.vies_naam,
            "gecontroleerd_op": iso(customer.vies_gecontroleerd_op),
        }
        if customer.vies_status
        else None,
        "opmerkingen": customer.opmerkingen,
        "actief": customer.actief,
        "created_at": iso(customer.created_at),
        "updated_at": iso(customer.updated_at),
        "locaties": [serialize_place(place) for place in places],
    }


class CustomerQuery(BaseModel):
    """Query of GET /klanten: ordered by naam."""

    model_config = ConfigDict(extra="forbid")

    q: str | None = Field(
        default=None,
        max_length=100,
        description="text in naam or debiteurnummer, or in the stad of one of its places",
    )
    actief: bool | None = Field(default=None, description="true: active only; false: inactive")
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


class _InvoicingFields(InModel):
    """A customer's invoice address, identifiers and VAT treatment (rules.INVOICING_FIELDS)."""

    factuur_adres: str | None = Field(default=None, max_length=200)
    factuur_postcode: str | None = Field(default=None, max_length=16)
    factuur_plaats: str | None = Field(default=None, max_length=100)
    factuur_land: str | None = Field(
        default=None, max_length=2, description="ISO 3166-1 alpha-2 (EN 16931's list)"
    )
    kvk_nummer: str | None = Field(default=None, max_length=20, description="8 digits")
    gln: str | None = Field(default=None, max_length=20, description="13 digits")
    peppol_id: str | None = Field(
        default=None, max_length=100, description="scheme:id, e.g. 0106:12345678"
    )
    btw_categorie: Literal["S", "Z", "E", "AE", "O"] | None = Field(
        default=None,
        description="AE: reverse charge (a business in another EU country, with its VAT "
        "number); O: not subject to VAT (a business outside the EU); Z, E with a reason; "
        "null: each tariff's category holds",
    )
    btw_vrijstellingsreden: str | None = Field(default=None, max_length=300)


class CustomerIn(_InvoicingFields):
    """A new customer; only naam is required."""

    model_config = ConfigDict(title="CreateCustomerBody")

    naam: str = Field(min_length=1, max_length=200)
    debiteurnummer: str | None = Field(default=None, max_length=50)
    btw_nummer: str | None = Field(default=None, max_length=20, description=VAT)
    factuur_email: str | None = Field(default=None, max_length=254)
    opmerkingen: str | None = Field(default=None, max_length=2000)


class CustomerUpdate(_InvoicingFields):
    """The fields to change; omitted fields stay. `actief: false` deactivates the customer."""

    model_config = ConfigDict(title="UpdateCustomerBody")

    naam: str | None = Field(default=None, min_length=1, max_length=200, json_schema_extra=not_null)
    debiteurnummer: str | None = Field(default=None, max_length=50)
    btw_nummer: str | None = Field(default=None, max_length=20, description=VAT)
    factuur_email: str | None = Field(default=None, max_length=254)
    opmerkingen: str | None = Field(default=None, max_length=2000)
    actief: bool | None = Field(default=None, json_schema_extra=not_null)

    @field_validator("naam", "actief")
    @classmethod
    def _not_null(cls, value):
        if value is None:  # sent as null: left out, the field would stay
            raise ValueError("cannot be null")
        return value


class _PlaceFields(InModel):
    adres: str | None = Field(default=None, max_length=200)
    postcode: str | None = Field(default=None, max_length=16)
    stad: str | None = Field(default=None, max_length=100)
    locatie_lat: float | None = Latitude
    locatie_lng: float | None = Longitude
    openingstijden: str | None = Field(default=None, max_length=500)
    contactpersoon: str | None = Field(default=None, max_length=200)
    telefoon: str | None = Field(default=None, max_length=50)
    opmerkingen: str | None = Field(
        default=None, max_length=2000, description="remarks for the driver"
    )


class PlaceIn(_PlaceFields):
    """A new place of the customer; coordinates both or neither."""

    model_config = ConfigDict(title="CreateCustomerPlaceBody")

    naam: str = Field(min_length=1, max_length=200, description="e.g. Erf Enter")
    soort: Soort = "beide"  # type: ignore[valid-type]
    land: str = Field(default="NL", pattern=r"^[A-Za-z]{2}$", description="ISO 3166 code")


class PlaceUpdate(_PlaceFields):
    """The fields to change; omitted fields stay. Coordinates stay both or neither."""

    model_config = ConfigDict(title="UpdateCustomerPlaceBody")

    naam: str | None = Field(default=None, min_length=1, max_length=200, json_schema_extra=not_null)
    soort: Soort | None = Field(default=None, json_schema_extra=not_null)  # type: ignore[valid-type]
    land: str | None = Field(default=None, pattern=r"^[A-Za-z]{2}$", json_schema_extra=not_null)

    @field_validator("naam", "soort", "land")
    @classmethod
    def _not_null(cls, value):
        if value is None:
            raise ValueError("cannot be null")
        return value
