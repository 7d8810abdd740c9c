"""Pydantic building blocks shared by every domain's JSON schemas."""

from __future__ import annotations

import uuid
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


def not_null(schema: dict[str, Any]) -> None:
    """json_schema_extra of an optional request field that may be left out but not sent as
    null (its model refuses null): the field's schema without the null branch."""
    branches = schema.pop("anyOf", None)
    if branches is None:
        return
    kept = [branch for branch in branches if branch != {"type": "null"}]
    if len(kept) == 1:
        schema.update(kept[0])
    else:
        schema["anyOf"] = kept


def _country(value: str) -> str:
    from portal.countries import is_country

    if not is_country(value):
        raise ValueError("not an ISO 3166-1 alpha-2 country code (EN 16931 code list)")
    return value


CountryCode = Annotated[
    str,
    Field(pattern=r"^[A-Z0-9]{2}$", examples=["NL"]),
    AfterValidator(_country),
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


def _extension(description: str) -> Any:
    """An optional problem member: left out where it does not apply, never null."""
    return Field(default=None, description=description, json_schema_extra=not_null)


class Problem(BaseModel):
    """An RFC 9457 problem document. Beside the standard members, some answers carry
    extension members saying more; each is left out where it does not apply."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str | None = _extension("This occurrence in plain words.")
    code: str | None = _extension(
        "409 where a stable code says more than the type: task_not_completed (a proof of "
        "delivery needs a completed task), already_queued (a webhook delivery waits already), "
        "too_many_endpoints (a carrier has at most 20 webhook endpoints), export_changed (the "
        "billing export's selection changed since its dry run), not_issued (a concept "
        "invoice has no document yet), not_an_invoice (only an invoice is credited), "
        "sjabloon_in_gebruik (a template series are made from), voorstel_niet_klaar, "
        "taken_gewijzigd and regels_geschonden (accepting a planning proposal); 429 "
        "too_many_sends (a carrier's test events and resends of webhook deliveries are limited)."
    )
    codes: list[str] | None = _extension(
        "409 of invoices: what the document lacks before it can be issued, as codes "
        "(seller_no_iban, buyer_address_incomplete, buyer_no_vat_reverse_charge, ...)."
    )
    errors: list[FieldError] | None = _extension(
        "422: each field's problem (`field` names the body field, query parameter or header)."
    )
    allowed: list[str] | None = _extension(
        "409 for a task's status move: the statuses the task may move to from its current "
        "one (for this caller; empty for a cancelled task). Empty for an edit of a closed task."
    )
    current: str | None = _extension(
        "409 for a task's status move or edit, its questionnaire's answers or its proof of "
        "delivery: the task's current status as its code (`gepland`); `detail` names it in "
        "English (planned)."
    )
    to: str | None = _extension(
        "409 for a task's status move: the status asked for, as its code (`afgerond`)."
    )
    etag: str | None = _extension(
        "412 for a task, work day or activity: its current ETag, to read it again by."
    )
    required_scope: str | None = _extension(
        "403 `insufficient-scope`: the scope the API key needs for this operation."
    )
    user_token: str | None = _extension(
        "403 for a driver acting on a colleague: the colleague's user_token."
    )
    reden: str | None = _extension(
        "409 or 422 of a vehicle session: why, in a word (driver_busy, vehicle_in_use, "
        "not_pending, expired, vehicle_inactive, race, ended; for the QR code the reason "
        "the scan was refused)."
    )
    sessie_id: uuid.UUID | None = _extension(
        "409 `driver_busy` or `vehicle_in_use`: the vehicle session already active."
    )
    kenteken: str | None = _extension(
        "409 `driver_busy` or `vehicle_in_use`: the licence plate of that session's vehicle."
    )
    status_sessie: str | None = _extension(
        "409 `not_pending`: the status the vehicle session has instead."
    )
    werkdag_id: uuid.UUID | None = _extension(
        "409 of hours: the driver's work day this one overlaps."
    )
    activiteit_id: uuid.UUID | None = _extension("409 of hours: the activity this one overlaps.")
    soort: str | None = _extension(
        "409 of hours: the kind of the activity this one overlaps, as its code (`rijden`); "
        "`detail` names it in English (driving)."
    )
    week: str | None = _extension(
        "409 of hours: the approved week that holds the change (ISO week, e.g. 2026-W47)."
    )
    answer_session_id: uuid.UUID | None = _extension(
        "409 for answers: the answer session that was already submitted."
    )
    export_id: uuid.UUID | None = _extension(
        "409 `already-billed`: the billing export that holds the task's line."
    )
    limit: int | None = _extension(
        "429 `too_many_sends`: how many test events and resends a carrier may ask for within "
        "`window_seconds` (also in Retry-After: seconds until the next may go)."
    )
    window_seconds: int | None = _extension(
        "429 `too_many_sends`: the window, in seconds, that `limit` counts in."
    )
    reeksen: int | None = _extension(
        "409 `sjabloon_in_gebruik`: how many task series are made from the template."
    )
    taken: list[str] | None = _extension(
        "409 of a planning proposal's acceptance: the ids of the tasks that changed since it "
        "was made (`taken_gewijzigd`) or that would now break a planning rule "
        "(`regels_geschonden`); nothing was accepted."
    )
    status_now: str | None = _extension(
        "409 `voorstel_niet_klaar`: the planning proposal's status instead (queued, running)."
    )
    retry_after_minutes: int | None = _extension(
        "429: minutes to wait before the next sign-in attempt (also in Retry-After, seconds)."
    )

    model_config = ConfigDict(extra="allow")


JSONValue = Any
