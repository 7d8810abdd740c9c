"""The hours' refusals (with a `code` and `params` the portal words) and the small checks
every change of a work day or activity makes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.exc import IntegrityError

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import Conflict, DomainError, ValidationFailed
from portal.extensions import db
from portal.hours.models import Activity, WorkDay
from portal.types import Expected, version_stale, versions_text

FUTURE_SLACK = timedelta(minutes=5)  # a phone's clock may run a little ahead
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
TEXT_MAX = 2000
REDEN_MAX = 1000


class PreconditionFailed(DomainError):
    """The If-Match ETag is stale: someone changed the work day or activity meanwhile."""

    status = 412
    title = "Precondition failed"


class HoursConflict(Conflict):
    """A clash with other hours (overlap, a running day, an approved week)."""

    def __init__(self, detail: str, *, code: str, params: dict | None = None, **extra):
        super().__init__(detail, code=code, **extra)  # the API's problem carries the code
        self.code = code
        self.params = params or {}


class HoursInvalid(ValidationFailed):
    """A value that breaks a rule of hours, at one field."""

    def __init__(self, field_: str, message: str, *, code: str, params: dict | None = None):
        super().__init__([{"field": field_, "message": message}])
        self.field = field_
        self.code = code
        self.params = params or {}


def etag_of(row: WorkDay | Activity) -> str:
    return f'"{row.versie}"'


def local_text(moment: datetime, zone) -> str:
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M")


def clean_text(field_: str, value: str | None, limit: int = TEXT_MAX) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if len(value) > limit:
        raise HoursInvalid(field_, f"at most {limit} characters", code="te_lang_tekst")
    return value or None


def check_moment(field_: str, value: datetime, now: datetime) -> None:
    if value.tzinfo is None:
        raise HoursInvalid(field_, "needs a time zone", code="tijdzone")
    if value < EARLIEST:
        raise HoursInvalid(field_, "before the year 2000", code="te_vroeg")
    if value > now + FUTURE_SLACK:
        raise HoursInvalid(field_, "lies in the future", code="toekomst")


def flush_or(conflict: HoursConflict) -> None:
    """Flush; a clash the database finds (a request at the same moment) is conflict."""
    try:
        with db.session.begin_nested():
            db.session.flush()
    except IntegrityError:
        raise conflict from None


def racing() -> HoursConflict:
    return HoursConflict(
        "Another change to this driver's hours was saved at the same moment and clashes with "
        "this one; load the hours again and retry.",
        code="tegelijk",
    )


def check_version(row, expected: Expected, what: str) -> None:
    if version_stale(row.versie, expected):
        raise PreconditionFailed(
            f"The {what} changed meanwhile (version {row.versie}, you sent "
            f"{versions_text(expected)}).",
            etag=etag_of(row),
        )


def apply_changes(row, values: dict) -> dict:
    """Set on row the values that differ from its own; what changed as {name: [old, new]}."""
    changes = {}
    for name, value in values.items():
        if getattr(row, name) != value:
            changes[name] = [getattr(row, name), value]
            setattr(row, name, value)
    return changes


def record_update(*, carrier_id, actor: Actor, entity: str, row, changes: dict) -> None:
    """Write a changed row (a concurrent change is refused as `tegelijk`) with what changed in
    the audit trail; nothing when nothing changed."""
    if changes:
        flush_or(racing())
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity=entity,
            entity_id=row.id,
            action="updated",
            changes=changes,
        )
