"""The work of tasks as a domain above tasks reads it (billing): the tasks themselves by id,
the completed ones, and the task facts a query of lines joins on. The door to the taken
table for those readers, so they never import tasks' models.

Every read is one query for a whole batch, never one per task: `facts()` and `is_completed`
are SQL pieces the reader's own query joins or filters on (its lines stay one query, in the
order it asks), `by_id` and `completed` read the tasks of many lines at once.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Select, exists, select
from sqlalchemy.orm import aliased

from portal.extensions import db
from portal.tasks.models import Task

# The task as its readers receive it (for their type hints).
__all__ = ["Task", "by_id", "completed", "facts", "is_completed"]


def facts():
    """The task facts a line shows, as a subquery to join on (transporteur_id, id): naam,
    type, adres, postcode, stad, vdm_nummer, vehicle_id, gepland_op, status, afgerond_op.
    Archived tasks too: their work was done."""
    return select(
        Task.transporteur_id,
        Task.id,
        Task.naam,
        Task.type,
        Task.adres,
        Task.postcode,
        Task.stad,
        Task.vdm_nummer,
        Task.vehicle_id,
        Task.gepland_op,
        Task.status,
        Task.afgerond_op,
    ).subquery("taak")


def is_completed(*, carrier_column, task_column):
    """An SQL condition: the task these columns of the reader's row name is completed now (a
    reopened task is not, until it is completed again; archived tasks count)."""
    task = aliased(Task)  # the reader's query may join the tasks too; this stays its own
    return exists().where(
        task.transporteur_id == carrier_column,
        task.id == task_column,
        task.status == "afgerond",
    )


def by_id(*, carrier_id: uuid.UUID, task_ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, Task]:
    """The carrier's tasks by id (archived ones too), in one query."""
    ids = {i for i in task_ids if i is not None}
    if not ids:
        return {}
    found = db.session.scalars(
        select(Task).where(Task.transporteur_id == carrier_id, Task.id.in_(ids))
    )
    return {task.id: task for task in found}


def completed(
    *, carrier_id: uuid.UUID, since: datetime | None, excluding: Select | None = None
) -> list[Task]:
    """The carrier's completed tasks, oldest completion first; since: completed at or after
    it; excluding: a query of task ids to leave out (those that already have a line)."""
    stmt = select(Task).where(Task.transporteur_id == carrier_id, Task.status == "afgerond")
    if excluding is not None:
        stmt = stmt.where(Task.id.not_in(excluding))
    if since is not None:
        stmt = stmt.where(Task.afgerond_op >= since)
    return list(db.session.scalars(stmt.order_by(Task.afgerond_op, Task.id)))
