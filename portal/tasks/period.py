"""Tasks: a period's tasks as light rows, for the planner's week and the API's planning.

A week holds thousands of tasks: reading only the columns a week draws and checks, as plain
rows (attribute access like a Task's), is several times faster than loading whole tasks.
`service` callers keep asking the tasks service for anything else."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import func, select

from portal.accounts.service import carrier_zone
from portal.extensions import db
from portal.tasks.conflicts import IDENTITY
from portal.tasks.listing import TaskFilters, _ordered, _where
from portal.tasks.models import Task

# What a week shows of a task and what its planning checks read (conflicts.Planned.of_task).
PERIOD_FIELDS = tuple(
    dict.fromkeys(
        (
            "id",
            "naam",
            "type",
            "status",
            "gepland_op",
            "duur_min",
            "chauffeur_id",
            "vehicle_id",
            "klant_id",
            "stad",
            "versie",
            "updated_at",
            *IDENTITY,
        )
    )
)
_COLUMNS = [getattr(Task, name) for name in PERIOD_FIELDS]


@dataclass(frozen=True)
class PeriodPage:
    tasks: list  # rows with the attributes PERIOD_FIELDS names
    total: int


def period_tasks(*, carrier_id: uuid.UUID, filters: TaskFilters) -> PeriodPage:
    """The tasks filters select (at most filters.limit), by planned time: two queries."""
    where = _where(carrier_id, filters, carrier_zone(carrier_id))
    total = db.session.scalar(select(func.count()).select_from(Task).where(*where)) or 0
    rows = db.session.execute(
        _ordered(select(*_COLUMNS).where(*where)).limit(filters.limit).offset(filters.offset)
    ).all()
    return PeriodPage(list(rows), total)
