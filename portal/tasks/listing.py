"""Tasks: reading selections of them, for the board, the API's lists and the driver's poll.

`service` re-exports what is public here: callers keep asking the tasks service."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from sqlalchemy import (
    Date,
    Integer,
    Select,
    String,
    Uuid,
    and_,
    bindparam,
    cast,
    func,
    null,
    or_,
    select,
)

from portal import reads
from portal.accounts.service import carrier_zone
from portal.extensions import db
from portal.fleet import couplings
from portal.questionnaires import service as questionnaires
from portal.tasks.combinations import plates_of_tasks
from portal.tasks.models import OPEN_STATUSES, Task
from portal.tasks.schemas import (
    COMBINATION_FIELDS,
    TASK_FIELDS,
    TASK_TIME_FIELDS,
    VRAGENPAD_INDEX,
    serialize_task_rows,
)
from portal.types import UTCDateTime, period_bound


@dataclass(frozen=True)
class TaskFilters:
    """A selection of tasks. `default_window` selects the open tasks plus today's completed."""

    chauffeur_id: uuid.UUID | None = None
    unassigned: bool = False  # only tasks without a driver
    vehicle_id: uuid.UUID | None = None
    types: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    van: date | datetime | None = None
    tot: date | datetime | None = None
    search: str | None = None
    default_window: bool = False
    limit: int = 100
    offset: int = 0


@dataclass(frozen=True)
class TaskPage:
    tasks: list[Task]
    total: int
    definitions: dict[uuid.UUID, str]
    plates: dict[uuid.UUID, tuple] = field(default_factory=dict)  # their combinations


_moment = period_bound


def _where(carrier_id: uuid.UUID, filters: TaskFilters, zone: ZoneInfo) -> list:
    return _where_shape(filters, _filter_values(carrier_id, filters, zone))


def _filter_values(carrier_id: uuid.UUID, filters: TaskFilters, zone: ZoneInfo) -> dict:
    """The values of a selection's bind parameters (by their names in _where_shape)."""
    values: dict = {"tid": carrier_id}
    if filters.chauffeur_id is not None:
        values["cid"] = filters.chauffeur_id
    if filters.vehicle_id is not None:
        values["vid"] = filters.vehicle_id
    if filters.van is not None:
        values["van"] = _moment(filters.van, zone, end=False)
    if filters.tot is not None:
        values["tot"] = _moment(filters.tot, zone, end=True)
    if filters.search:
        values["pattern"] = f"%{filters.search.lower()}%"
    if filters.default_window:
        today = datetime.now(zone).date()
        values["day_start"] = datetime.combine(today, time(0), tzinfo=zone).astimezone(UTC)
    return values


def _where_shape(filters: TaskFilters, values: dict) -> list:
    """A selection's conditions with named bind parameters holding values: the same shape
    of filters gives the same SQL, whatever the values (the driver's poll compiles it once,
    without values, and passes them by name)."""

    def value(name: str, type_):
        return bindparam(name, values.get(name), type_=type_, required=False)

    where = [
        Task.transporteur_id == value("tid", Uuid),
        Task.gearchiveerd_op.is_(None),
    ]
    if filters.chauffeur_id is not None:
        where.append(Task.chauffeur_id == value("cid", Uuid))
    if filters.unassigned:
        where.append(Task.chauffeur_id.is_(None))
    if filters.vehicle_id is not None:
        where.append(Task.vehicle_id == value("vid", Uuid))
    if filters.types:
        where.append(Task.type.in_(filters.types))
    if filters.statuses:
        where.append(Task.status.in_(filters.statuses))
    if filters.van is not None:
        where.append(Task.gepland_op >= value("van", UTCDateTime))
    if filters.tot is not None:
        where.append(Task.gepland_op < value("tot", UTCDateTime))
    if filters.search:
        pattern = value("pattern", String)
        where.append(
            or_(
                func.lower(Task.naam).like(pattern),
                func.lower(Task.adres).like(pattern),
                func.lower(Task.stad).like(pattern),
                func.lower(Task.vdm_nummer).like(pattern),
            )
        )
    if filters.default_window:
        where.append(
            or_(
                Task.status.in_(OPEN_STATUSES),
                and_(
                    Task.status == "afgerond",
                    Task.afgerond_op >= value("day_start", UTCDateTime),
                ),
            )
        )
    return where


def _ordered(stmt: Select) -> Select:
    return stmt.order_by(Task.gepland_op.asc().nulls_last(), Task.created_at, Task.id)


# --- the driver's poll: one small query decides, plain rows build ------------------------


def _shape_key(filters: TaskFilters) -> tuple:
    return (
        filters.chauffeur_id is not None,
        filters.unassigned,
        filters.vehicle_id is not None,
        filters.types,
        filters.statuses,
        filters.van is not None,
        filters.tot is not None,
        bool(filters.search),
        filters.default_window,
    )


_statements: dict[tuple, tuple[Select, Select]] = {}


def _poll_statements(filters: TaskFilters, dialect: str) -> tuple[Select, Select]:
    """The fingerprint and the rows of a shape of selection, built once per process (the
    same statement objects, so reads.read compiles them once)."""
    key = (_shape_key(filters), dialect)
    found = _statements.get(key)
    if found is None:
        if len(_statements) >= 256:
            _statements.clear()
        found = _statements[key] = _build_poll_statements(filters, dialect)
    return found


