"""Tasks: the only door to the taken table."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import Select, and_, func, or_, select

from portal.accounts.service import carrier_zone
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.fleet.models import Vehicle
from portal.questionnaires import service as questionnaires
from portal.tasks.models import OPEN_STATUSES, STATUSES, Task
from portal.types import utcnow


@dataclass(frozen=True)
class TaskFilters:
    """A selection of tasks. `default_window` selects the open tasks plus today's completed."""

    chauffeur_id: uuid.UUID | None = None
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


def _moment(value: date | datetime, zone: ZoneInfo, *, end: bool) -> datetime:
    """A filter bound as a UTC instant; a date means its whole day in the carrier's zone."""
    if isinstance(value, datetime):
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=zone).astimezone(UTC)
    day = value + timedelta(days=1) if end else value
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def _where(carrier_id: uuid.UUID, filters: TaskFilters, zone: ZoneInfo) -> list:
    where = [Task.transporteur_id == carrier_id]
    if filters.chauffeur_id is not None:
        where.append(Task.chauffeur_id == filters.chauffeur_id)
    if filters.statuses:
        where.append(Task.status.in_(filters.statuses))
    if filters.van is not None:
        where.append(Task.gepland_op >= _moment(filters.van, zone, end=False))
    if filters.tot is not None:
        where.append(Task.gepland_op < _moment(filters.tot, zone, end=True))
    if filters.search:
        pattern = f"%{filters.search.lower()}%"
        where.append(
            or_(
                func.lower(Task.naam).like(pattern),
                func.lower(Task.adres).like(pattern),
                func.lower(Task.stad).like(pattern),
                func.lower(Task.vdm_nummer).like(pattern),
            )
        )
    if filters.default_window:
        today = datetime.now(zone).date()
        start_of_day = datetime.combine(today, time(0), tzinfo=zone).astimezone(UTC)
        where.append(
            or_(
                Task.status.in_(OPEN_STATUSES),
                and_(Task.status == "afgerond", Task.afgerond_op >= start_of_day),
            )
        )
    return where


def _ordered(stmt: Select) -> Select:
    return stmt.order_by(Task.gepland_op.asc().nulls_last(), Task.created_at, Task.id)


def list_fingerprint(*, carrier_id: uuid.UUID, filters: TaskFilters) -> tuple[str, int]:
    """A cheap ETag and the total of a selection: one aggregate query, no rows built."""
    zone = carrier_zone(carrier_id)
    count, latest = db.session.execute(
        select(func.count(), func.max(Task.updated_at)).where(*_where(carrier_id, filters, zone))
    ).one()
    basis = f"{filters}|{count}|{latest}|{datetime.now(zone).date()}"
    return hashlib.sha256(basis.encode()).hexdigest()[:32], count


def list_tasks(
    *, carrier_id: uuid.UUID, filters: TaskFilters, total: int | None = None
) -> TaskPage:
    """One page of tasks with their questionnaire definitions: three queries at most."""
    zone = carrier_zone(carrier_id)
    where = _where(carrier_id, filters, zone)
    if total is None:
        total = db.session.scalar(select(func.count()).select_from(Task).where(*where)) or 0
    tasks = list(
        db.session.scalars(
            _ordered(select(Task).where(*where)).limit(filters.limit).offset(filters.offset)
        )
    )
    return TaskPage(tasks, total, definitions_for(carrier_id=carrier_id, tasks=tasks))


def definitions_for(*, carrier_id: uuid.UUID, tasks: list[Task]) -> dict[uuid.UUID, str]:
    """The questionnaire text pinned by each of tasks, each distinct revision once."""
    return questionnaires.definitions(
        carrier_id=carrier_id, revision_ids={t.activity_questionnaire_id for t in tasks}
    )


def create_task(
    *, carrier_id: uuid.UUID, chauffeur_id: uuid.UUID | None, data: dict, actor: Actor
) -> Task:
    """A new task in status gepland; it pins the active questionnaire of its type."""
    vehicle_id = data.get("vehicle_id")
    if vehicle_id is not None and not db.session.scalar(
        select(Vehicle.id).where(Vehicle.transporteur_id == carrier_id, Vehicle.id == vehicle_id)
    ):
        raise ValidationFailed([{"field": "vehicle_id", "message": "no such vehicle"}])
    revision = questionnaires.active_for_type(carrier_id=carrier_id, activity_type=data["type"])
    task = Task(
        transporteur_id=carrier_id,
        chauffeur_id=chauffeur_id,
        status="gepland",
        activity_questionnaire_id=revision.id if revision else None,
        **data,
    )
    now = utcnow()
    task.created_at = now
    task.updated_at = now
    db.session.add(task)
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="task",
        entity_id=task.id,
        action="created",
        changes={"status": [None, "gepland"], "chauffeur_id": [None, chauffeur_id]},
    )
    return task


def get_task(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> Task:
    task = db.session.scalar(
        select(Task).where(Task.transporteur_id == carrier_id, Task.id == task_id)
    )
    if task is None:
        raise NotFound("task not found")
    return task


def parse_statuses(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    statuses = tuple(dict.fromkeys(s.strip() for s in value.split(",") if s.strip()))
    unknown = [s for s in statuses if s not in STATUSES]
    if unknown:
        raise ValidationFailed([{"field": "status", "message": f"unknown status {unknown[0]!r}"}])
    return statuses
