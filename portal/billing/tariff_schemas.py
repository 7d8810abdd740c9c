"""JSON shapes of tariffs. Amounts travel as decimal strings ("4.35", "0.0450"), never as
JSON numbers: a number a client's JSON library turns into a binary float is not exact."""

from __future__ import annotations

import re
import uuid
from datetime import date
from decimal import Decimal
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    WithJsonSchema,
    field_validator,
)
from pydantic_core import PydanticCustomError

from portal.billing import pricing
from portal.billing.models import Tariff
from portal.schemas import InModel, Timestamp, in_range, not_null
from portal.types import iso

# Digits with an optional point and decimals. A leading minus is read, so that the service
# answers "between 0 and ..." (out_of_range) rather than a pattern; the range and the number
# of decimals are the service's rules (too_many_decimals), told with their code.
_AMOUNT = re.compile(r"-?[0-9]{1,20}(?:\.[0-9]{1,20})?")
AMOUNT_TEXT = 'a decimal string with a point, e.g. "4.35"'


def _amount(value: Any) -> Decimal:
    if isinstance(value, str):
        text = value.strip()
        if _AMOUNT.fullmatch(text):
            return Decimal(text)
        raise PydanticCustomError("decimal_string", f"not an amount: send {AMOUNT_TEXT}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise PydanticCustomError(
            "decimal_string",
            f"an amount is {AMOUNT_TEXT}, not a JSON number (which may not be exact)",
        )
    raise PydanticCustomError("decimal_string", f"an amount is {AMOUNT_TEXT}")


def _amount_schema(places: int, example: str) -> dict:
    return {
        "type": "string",
        "pattern": rf"^[0-9]{{1,8}}(\.[0-9]{{1,{places}}})?$",
        "examples": [example],
    }


def _amount_type(places: int, example: str) -> Any:
    return Annotated[
        Decimal,
        PlainValidator(_amount),
        WithJsonSchema(_amount_schema(places, example), mode="validation"),
    ]


Price = _amount_type(4, "0.0450")
Money = _amount_type(2, "75.50")
Percent = _amount_type(2, "21")
Day = Annotated[date, AfterValidator(in_range)]
ActivityType = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[a-z0-9_-]+$")]

KLANT = "the customer's id; null (or left out): the carrier's default for the activity type"
EENHEID = (
    "with grondslag eenheid, the unit the price is for, as tasks name it (ton, m3); "
    "required there (code required), ignored (stored null) with another basis"
)
GRONDSLAG = "what the price is per: eenheid (unit of the task), vracht (load), uur (hour), km"
GELDIG = "the day the tariff holds from; a newer one of the same owner and type takes over"
PRIJS = "price per unit of the basis, excluding VAT, at most 4 decimals (0 to 99999999)"
MINIMUM = "the least a line costs, excluding VAT; null: no minimum"
VRIJ = "waiting minutes that cost nothing (0 to 1440)"
PER_UUR = "waiting time beyond the free minutes, per hour; null: waiting is not charged"
WEEKEND = "surcharge on Saturdays and Sundays, a percentage of the base (0 to 999.99); null: none"
BTW = (
    "VAT percentage (0 to 100): above 0 with btw_categorie S, 0 with the others "
    "(code vat_rate_category)"
)
CATEGORIE = (
    "the VAT category of EN 16931 the lines are invoiced under: S standard rated, Z zero "
    "rated, E exempt, AE reverse charge (btw verlegd), O not subject to VAT"
)
REDEN = (
    'the exemption reason the invoice carries (EN 16931 BT-120), e.g. "Btw verlegd": '
    "required with btw_categorie E, AE and O (code required); with Z the evidence of the zero "
    "rate (e.g. the export's MRN), required too and printed as the line's note (BR-Z-10 allows "
    "no exemption reason there); ignored (stored null) with S"
)
AFRONDING = (
    "with grondslag uur: the recorded time is billed per this many minutes, rounded up: one of "
    "1, 5, 6, 10, 15, 30, 60 (code not_allowed); 1 bills to the minute. Stored 1 with "
    "another basis"
)
MINIMUM_MINUTEN = (
    "with grondslag uur: the least time billed, in minutes (0 to 1440). Stored 0 with another basis"
)


