"""A series' occurrences: made weeks ahead (never twice: the database holds (series, datum)
unique, and a run inserts an occurrence before its task, so of two runs at once only one
makes it), let go when their task is changed by hand, changed with their series, and removed
when the series ends. The only door to reeks_voorkomens."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite

from portal.accounts.service import carrier_zone
from portal.audit.service import SYSTEM, Actor
from portal.errors import DomainError
from portal.extensions import db
from portal.series import rules
from portal.series import service as series_service
from portal.series.models import SeriesOccurrence, TaskSeries
from portal.tasks import service as tasks
from portal.types import utcnow

logger = logging.getLogger(__name__)
WEEKS_AHEAD = 4  # how far ahead `flask series plan` makes occurrences, unless told
UNSTARTED = ("gepland", "ontvangen")

# Set while a series changes its own tasks: those changes do not make them leave it.
_applying: ContextVar[bool] = ContextVar("series_applying", default=False)


@contextmanager
def _as_series() -> Iterator[None]:
    token = _applying.set(True)
    try:
        yield
    finally:
        _applying.reset(token)


def planned_at(carrier_id: uuid.UUID, series: TaskSeries, day: date) -> datetime:
    """The moment (UTC) of a series' task on day, at its time of day in the carrier's zone."""
    local = datetime.combine(day, series.tijd, tzinfo=carrier_zone(carrier_id))
    return local.astimezone(UTC)


def _insert_once(carrier_id: uuid.UUID, series_id: uuid.UUID, found: rules.Occurrence):
    """Insert the occurrence unless (series, datum) exists; its id, or None when it did."""
    dialect = db.session.get_bind().dialect.name
    make = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = (
        make(SeriesOccurrence)
        .values(
            transporteur_id=carrier_id,
            id=uuid.uuid4(),
            reeks_id=series_id,
            datum=found.datum,
            gepland_datum=found.gepland_datum,
            feestdag=found.feestdag,
            stand="overgeslagen" if found.skipped else "volgt",
            created_at=utcnow(),
        )
        .on_conflict_do_nothing(index_elements=["transporteur_id", "reeks_id", "datum"])
        .returning(SeriesOccurrence.id)
    )
    return db.session.execute(stmt).scalar()


def plan_series(
    *, carrier_id: uuid.UUID, series: TaskSeries, today: date, weeks: int, actor: Actor
) -> int:
    """Make the occurrences of one series from today to `weeks` ahead; how many tasks."""
    if series.beeindigd_op is not None:
        return 0
    template = series_service.get_template(carrier_id=carrier_id, template_id=series.sjabloon_id)
    rule = series_service.rule_of(series)
    made = 0
    until = today + timedelta(weeks=weeks) - timedelta(days=1)  # weeks whole, from today
    for found in rules.occurrences(rule, start=max(today, rule.startdatum), until=until):
        occurrence_id = _insert_once(carrier_id, series.id, found)
        if occurrence_id is None or found.skipped:
            continue
        data = {
            **series_service.task_data(template),
            "gepland_op": planned_at(carrier_id, series, found.gepland_datum),
            "vehicle_id": series.vehicle_id,
        }
        with _as_series():
            task = tasks.create_task(
                carrier_id=carrier_id, driver_id=series.chauffeur_id, data=data, actor=actor
            )
        db.session.execute(
            update(SeriesOccurrence)
            .where(
                SeriesOccurrence.transporteur_id == carrier_id,
                SeriesOccurrence.id == occurrence_id,
            )
            .values(taak_id=task.id)
            .execution_options(synchronize_session=False)
        )
        made += 1
    db.session.flush()
    return made


def plan(
    *, carrier_id: uuid.UUID, today: date, weeks: int = WEEKS_AHEAD, actor: Actor = SYSTEM
) -> int:
    """Make every running series' occurrences up to `weeks` ahead; how many tasks were made.
    A series whose tasks cannot be made (its customer deactivated, its driver gone) is
    logged and left for the next run; the others are planned."""
    made = 0
    for series in series_service.list_series(carrier_id=carrier_id):
        try:
            with db.session.begin_nested():
                made += plan_series(
                    carrier_id=carrier_id, series=series, today=today, weeks=weeks, actor=actor
                )
        except DomainError as error:
            logger.warning("series %s of carrier %s not planned: %s", series.id, carrier_id, error)
    return made


def occurrences_of(*, carrier_id: uuid.UUID, series_id: uuid.UUID) -> list[SeriesOccurrence]:
    """A series' occurrences by date."""
    return list(
        db.session.scalars(
            select(SeriesOccurrence)
            .where(
                SeriesOccurrence.transporteur_id == carrier_id,
                SeriesOccurrence.reeks_id == series_id,
            )
            .order_by(SeriesOccurrence.datum)
        )
    )


