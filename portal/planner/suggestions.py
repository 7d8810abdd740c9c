"""Suggestions for one task without a driver: every active driver ranked with a combination
and the reasons (portal.planner.ranking), read from the other domains for the task's day."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from portal.accounts.service import carrier_zone
from portal.planner.gather import gather
from portal.planner.problem import Task
from portal.planner.ranking import Suggestion, rank
from portal.tasks import service as tasks
from portal.types import utcnow


@dataclass(frozen=True)
class Suggestions:
    task: Task | None  # None: the task has a driver, or no planned time
    ranked: list[Suggestion]
    reason: str | None = None  # why there is nothing to rank: heeft_chauffeur, geen_tijd


def for_task(
    *, carrier_id: uuid.UUID, task_id: uuid.UUID, now: datetime | None = None
) -> Suggestions:
    """The ranked drivers for a task without a driver (NotFound for another carrier's)."""
    row = tasks.get_task(carrier_id=carrier_id, task_id=task_id)
    if row.chauffeur_id is not None:
        return Suggestions(None, [], "heeft_chauffeur")
    if row.gepland_op is None:
        return Suggestions(None, [], "geen_tijd")
    zone = carrier_zone(carrier_id)
    day = row.gepland_op.astimezone(zone).date()
    van = datetime.combine(day, time(0), tzinfo=zone)
    found = gather(
        carrier_id=carrier_id,
        van=van,
        tot=van + timedelta(days=1),
        now=now or utcnow(),
        task_ids={row.id},
    )
    task = next((t for t in found.problem.tasks if t.id == row.id), None)
    if task is None:
        return Suggestions(None, [], "geen_tijd")
    return Suggestions(task, rank(found.problem, task))
