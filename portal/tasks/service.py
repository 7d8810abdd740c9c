"""Tasks: the only door to the taken table."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select

from portal import events as webhooks
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.drivers import service as drivers
from portal.english_names import TASK_STATUS, english
from portal.errors import Conflict, DomainError, NotFound, ValidationFailed
from portal.extensions import db
from portal.fleet import service as fleet
from portal.questionnaires import service as questionnaires
from portal.tasks import hooks, route

# Selections of tasks are read in listing.py; callers keep asking this module.
from portal.tasks.listing import TaskFilters as TaskFilters
from portal.tasks.listing import TaskListing as TaskListing
from portal.tasks.listing import TaskPage as TaskPage
from portal.tasks.listing import definitions_for as definitions_for
from portal.tasks.listing import list_tasks as list_tasks
from portal.tasks.models import OPEN_STATUSES, STATUSES, Task, TaskEvidence

# Planning warnings (planning.py); callers keep asking this module.
from portal.tasks.planning import draft_warnings as draft_warnings
from portal.tasks.planning import import_warnings as import_warnings
from portal.tasks.planning import planning_warnings as planning_warnings
from portal.tasks.schemas import serialize_task
from portal.types import Expected, utcnow, version_stale, versions_text


class PreconditionFailed(DomainError):
    """The If-Match ETag is stale: someone changed the task meanwhile."""

    status = 412
    title = "Precondition failed"


def _check_references(carrier_id: uuid.UUID, data: dict) -> None:
    """The driver and vehicle a task names must be the carrier's own (422 at the field)."""
    _check_all_references(carrier_id, [(data.get("chauffeur_id"), data)])


def create_task(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID | None, data: dict, actor: Actor
) -> Task:
    """A new task in status gepland; it pins the active questionnaire of its type."""
    return create_tasks(carrier_id=carrier_id, rows=[(driver_id, data)], actor=actor)[0]


def create_tasks(
    *, carrier_id: uuid.UUID, rows: list[tuple[uuid.UUID | None, dict]], actor: Actor
) -> list[Task]:
    """New tasks in status gepland, checked and written together (a CSV import): drivers and
    vehicles are checked in one query each, each type's questionnaire looked up once."""
    rows = [
        (chauffeur_id, {k: v for k, v in data.items() if k != "chauffeur_id"})
        for chauffeur_id, data in rows
    ]
    _check_all_references(carrier_id, rows)
    rows = _with_routes(carrier_id, rows)
    revisions: dict[str, uuid.UUID | None] = {}
    now = utcnow()
    tasks = []
    for chauffeur_id, data in rows:
        kind = data["type"]
        if kind not in revisions:
            revision = questionnaires.active_for_type(carrier_id=carrier_id, activity_type=kind)
            revisions[kind] = revision.id if revision else None
        task = Task(
            id=uuid.uuid4(),
            transporteur_id=carrier_id,
            chauffeur_id=chauffeur_id,
            status="gepland",
            activity_questionnaire_id=revisions[kind],
            created_at=now,
            updated_at=now,
            **data,
        )
        db.session.add(task)
        tasks.append(task)
        webhooks.emit(
            db.session,
            carrier_id=carrier_id,
            type="taak.aangemaakt",
            subject=task,
            order_key=task.id,
            once_per=task.id,
        )
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="task",
            entity_id=task.id,
            action="created",
            changes={"status": [None, "gepland"], "chauffeur_id": [None, chauffeur_id]},
        )
    db.session.flush()
    return tasks


def _with_routes(carrier_id: uuid.UUID, rows: list[tuple]) -> list[tuple]:
    """The rows with their customer's places filled in (route.py), the main address from
    the route when it has none; ValidationFailed with every row's errors (422 at the
    field; an import's errors name the row)."""
    cache: dict = {}
    out, errors = [], []
    for number, (chauffeur_id, data) in enumerate(rows, start=1):
        found: list[dict] = []
        data = route.resolve(carrier_id=carrier_id, data=data, errors=found, cache=cache)
        if len(rows) > 1:
            found = [{**error, "row": number} for error in found]
        errors.extend(found)
        out.append((chauffeur_id, route.fill_main_address(data)))
    if errors:
        raise ValidationFailed(errors)
    return out


def _check_all_references(carrier_id: uuid.UUID, rows: list[tuple]) -> None:
    """Every driver and vehicle the rows name must be the carrier's own (422 at the field)."""
    driver_ids = {c for c, _ in rows if c is not None}
    vehicle_ids = {d.get("vehicle_id") for _, d in rows} - {None}
    known_drivers = drivers.names_by_id(carrier_id=carrier_id, driver_ids=driver_ids)
    known_vehicles = fleet.plates_by_id(carrier_id=carrier_id, vehicle_ids=vehicle_ids)
    errors = []
    if vehicle_ids - known_vehicles.keys():
        errors.append({"field": "vehicle_id", "message": "no such vehicle"})
    if driver_ids - known_drivers.keys():
        errors.append({"field": "chauffeur_id", "message": "no such driver"})
    if errors:
        raise ValidationFailed(errors)