def following_future(*, carrier_id: uuid.UUID, series_id: uuid.UUID, today: date) -> list:
    """The occurrences that still follow the series, from today on, whose task has not
    started: [(occurrence, task)]. Those change with the series and go when it ends."""
    found = []
    for occurrence in occurrences_of(carrier_id=carrier_id, series_id=series_id):
        if occurrence.stand != "volgt" or occurrence.taak_id is None:
            continue
        if occurrence.gepland_datum is None or occurrence.gepland_datum < today:
            continue
        task = tasks.get_task(carrier_id=carrier_id, task_id=occurrence.taak_id, archived=True)
        if task.status in UNSTARTED and task.gearchiveerd_op is None:
            found.append((occurrence, task))
    return found


def update_series(
    *,
    carrier_id: uuid.UUID,
    series_id: uuid.UUID,
    data: dict,
    actor: Actor,
    today: date,
    expected_version: int | None = None,
) -> tuple[TaskSeries, int]:
    """Change a series and its future, unchanged, unstarted occurrences (a new rule remakes
    them); answers the series and how many occurrences changed."""
    series = series_service.get_series(carrier_id=carrier_id, series_id=series_id, lock=True)
    if expected_version is not None and series.versie != expected_version:
        raise series_service.SeriesChanged(series.versie)
    clean = series_service.clean_series(carrier_id, data, series)
    changes = series_service.apply_changes(carrier_id, actor, series, clean)
    if not changes:
        return series, 0
    new_rule = any(name in changes for name in series_service.RULE_COLUMNS)
    changed = 0
    template = series_service.get_template(carrier_id=carrier_id, template_id=series.sjabloon_id)
    for occurrence, task in following_future(
        carrier_id=carrier_id, series_id=series_id, today=today
    ):
        if new_rule:
            _remove(carrier_id, occurrence, actor)
            changed += 1
            continue
        fields = {
            **series_service.task_data(template),
            "gepland_op": planned_at(carrier_id, series, occurrence.gepland_datum),
            "vehicle_id": series.vehicle_id,
            "chauffeur_id": series.chauffeur_id,
        }
        before = task.versie
        with _as_series():
            tasks.update_task(carrier_id=carrier_id, task_id=task.id, data=fields, actor=actor)
        changed += task.versie != before
    if new_rule:
        plan_series(
            carrier_id=carrier_id, series=series, today=today, weeks=WEEKS_AHEAD, actor=actor
        )
    return series, changed


def _remove(carrier_id: uuid.UUID, occurrence: SeriesOccurrence, actor: Actor) -> None:
    """Delete an occurrence's task and the occurrence (its date may be made again)."""
    task_id = occurrence.taak_id
    occurrence_id = occurrence.id
    with _as_series():
        tasks.delete_task(carrier_id=carrier_id, task_id=task_id, actor=actor)
    db.session.execute(
        delete(SeriesOccurrence)
        .where(
            SeriesOccurrence.transporteur_id == carrier_id,
            SeriesOccurrence.id == occurrence_id,
        )
        .execution_options(synchronize_session=False)
    )
    db.session.expunge(occurrence)


def to_end(*, carrier_id: uuid.UUID, series_id: uuid.UUID, today: date) -> int:
    """How many occurrences ending the series removes (for its confirmation)."""
    return len(following_future(carrier_id=carrier_id, series_id=series_id, today=today))


def end_series(*, carrier_id: uuid.UUID, series_id: uuid.UUID, actor: Actor, today: date) -> int:
    """End a series: no more occurrences; its future unstarted ones that still follow it are
    removed (started, done and changed ones stay). Answers how many were removed."""
    series = series_service.get_series(carrier_id=carrier_id, series_id=series_id, lock=True)
    removed = 0
    for occurrence, _task in following_future(
        carrier_id=carrier_id, series_id=series_id, today=today
    ):
        _remove(carrier_id, occurrence, actor)
        removed += 1
    if series.beeindigd_op is None:
        series_service.apply_changes(carrier_id, actor, series, {"beeindigd_op": utcnow()})
    db.session.flush()
    return removed


# --- what tasks' moments do to occurrences (portal/wiring.py) ---------------------------


def task_changed(*, carrier_id: uuid.UUID, task, changes: dict) -> None:
    """A task changed by hand leaves its series (tasks.changed)."""
    if _applying.get():
        return
    db.session.execute(
        update(SeriesOccurrence)
        .where(
            SeriesOccurrence.transporteur_id == carrier_id,
            SeriesOccurrence.taak_id == task.id,
            SeriesOccurrence.stand == "volgt",
        )
        .values(stand="gewijzigd")
        .execution_options(synchronize_session=False)
    )


def task_deleting(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> None:
    """A task is deleted: its occurrence forgets it, and its date is not made again."""
    db.session.execute(
        update(SeriesOccurrence)
        .where(SeriesOccurrence.transporteur_id == carrier_id, SeriesOccurrence.taak_id == task_id)
        .values(taak_id=None, stand="verwijderd")
        .execution_options(synchronize_session=False)
    )


def carriers_with_series() -> list[uuid.UUID]:
    """The carriers with a running series (every carrier's only on the owner's connection,
    which row-level security does not limit: `flask series plan` runs there)."""
    return list(
        db.session.scalars(
            select(TaskSeries.transporteur_id).where(TaskSeries.beeindigd_op.is_(None)).distinct()
        )
    )