def _fixed(value: Any, places: int) -> str | None:
    """An amount at its column's scale, as a decimal string: 4.35 per unit reads "4.3500"."""
    if value is None:
        return None
    return format(pricing.decimal(value).quantize(Decimal(1).scaleb(-places)), "f")


class TariffOut(BaseModel):
    """A tariff: the carrier's default (klant_id null) or a customer's own, for one activity
    type from a day on. Amounts are decimal strings at their stored scale: prijs with 4
    decimals, the other amounts and percentages with 2."""

    model_config = ConfigDict(title="Tariff")

    id: uuid.UUID
    transporteur_id: uuid.UUID
    klant_id: uuid.UUID | None = Field(description="the customer's id; null: the carrier's default")
    activity_type: str
    geldig_vanaf: date = Field(description=GELDIG)
    grondslag: pricing.Basis = Field(description=GRONDSLAG)
    eenheid: str | None = Field(description="with grondslag eenheid: the unit the price is for")
    prijs: str = Field(
        description="price per unit of the basis, excluding VAT", examples=["4.3500"]
    )
    minimum: str | None = Field(description=MINIMUM, examples=["75.00"])
    wachttijd_vrij_minuten: int = Field(description=VRIJ)
    wachttijd_per_uur: str | None = Field(description=PER_UUR, examples=["45.00"])
    weekend_toeslag_procent: str | None = Field(description=WEEKEND, examples=["25.00"])
    btw_procent: str = Field(description=BTW, examples=["21.00"])
    btw_categorie: pricing.VatCategory = Field(description=CATEGORIE)
    btw_vrijstellingsreden: str | None = Field(description=REDEN)
    afronding_minuten: int = Field(description=AFRONDING, examples=[15])
    minimum_minuten: int = Field(description=MINIMUM_MINUTEN, examples=[60])
    created_at: Timestamp
    updated_at: Timestamp | None


def serialize_tariff(tariff: Tariff) -> dict:
    return {
        "id": str(tariff.id),
        "transporteur_id": str(tariff.transporteur_id),
        "klant_id": str(tariff.klant_id) if tariff.klant_id else None,
        "activity_type": tariff.activity_type,
        "geldig_vanaf": tariff.geldig_vanaf.isoformat(),
        "grondslag": tariff.grondslag,
        "eenheid": tariff.eenheid,
        "prijs": _fixed(tariff.prijs, 4),
        "minimum": _fixed(tariff.minimum, 2),
        "wachttijd_vrij_minuten": tariff.wachttijd_vrij_minuten,
        "wachttijd_per_uur": _fixed(tariff.wachttijd_per_uur, 2),
        "weekend_toeslag_procent": _fixed(tariff.weekend_toeslag_procent, 2),
        "btw_procent": _fixed(tariff.btw_procent, 2),
        "btw_categorie": tariff.btw_categorie,
        "btw_vrijstellingsreden": tariff.btw_vrijstellingsreden,
        "afronding_minuten": tariff.afronding_minuten,
        "minimum_minuten": tariff.minimum_minuten,
        "created_at": iso(tariff.created_at),
        "updated_at": iso(tariff.updated_at),
    }


class TariffQuery(BaseModel):
    """Query of GET /tarieven: the defaults first, then by customer; per activity type the
    newest first. Every filter narrows."""

    model_config = ConfigDict(extra="forbid")

    klant_id: uuid.UUID | None = Field(default=None, description="that customer's own tariffs")
    activity_type: ActivityType | None = Field(default=None, description="e.g. mest_laden")
    standaard: bool | None = Field(
        default=None,
        description="true: the carrier's defaults only (klant_id null); false: customers' own",
    )
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