def get_task(
    *, carrier_id: uuid.UUID, task_id: uuid.UUID, archived: bool = False, lock: bool = False
) -> Task:
    """The carrier's task; NotFound when absent, another carrier's, or archived (unless asked)."""
    stmt = select(Task).where(Task.transporteur_id == carrier_id, Task.id == task_id)
    if not archived:
        stmt = stmt.where(Task.gearchiveerd_op.is_(None))
    if lock:
        # Waiting for the lock may take a concurrent change: load the row as the lock found
        # it, also into a Task this session read before (the session would keep the stale
        # status and version, and its UPDATE would then match no row: StaleDataError).
        stmt = stmt.with_for_update().execution_options(populate_existing=True)
    task = db.session.scalar(stmt)
    if task is None:
        raise NotFound("task not found")
    return task


def locked_task(
    *, carrier_id: uuid.UUID, task_id: uuid.UUID, expected_version: Expected = None
) -> Task:
    """The task locked for a change; PreconditionFailed (412) when expected_version is stale."""
    task = get_task(carrier_id=carrier_id, task_id=task_id, lock=True)
    if version_stale(task.versie, expected_version):
        raise PreconditionFailed(
            f"The task changed meanwhile (version {task.versie}, you sent "
            f"{versions_text(expected_version)}).",
            etag=etag_of(task),
        )
    return task


# Fields a planner or integration may change; status and timestamps move through lifecycle.
EDITABLE = (
    "chauffeur_id", "vehicle_id", "type", "naam", "omschrijving", "artikel", "hoeveelheid",
    "eenheid", "adres", "postcode", "stad", "land", "contactpersoon", "telefoon",
    "telefoon_mobiel", "gepland_op", "duur_min", "require_photos", "min_fotos", "max_fotos",
    "require_signature", "require_document_scan", "require_location", "photo_label",
    "opmerkingen", "vdm_nummer", "agr_verplicht", "required_desinfectie",
    "required_temperatuur", "kooiaap", "locatie_lat", "locatie_lng",
    "activity_questionnaire_id", *route.ROUTE_FIELDS,
)  # fmt: skip


def update_task(
    *,
    carrier_id: uuid.UUID,
    task_id: uuid.UUID,
    data: dict,
    actor: Actor,
    expected_version: Expected = None,
) -> Task:
    """Change a task's fields; PreconditionFailed when expected_version is stale.

    Changing `type` re-pins the active questionnaire of the new type, unless the caller pins
    one explicitly with `activity_questionnaire_id`."""
    task = locked_task(carrier_id=carrier_id, task_id=task_id, expected_version=expected_version)
    unknown = set(data) - set(EDITABLE)
    if unknown:
        raise ValidationFailed(
            [{"field": f, "message": "cannot be changed"} for f in sorted(unknown)]
        )
    if task.status in ("afgerond", "geannuleerd"):
        raise Conflict(
            f"A task that is {english(TASK_STATUS, task.status)} cannot be edited.",
            allowed=[],
            current=task.status,
        )
    _check_references(carrier_id, data)
    data = route.check(carrier_id=carrier_id, data=data, task=task)
    data = _with_questionnaire(carrier_id, task, data)
    _check_photo_bounds(task, data)
    changes = {}
    for name, value in data.items():
        old = getattr(task, name)
        if old != value:
            changes[name] = [old, value]
            setattr(task, name, value)
    if changes:
        db.session.flush()
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="task",
            entity_id=task.id,
            action="updated",
            changes=changes,
        )
        hooks.changed(carrier_id=carrier_id, task=task, changes=changes)
        webhooks.emit(
            db.session,
            carrier_id=carrier_id,
            type="taak.gewijzigd",
            subject=task,
            order_key=task.id,
            once_per=task.id,
            unless="taak.aangemaakt",
        )
    return task


def _check_photo_bounds(task: Task, data: dict) -> None:
    """At least as many photos as asked for at most (422 at min_fotos)."""
    merged = {name: data.get(name, getattr(task, name)) for name in ("min_fotos", "max_fotos")}
    if (
        merged["min_fotos"] is not None
        and merged["max_fotos"] is not None
        and merged["min_fotos"] > merged["max_fotos"]
    ):
        raise ValidationFailed([{"field": "min_fotos", "message": "greater than max_fotos"}])


def _with_questionnaire(carrier_id: uuid.UUID, task: Task, data: dict) -> dict:
    """A questionnaire pinned explicitly must be the carrier's; a new type without one pins
    the type's active questionnaire."""
    if "activity_questionnaire_id" in data and data["activity_questionnaire_id"] is not None:
        revision_id = data["activity_questionnaire_id"]
        if not questionnaires.definitions(carrier_id=carrier_id, revision_ids={revision_id}):
            raise ValidationFailed(
                [{"field": "activity_questionnaire_id", "message": "no such questionnaire"}]
            )
    elif "type" in data and data["type"] != task.type:
        revision = questionnaires.active_for_type(carrier_id=carrier_id, activity_type=data["type"])
        data = {**data, "activity_questionnaire_id": revision.id if revision else None}
    return data


