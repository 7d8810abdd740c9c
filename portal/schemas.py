"""Pydantic building blocks shared by every domain's JSON schemas."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainSerializer

from portal.types import iso

EARLIEST_YEAR, LATEST_YEAR = 1900, 2999


def in_range(value: date) -> date:
    """Dates and times the product can reason about; the calendar's edges overflow."""
    if not EARLIEST_YEAR <= value.year <= LATEST_YEAR:
        raise ValueError(f"year must be between {EARLIEST_YEAR} and {LATEST_YEAR}")
    return value


def _aware_utc(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("timestamp needs a time zone, e.g. 2026-11-21T08:30:00.000Z")
    in_range(value)
    return value.astimezone(UTC)


Timestamp = Annotated[
    datetime,
    AfterValidator(_aware_utc),
    PlainSerializer(iso, return_type=str, when_used="json"),
    Field(json_schema_extra={"format": "date-time", "examples": ["2026-11-21T08:30:00.000Z"]}),
]


class InModel(BaseModel):
    """A request body: unknown fields are refused, so a typo never goes unnoticed."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class OutModel(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class FieldError(BaseModel):
    field: str
    message: str
    # A stable code (and, where the message has values, its params) for clients that word it.
    code: str | None = None
    reason: str | None = None
    params: dict[str, Any] | None = None


class Problem(BaseModel):
    """An RFC 9457 problem document."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str | None = None
    errors: list[FieldError] | None = None
    allowed: list[str] | None = None

    model_config = ConfigDict(extra="allow")


JSONValue = Any