def _build_poll_statements(filters: TaskFilters, dialect: str) -> tuple[Select, Select]:
    """On PostgreSQL the timestamps come formatted as the API writes them (to_char), so no
    row goes through Python's datetime on the way to the answer."""
    where = _where_shape(filters, {})
    # A coupling made or ended, or a vehicle changed, changes the plates the tasks list.
    marks = couplings.change_marks(bindparam("tid", type_=Uuid, required=False))
    fingerprint = select(func.count(), func.max(Task.updated_at), *marks).where(*where)
    combination = dict(zip(COMBINATION_FIELDS, _combination_columns(dialect), strict=True))
    columns = []
    for name in TASK_FIELDS:
        if name in COMBINATION_FIELDS:
            columns.append(combination[name].label(name))
        elif name == "vragenpad":
            columns.append(Task.activity_questionnaire_id)
        elif name in TASK_TIME_FIELDS and dialect == "postgresql":
            columns.append(func.to_char(func.timezone("UTC", getattr(Task, name)), _ISO_FORMAT))
        else:
            columns.append(getattr(Task, name))
    rows = (
        _ordered(select(*columns).where(*where))
        .limit(bindparam("limit", type_=Integer, required=False))
        .offset(bindparam("offset", type_=Integer, required=False))
    )
    return fingerprint, rows


_ISO_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'  # iso(): UTC, milliseconds (truncated), Z


def _combination_columns(dialect: str) -> tuple:
    """A task's combination as columns of the poll's rows: on PostgreSQL read in the same
    round trip (the day in the carrier's zone, bound as `zone`); elsewhere nulls that
    TaskListing.body() fills in (tasks/combinations.py, as the ORM path does)."""
    if dialect != "postgresql":
        return (null(),) * len(COMBINATION_FIELDS)
    zone = bindparam("zone", type_=String, required=False)
    return couplings.combination_columns(
        carrier=Task.transporteur_id,
        vehicle_id=Task.vehicle_id,
        task_id=Task.id,
        day=cast(func.timezone(zone, Task.gepland_op), Date),
    )


@dataclass(frozen=True)
class TaskListing:
    """A selection of tasks read for the API the fast way: `fingerprint` (the ETag and the
    total: one aggregate over an index) and `rows` (plain tuples in the seed's field order)
    are two statements for reads.read(); `body` serialises rows without ORM objects."""

    carrier_id: uuid.UUID
    filters: TaskFilters
    fingerprint: reads.Query
    rows: reads.Query
    today: date

    @classmethod
    def of(cls, *, carrier_id: uuid.UUID, filters: TaskFilters) -> TaskListing:
        zone = carrier_zone(carrier_id)
        values = _filter_values(carrier_id, filters, zone)
        fingerprint, rows = _poll_statements(filters, db.engine.dialect.name)
        return cls(
            carrier_id,
            filters,
            reads.Query(fingerprint, values),
            reads.Query(
                rows,
                {**values, "limit": filters.limit, "offset": filters.offset, "zone": zone.key},
            ),
            datetime.now(zone).date(),
        )

    def etag(self, fingerprint_rows: list[tuple]) -> tuple[str, int]:
        """The list's ETag and total, from the fingerprint's one row."""
        count, latest, *marks = fingerprint_rows[0]
        basis = f"{self.filters}|{count}|{latest}|{marks}|{self.today}"
        return hashlib.sha256(basis.encode()).hexdigest()[:32], count

    def body(self, rows: list[tuple]) -> bytes:
        """The JSON array of the rows, each pinned questionnaire spliced in as stored."""
        definitions = questionnaires.definition_bytes(
            carrier_id=self.carrier_id, revision_ids={row[VRAGENPAD_INDEX] for row in rows}
        )
        if db.engine.dialect.name == "postgresql":  # the combinations came with the rows
            return serialize_task_rows(rows, definitions, times_as_text=True)
        plates = plates_of_tasks(carrier_id=self.carrier_id, tasks=_slot_rows(rows))
        return serialize_task_rows(rows, definitions, times_as_text=False, plates=plates)


_SLOT_INDEX = {name: TASK_FIELDS.index(name) for name in ("vehicle_id", "gepland_op", "type")}
_SLOT_INDEX["duur_min"] = TASK_FIELDS.index("duur_min")


def _slot_rows(rows: list[tuple]) -> list[SimpleNamespace]:
    """The rows with a vehicle as what combinations need of a task (id, vehicle_id,
    gepland_op, type, duur_min)."""
    found = []
    for row in rows:
        values = {name: row[i] for name, i in _SLOT_INDEX.items()}
        if values["vehicle_id"] is not None:
            found.append(SimpleNamespace(id=row[0], **values))
    return found


def list_tasks(
    *,
    carrier_id: uuid.UUID,
    filters: TaskFilters,
    total: int | None = None,
    with_definitions: bool = True,
) -> TaskPage:
    """One page of tasks with their questionnaire definitions and their vehicle combinations
    (plates): five queries at most."""
    zone = carrier_zone(carrier_id)
    where = _where(carrier_id, filters, zone)
    if total is None:
        total = db.session.scalar(select(func.count()).select_from(Task).where(*where)) or 0
    tasks = list(
        db.session.scalars(
            _ordered(select(Task).where(*where)).limit(filters.limit).offset(filters.offset)
        )
    )
    definitions = definitions_for(carrier_id=carrier_id, tasks=tasks) if with_definitions else {}
    plates = plates_of_tasks(carrier_id=carrier_id, tasks=tasks)
    return TaskPage(tasks, total, definitions, plates)


def definitions_for(*, carrier_id: uuid.UUID, tasks: list[Task]) -> dict[uuid.UUID, str]:
    """The questionnaire text pinned by each of tasks, each distinct revision once."""
    return questionnaires.definitions(
        carrier_id=carrier_id, revision_ids={t.activity_questionnaire_id for t in tasks}
    )