def duplicate_task(*, carrier_id: uuid.UUID, task_id: uuid.UUID, actor: Actor) -> Task:
    """A copy of a task as a new planned task (same driver, vehicle, demands and questionnaire)."""
    source = get_task(carrier_id=carrier_id, task_id=task_id)
    data = {name: getattr(source, name) for name in EDITABLE if name != "chauffeur_id"}
    data["naam"] = source.naam
    revision_id = data.pop("activity_questionnaire_id")
    copy = create_task(carrier_id=carrier_id, driver_id=source.chauffeur_id, data=data, actor=actor)
    copy.activity_questionnaire_id = revision_id
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="task",
        entity_id=copy.id,
        action="duplicated",
        changes={"bron": [None, str(source.id)]},
    )
    return copy


def delete_task(*, carrier_id: uuid.UUID, task_id: uuid.UUID, actor: Actor) -> str:
    """Delete a task; one that holds work (completed, evidence, answers, billing) is archived
    instead, so nothing billed is lost. Answers "deleted" or "archived"."""
    task = get_task(carrier_id=carrier_id, task_id=task_id, lock=True)
    told = None
    if webhooks.wanted(db.session, carrier_id=carrier_id, type="taak.verwijderd"):
        told = serialize_task(task, definitions_for(carrier_id=carrier_id, tasks=[task]))
    hooks.deleting(carrier_id=carrier_id, task_id=task.id)
    if task.status == "afgerond" or _holds_work(carrier_id, task.id):
        task.gearchiveerd_op = utcnow()
        outcome = "archived"
    else:
        db.session.delete(task)
        outcome = "deleted"
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="task",
        entity_id=task_id,
        action=outcome,
        changes={"status": [task.status, None]},
    )
    if told is not None:
        webhooks.emit(
            db.session,
            carrier_id=carrier_id,
            type="taak.verwijderd",
            data={"taak": told, "gearchiveerd": outcome == "archived"},
            order_key=task_id,
        )
    return outcome


def delete_driver_tasks(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, actor: Actor) -> dict:
    """Delete every task of a driver (archiving those that hold work)."""
    ids = db.session.scalars(
        select(Task.id).where(
            Task.transporteur_id == carrier_id,
            Task.chauffeur_id == driver_id,
            Task.gearchiveerd_op.is_(None),
        )
    ).all()
    counts = {"deleted": 0, "archived": 0}
    for task_id in ids:
        counts[delete_task(carrier_id=carrier_id, task_id=task_id, actor=actor)] += 1
    return counts


def _holds_work(carrier_id: uuid.UUID, task_id: uuid.UUID) -> bool:
    """Whether the task has evidence, answers or work a higher domain holds (a billing
    line: hooks.holds_work): then it is archived."""
    has_evidence = db.session.scalar(
        select(func.count())
        .select_from(TaskEvidence)
        .where(TaskEvidence.transporteur_id == carrier_id, TaskEvidence.taak_id == task_id)
    )
    return bool(
        has_evidence
        or questionnaires.task_has_sessions(carrier_id=carrier_id, task_id=task_id)
        or any(hooks.holds_work(carrier_id=carrier_id, task_id=task_id))
    )


def etag_of(task: Task) -> str:
    return f'"{task.versie}"'


def history(*, carrier_id: uuid.UUID, task_id: uuid.UUID):
    """The task's audit trail, oldest first."""
    return audit.entries_for(carrier_id=carrier_id, entity="task", entity_id=task_id)


def parse_statuses(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    statuses = tuple(dict.fromkeys(s.strip() for s in value.split(",") if s.strip()))
    unknown = [s for s in statuses if s not in STATUSES]
    if unknown:
        raise ValidationFailed([{"field": "status", "message": f"unknown status {unknown[0]!r}"}])
    return statuses


def count_open_pinned(*, carrier_id: uuid.UUID, revision_id: uuid.UUID) -> int:
    """How many open, not archived tasks carry this questionnaire revision (publishing's impact)."""
    return (
        db.session.scalar(
            select(func.count())
            .select_from(Task)
            .where(
                Task.transporteur_id == carrier_id,
                Task.activity_questionnaire_id == revision_id,
                Task.status.in_(OPEN_STATUSES),
                Task.gearchiveerd_op.is_(None),
            )
        )
        or 0
    )


def names_by_id(*, carrier_id: uuid.UUID, task_ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    """Task names (archived tasks too) for rows that refer to tasks, in one query."""
    ids = {i for i in task_ids if i is not None}
    if not ids:
        return {}
    rows = db.session.execute(
        select(Task.id, Task.naam).where(Task.transporteur_id == carrier_id, Task.id.in_(ids))
    )
    return {row.id: row.naam for row in rows}