class TariffIn(InModel):
    """A new tariff. Amounts are decimal strings ("4.35"); a JSON number is refused."""

    model_config = ConfigDict(title="CreateTariffBody")

    klant_id: uuid.UUID | None = Field(default=None, description=KLANT)
    activity_type: ActivityType = Field(description="the tasks' activity type, e.g. mest_laden")
    geldig_vanaf: Day = Field(description=GELDIG)
    grondslag: pricing.Basis = Field(description=GRONDSLAG)
    eenheid: str | None = Field(default=None, max_length=20, description=EENHEID)
    prijs: Price = Field(description=PRIJS)
    minimum: Money | None = Field(default=None, description=MINIMUM)
    wachttijd_vrij_minuten: int = Field(default=0, ge=0, le=1440, description=VRIJ)
    wachttijd_per_uur: Money | None = Field(default=None, description=PER_UUR)
    weekend_toeslag_procent: Percent | None = Field(default=None, description=WEEKEND)
    btw_procent: Percent = Field(default=Decimal(21), description=BTW + "; 21 by default")
    btw_categorie: pricing.VatCategory = Field(
        default="S", description=CATEGORIE + "; S by default"
    )
    btw_vrijstellingsreden: str | None = Field(default=None, max_length=300, description=REDEN)
    afronding_minuten: int = Field(default=1, description=AFRONDING + "; 1 by default")
    minimum_minuten: int = Field(default=0, ge=0, le=1440, description=MINIMUM_MINUTEN)


# Fields of a tariff that it always has: a change may leave them out, not send them as null.
REQUIRED = (
    "activity_type",
    "geldig_vanaf",
    "grondslag",
    "prijs",
    "wachttijd_vrij_minuten",
    "btw_procent",
    "btw_categorie",
    "afronding_minuten",
    "minimum_minuten",
)


class TariffUpdate(InModel):
    """The fields to change; omitted fields stay. The whole tariff is checked again."""

    model_config = ConfigDict(title="UpdateTariffBody")

    klant_id: uuid.UUID | None = Field(default=None, description=KLANT)
    activity_type: ActivityType | None = Field(default=None, json_schema_extra=not_null)
    geldig_vanaf: Day | None = Field(default=None, description=GELDIG, json_schema_extra=not_null)
    grondslag: pricing.Basis | None = Field(
        default=None, description=GRONDSLAG, json_schema_extra=not_null
    )
    eenheid: str | None = Field(default=None, max_length=20, description=EENHEID)
    prijs: Price | None = Field(default=None, description=PRIJS, json_schema_extra=not_null)
    minimum: Money | None = Field(default=None, description=MINIMUM)
    wachttijd_vrij_minuten: int | None = Field(
        default=None, ge=0, le=1440, description=VRIJ, json_schema_extra=not_null
    )
    wachttijd_per_uur: Money | None = Field(default=None, description=PER_UUR)
    weekend_toeslag_procent: Percent | None = Field(default=None, description=WEEKEND)
    btw_procent: Percent | None = Field(default=None, description=BTW, json_schema_extra=not_null)
    btw_categorie: pricing.VatCategory | None = Field(
        default=None, description=CATEGORIE, json_schema_extra=not_null
    )
    btw_vrijstellingsreden: str | None = Field(default=None, max_length=300, description=REDEN)
    afronding_minuten: int | None = Field(
        default=None, description=AFRONDING, json_schema_extra=not_null
    )
    minimum_minuten: int | None = Field(
        default=None, ge=0, le=1440, description=MINIMUM_MINUTEN, json_schema_extra=not_null
    )

    @field_validator(*REQUIRED)
    @classmethod
    def _not_null(cls, value):
        if value is None:  # sent as null: left out, the field would stay
            raise ValueError("cannot be null")
        return value
